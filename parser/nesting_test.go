package parser

import (
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// repeated reads as n copies of text, made as they are read.
type repeated struct {
	text string
	n    int
	off  int // in the copy being read
}

func (r *repeated) Read(p []byte) (int, error) {
	k := 0
	for k < len(p) && r.n > 0 {
		c := copy(p[k:], r.text[r.off:])
		k += c
		if r.off += c; r.off == len(r.text) {
			r.off = 0
			r.n--
		}
	}
	if k == 0 {
		return 0, io.EOF
	}
	return k, nil
}

// nested returns a reader of data with the value of depth arrays, one in
// another, put in at the first offset at which data reads mark: then mark
// reads `mark"deep": [[…]], `.
func nested(t testing.TB, data, mark string, depth int) io.Reader {
	t.Helper()
	i := strings.LastIndex(data, mark)
	if i < 0 {
		t.Fatalf("no %q in the sample", mark)
	}
	i += len(mark)
	return io.MultiReader(strings.NewReader(data[:i]+`"deep": `),
		&repeated{text: "[", n: depth}, &repeated{text: "]", n: depth},
		strings.NewReader(", "+data[i:]))
}

// nesting returns how deep the arrays and objects of the JSON text s nest.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
}

// TestValidNesting checks that records and documents nested
// rawjson.MaxDepth levels deep are read and deeper ones are not, as
// encoding/json decides, and that jsonError says why, at an offset no
// later than the start of what Prefix leaves out.
func TestValidNesting(t *testing.T) {
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	for _, tt := range []struct {
		name string
		make func(int) string
	}{{"arrays", arrays}, {"objects", objects}} {
		for _, depth := range []int{rawjson.MaxDepth - 1, rawjson.MaxDepth, rawjson.MaxDepth + 1, rawjson.MaxDepth + 2} {
			doc := tt.make(depth)
			if got := nesting(doc); got != depth {
				t.Fatalf("%s(%d) nests %d deep", tt.name, depth, got)
			}
			want := depth <= rawjson.MaxDepth
			if std := json.Valid([]byte(doc)); std != want {
				t.Fatalf("%s at %d levels: encoding/json says valid = %v, want %v", tt.name, depth, std, want)
			}
			if got := rawjson.Valid(doc); got != want {
				t.Errorf("rawjson.Valid of %s at %d levels = %v, want %v", tt.name, depth, got, want)
			}
			if want {
				continue
			}
			// A document nested too deep is read up to the value
			// that goes too deep, where encoding/json stops too.
			msg, off := jsonError([]byte(doc))
			if msg != "invalid JSON: nested more than 10000 levels deep" {
				t.Errorf("jsonError of %s at %d levels = %q", tt.name, depth, msg)
			}
			if end := rawjson.Prefix(doc); end > int(off) {
				t.Errorf("Prefix of %s at %d levels = %d; encoding/json stops at %d", tt.name, depth, end, off)
			}
		}
	}
}

// deepCases are the samples of each format, each with a place to put a
// value nested too deep in: a tool's input where the format has one.
// nested puts it after the last place.
var deepCases = []struct {
	file, mark string
	// skipped says that the record is skipped; in a string (arguments
	// encoded as JSON text) the value only makes the arguments unread.
	skipped bool
}{
	{"claude-code/basic.jsonl", `"input":{`, true},
	{"codex/shell-command.jsonl", `"payload":{`, true},
	{"codex/shell-command.jsonl", `"arguments":"{`, false},
	{"gemini/legacy.json", `"args": {`, true},
	{"gemini/jsonl-rewrites.jsonl", `"args":{`, true},
	{"opencode/basic.json", `"input": {`, true},
	{"openhands/events.json", `"args": {`, true},
	{"swe-agent/function-calling.traj", `"state": {`, true},
	{"mini-swe-agent/toolcall.traj.json", `"function": {`, true},
	{"openai-messages/tool-calls.json", `"function": {`, true},
	{"openai-messages/tool-calls.json", `"arguments": "{`, false},
}

// TestDeepRecords reads a sample of every format with a value nested one
// level too deep, and, unless -short, ten million levels deep (20 MB of
// brackets, made as they are read): Go cannot recover from the stack
// overflow that a walk recursing once per level would end in. The record
// or document is read as invalid JSON, with its line, and the rest is
// read.
func TestDeepRecords(t *testing.T) {
	depths := []int{rawjson.MaxDepth + 1, 10_000_000}
	if testing.Short() {
		depths = depths[:1]
	}
	for _, tt := range deepCases {
		data, err := os.ReadFile(filepath.Join("..", "testdata", filepath.FromSlash(tt.file)))
		if err != nil {
			t.Fatal(err)
		}
		sample := string(data)
		base, err := Parse(strings.NewReader(sample), tt.file, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The mark's line, where the brackets go.
		line := strings.Count(sample[:strings.LastIndex(sample, tt.mark)], "\n") + 1
		for _, depth := range depths {
			s, err := Parse(nested(t, sample, tt.mark, depth), tt.file, nil)
			if err != nil {
				t.Fatalf("%s nested %d deep: %v", tt.file, depth, err)
			}
			if s.Format != base.Format {
				t.Errorf("%s nested %d deep is read as %s, not %s", tt.file, depth, s.Format, base.Format)
			}
			var found bool
			for _, e := range s.Skipped {
				found = found || e.Pos.Line == line && strings.HasPrefix(e.Msg, "invalid JSON: nested more than 10000 levels deep")
			}
			if found != tt.skipped {
				t.Errorf("%s nested %d deep at line %d: skipped %v, want a warning at that line: %v", tt.file, depth, line, s.Skipped, tt.skipped)
			}
			// The calls before the one the deep value is in are read.
			if min := countBefore(base, line) - 1; len(s.Calls) < min || len(s.Calls) == 0 {
				t.Errorf("%s nested %d deep: %d calls read, want at least %d of %d", tt.file, depth, len(s.Calls), min, len(base.Calls))
			}
		}
	}
}

// countBefore returns the number of calls of s read from lines before
// line.
func countBefore(s *Session, line int) int {
	n := 0
	for _, c := range s.Calls {
		if c.Pos.Line < line {
			n++
		}
	}
	return n
}

// TestDeepRecordsHead checks that a first record nested too deep, which
// recognizing the format reads, is skipped like any other.
func TestDeepRecordsHead(t *testing.T) {
	const ok = `{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]}}`
	deep := `{"type":"progress","parentUuid":null,"data":` + strings.Repeat("[", 30000) + strings.Repeat("]", 30000) + "}"
	s, err := Parse(strings.NewReader(deep+"\n"+ok+"\n"), "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range s.Skipped {
		got = append(got, e.Error())
	}
	if s.Format != "claude-code" || len(s.Calls) != 1 || len(got) != 1 || got[0] != "f:1: invalid JSON: nested more than 10000 levels deep" {
		t.Errorf("read as %s with %d calls, skipped %q; want claude-code, 1 call and line 1 skipped", s.Format, len(s.Calls), got)
	}
}
