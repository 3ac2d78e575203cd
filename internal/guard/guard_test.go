package guard

import (
	"bytes"
	"fmt"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/synth"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// TestReadPayload reads the payloads of cmd/retrace/testdata/guard, which
// the command's scripts use too: each agent is
// recognized, and the command, output and exit code are found.
func TestReadPayload(t *testing.T) {
	tests := []struct {
		file, agent, event string
		command, output    bool
		exit               int // -1: none
	}{
		{"claude-code/pre-repeat.json", ClaudeCode, "PreToolUse", true, false, -1},
		{"claude-code/pre-write.json", ClaudeCode, "PreToolUse", false, false, -1},
		{"claude-code/failure.json", ClaudeCode, "PostToolUseFailure", true, true, 2},
		{"codex/pre-repeat.json", Codex, "PreToolUse", true, false, -1},
		{"codex/post-failure.json", Codex, "PostToolUse", true, true, 2},
		{"codex/null-transcript.json", Codex, "PreToolUse", true, false, -1},
		{"gemini/before-repeat.json", Gemini, "BeforeTool", true, false, -1},
		{"gemini/after-failure.json", Gemini, "AfterTool", true, true, 2},
	}
	for _, tt := range tests {
		b, err := os.ReadFile(filepath.Join("..", "..", "cmd", "retrace", "testdata", "guard", tt.file))
		if err != nil {
			t.Fatal(err)
		}
		p, err := ReadPayload(b, "")
		if err != nil {
			t.Errorf("%s: %v", tt.file, err)
			continue
		}
		exit := -1
		if p.Exit != nil {
			exit = *p.Exit
		}
		if p.Agent != tt.agent || p.Event != tt.event || (p.Command != "") != tt.command ||
			(p.Output != "") != tt.output || exit != tt.exit || p.Before != strings.HasPrefix(tt.event, "Pre") && tt.event != "BeforeTool" {
			t.Errorf("%s: agent %s, event %s, command %q, output %q, exit %d", tt.file, p.Agent, p.Event, p.Command, p.Output, exit)
		}
	}
}

// TestUsedBy checks how a lesson's wrong flag or value is found among a
// command's arguments.
func TestUsedBy(t *testing.T) {
	flag := Lesson{Kind: "flag", Wrong: "--num-prompts"}
	value := Lesson{Kind: "value", Wrong: "--dtype fp8"}
	tests := []struct {
		l    Lesson
		args string
		want bool
	}{
		{flag, "--num-prompts 5", true},
		{flag, "--num-prompts=5", true},
		{flag, "--num-prompts-max 5", false},
		{flag, "--num-runs 5", false},
		{flag, "-- --num-promptsx", false},
		{value, "--dtype fp8", true},
		{value, "--dtype=fp8", true},
		{value, "--dtype bf16", false},
		{value, "--model fp8", false},
	}
	for _, tt := range tests {
		if got := tt.l.usedBy(strings.Fields(tt.args)); got != tt.want {
			t.Errorf("%s in %q: %v, want %v", tt.l.Wrong, tt.args, got, tt.want)
		}
	}
}

// TestBlockValid checks that a flag any usage text of the target offers is
// never blocked, and that a lesson of another target does not count.
func TestBlockValid(t *testing.T) {
	cmd := shell.Parse("python3 bench.py --port 8000")
	l := Lesson{Target: "bench.py", Kind: "flag", Wrong: "--port", Right: "--server-url", Session: "/s/a.jsonl", Failed: 3, Fixed: 5}
	if got := block(cmd, nil, []Lesson{l}); got != "bench.py takes --server-url, not --port (failed at msg 3, fixed at msg 5 in a.jsonl)" {
		t.Errorf("block: %q", got)
	}
	other := Lesson{Target: "bench.py", Kind: "flag", Wrong: "--x", ValidFlags: []string{"--port", "--x"}}
	if got := block(cmd, nil, []Lesson{l, other}); got != "" {
		t.Errorf("a flag another usage text offers is blocked: %q", got)
	}
	l.Target = "serve.py"
	if got := block(cmd, []Lesson{l}, nil); got != "" {
		t.Errorf("another target's lesson blocks: %q", got)
	}
}

// TestTrackerGrowing grows transcripts a random number of bytes at a time,
// cutting records anywhere, and checks after each step that what the
// Tracker found reading only what was appended is what reading the whole
// transcript, to its last whole line, finds.
func TestTrackerGrowing(t *testing.T) {
	files := []string{
		"../../testdata/seeds/claude-code.jsonl",
		"../../testdata/seeds/codex.jsonl",
	}
	more, _ := filepath.Glob("../../testdata/claude-code/*.jsonl")
	files = append(files, more...)
	inputs := map[string][]byte{"claude-long.jsonl": long(t, "claude-code"), "codex-long.jsonl": long(t, "codex")}
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		inputs[file] = data
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, file := range slices.Sorted(maps.Keys(inputs)) {
		data := inputs[file]
		// The lines written so far may be too few to tell the format
		// by, where the tracker has told it from the line being written.
		full, err := parser.Parse(bytes.NewReader(data), file, nil)
		if err != nil {
			t.Fatal(err)
		}
		format := parser.Lookup(full.Format)
		step := max(4096, len(data)/30)
		dir := t.TempDir()
		path := filepath.Join(dir, filepath.Base(file))
		tr := Tracker{Dir: filepath.Join(dir, "state")}
		for n := 0; n < len(data); {
			n = min(len(data), n+1+r.IntN(step))
			if err := os.WriteFile(path, data[:n], 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := tr.Session(path)
			if err != nil {
				if n < 512 {
					continue // too little yet to tell the format
				}
				t.Fatalf("%s at %d bytes: %v", file, n, err)
			}
			want := whole(t, path, format, data[:bytes.LastIndexByte(data[:n], '\n')+1])
			if !sameFound(got, want) {
				t.Fatalf("%s at %d bytes:\n%s", file, n, cmp.Diff(want, got))
			}
		}
	}
}

// long returns a session of several hundred calls, many failing, written
// by synth in format: the generated sessions of seed 7, one after the
// other, as parts of one.
func long(t *testing.T, format string) []byte {
	t.Helper()
	var buf bytes.Buffer
	first := synth.Corpus(7, 0)
	for n := range 4 {
		s := synth.Corpus(7, n)
		s.ID, s.Cwd = first.ID, first.Cwd
		s.Seed = fmt.Sprintf("%s/part/%d", first.ID, n)
		s.Start = first.Start.Add(time.Duration(n) * 6 * time.Hour)
		write := synth.WriteClaude
		if format == "codex" {
			write = synth.WriteCodex
		}
		if err := write(&buf, s); err != nil {
			t.Fatal(err)
		}
	}
	return buf.Bytes()
}

// whole returns what the transcript data in format, read whole, teaches,
// each lesson and fix once.
func whole(t *testing.T, path string, format *parser.Format, data []byte) Found {
	t.Helper()
	if len(data) == 0 {
		return Found{}
	}
	s, err := parser.Parse(bytes.NewReader(data), path, format)
	if err != nil {
		t.Fatal(err)
	}
	var f Found
	f.Lessons, f.Fixes = Draw(analyzer.AnalyzeSession(s), 0)
	return merge(Found{}, f)
}

// sameFound reports whether a and b hold the same lessons and fixes, in
// any order.
func sameFound(a, b Found) bool {
	key := func(v any) string { return fmt.Sprintf("%+v", v) }
	keys := func(f Found) []string {
		var out []string
		for _, l := range f.Lessons {
			out = append(out, key(l))
		}
		for _, x := range f.Fixes {
			out = append(out, key(x))
		}
		slices.Sort(out)
		return slices.Compact(out)
	}
	return slices.Equal(keys(a), keys(b))
}

// TestTrackerRewritten checks that a transcript replaced by another, or
// cut shorter, is read anew.
func TestTrackerRewritten(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "s.jsonl")
	tr := Tracker{Dir: filepath.Join(dir, "state")}
	seed, err := os.ReadFile("../../testdata/seeds/claude-code.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, seed, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := tr.Session(path); err != nil || len(f.Lessons) == 0 {
		t.Fatalf("the seed teaches %v, %v", f.Lessons, err)
	}
	lines := bytes.SplitAfter(seed, []byte("\n"))
	short := bytes.Join(lines[:20], nil)
	if err := os.WriteFile(path, short, 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := tr.Session(path); err != nil || len(f.Lessons) != 0 {
		t.Fatalf("the cut transcript teaches %v, %v", f.Lessons, err)
	}
}

// TestStoreFor checks that the store finds a target's lessons, whatever
// characters its name holds, and replaces a session's lessons.
func TestStoreFor(t *testing.T) {
	st := Store{Path: filepath.Join(t.TempDir(), "lessons.jsonl")}
	lessons := []Lesson{
		{Target: "a&b<c>.py", Kind: "flag", Wrong: "--x", Session: "/s/1.jsonl"},
		{Target: "é \"q\".py", Kind: "flag", Wrong: "--y", Session: "/s/1.jsonl"},
		{Target: "a&b<c>.py", Kind: "flag", Wrong: "--z", Session: "/s/2.jsonl"},
	}
	if n, err := st.Replace(nil, lessons); n != 3 || err != nil {
		t.Fatalf("Replace: %d, %v", n, err)
	}
	for _, target := range []string{"a&b<c>.py", "é \"q\".py"} {
		got, err := st.For(target)
		want := slices.DeleteFunc(slices.Clone(lessons), func(l Lesson) bool { return l.Target != target })
		if err != nil || !slices.EqualFunc(got, want, func(a, b Lesson) bool { return a.Wrong == b.Wrong }) {
			t.Errorf("For(%q) = %v, %v; want %v", target, got, err, want)
		}
	}
	if n, err := st.Replace([]string{"/s/1.jsonl"}, lessons[2:]); n != 2 || err != nil {
		t.Fatalf("Replace again: %d, %v", n, err)
	}
}

// TestReadPayloadDeep reads payloads nested a level deeper than
// encoding/json reads, and ten million levels deep (20 MB, under
// MaxPayload): a payload is refused as not JSON, never read by a walk that
// recurses once per level, which would end the process with a stack
// overflow, and with it exit status 2, which blocks the call.
func TestReadPayloadDeep(t *testing.T) {
	for _, depth := range []int{10001, 10_000_000} {
		b := []byte(`{"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"},"tool_response":` +
			strings.Repeat("[", depth) + strings.Repeat("]", depth) + `}`)
		if p, err := ReadPayload(b, ""); err == nil {
			t.Errorf("a payload %d levels deep is read: %+v", depth, p)
		}
	}
}
