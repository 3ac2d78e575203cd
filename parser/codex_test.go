package parser

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// codexLines joins records into a rollout.
func codexLines(recs ...string) string { return strings.Join(recs, "\n") + "\n" }

const (
	cxMeta = `{"timestamp":"2026-05-01T10:00:00.000Z","type":"session_meta","payload":{"id":"019e2b40-0000-7000-8000-000000000001","timestamp":"2026-05-01T10:00:00.000Z","cwd":"/w","originator":"codex_cli_rs","cli_version":"0.120.0"}}`
	// An exec_command whose process keeps running as session 42.
	cxExec    = `{"timestamp":"2026-05-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"exec_command","arguments":"{\"cmd\":\"make test\"}","call_id":"c1"}}`
	cxRunning = `{"timestamp":"2026-05-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":"Chunk ID: a\nWall time: 1.0000 seconds\nProcess running with session ID 42\nOriginal token count: 1\nOutput:\none\n"}}`
)

// cxPoll returns a write_stdin call on session sid and its output.
func cxPoll(id, sid, out string) string {
	return `{"timestamp":"2026-05-01T10:00:05.000Z","type":"response_item","payload":{"type":"function_call","name":"write_stdin","arguments":"{\"session_id\":` + sid + `,\"chars\":\"\"}","call_id":"` + id + `"}}` + "\n" +
		`{"timestamp":"2026-05-01T10:00:06.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"` + id + `","output":"` + out + `"}}`
}

// TestCodexPolls checks that write_stdin polls fold into the exec_command
// they poll, and where its exit code comes from.
func TestCodexPolls(t *testing.T) {
	type result struct {
		Calls   int
		Output  string
		Exit    any
		Status  Status
		Skipped []string
	}
	tests := []struct {
		name string
		in   string
		want result
	}{
		{"exit on a later poll", codexLines(cxMeta, cxExec, cxRunning,
			cxPoll("p1", "42", `Wall time: 5.0000 seconds\nProcess running with session ID 42\nOutput:\ntwo\n`),
			cxPoll("p2", "42", `Wall time: 1.0000 seconds\nProcess exited with code 3\nOutput:\nthree\n`)),
			result{1, "one\ntwo\nthree\n", 3, "", nil}},
		{"still running at the end", codexLines(cxMeta, cxExec, cxRunning,
			cxPoll("p1", "42", `Wall time: 5.0000 seconds\nProcess running with session ID 42\nOutput:\ntwo\n`)),
			result{1, "one\ntwo\n", nil, "running", nil}},
		{"session id given as a string", codexLines(cxMeta, cxExec, cxRunning,
			cxPoll("p1", `\"42\"`, `Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\n`)),
			result{1, "one\n", 0, "", nil}},
		{"exec_command_end wins over the poll", codexLines(cxMeta, cxExec, cxRunning,
			`{"timestamp":"2026-05-01T10:00:04.000Z","type":"event_msg","payload":{"type":"exec_command_end","call_id":"c1","exit_code":1,"aggregated_output":"","duration":{"secs":3,"nanos":0}}}`,
			cxPoll("p1", "42", `Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\ntwo\n`)),
			result{1, "one\ntwo\n", 1, "", nil}},
		{"replayed poll read once", codexLines(cxMeta, cxExec, cxRunning,
			cxPoll("p1", "42", `Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\ntwo\n`),
			cxExec, cxRunning,
			cxPoll("p1", "42", `Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\ntwo\n`)),
			result{1, "one\ntwo\n", 0, "", nil}},
		{"poll of an unknown session", codexLines(cxMeta, cxExec, cxRunning,
			cxPoll("p1", "7", `Wall time: 1.0000 seconds\nProcess exited with code 0\nOutput:\nlost\n`)),
			result{1, "one\n", nil, "running", []string{`f:5: write_stdin output for session "7", which no exec_command started`}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "f", nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != "codex" {
				t.Fatalf("detected as %s, want codex", s.Format)
			}
			got := result{Calls: len(s.Calls)}
			if len(s.Calls) > 0 {
				c := s.Calls[0]
				got.Output, got.Status = c.Output, c.Status
				if c.Exit != nil {
					got.Exit = *c.Exit
				}
			}
			for _, e := range s.Skipped {
				got.Skipped = append(got.Skipped, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseExec(t *testing.T) {
	exit := func(n int) *int { return &n }
	secs := func(f float64) *float64 { return &f }
	tests := []struct {
		in   string
		want execResult
	}{
		{`{"output":"boom\n","metadata":{"exit_code":101,"duration_seconds":0.1}}`, execResult{out: "boom\n", exit: exit(101), seconds: secs(0.1), ok: true}},
		{`{"output":"","metadata":{"exit_code":143,"duration_seconds":0}}`, execResult{exit: exit(143), seconds: secs(0), ok: true}},
		{"Exit code: 0\nWall time: 1.2 seconds\nOutput:\nok\n", execResult{out: "ok\n", exit: exit(0), ok: true}},
		{"Exit code: 2\nWall time: 0 seconds\nTotal output lines: 900\nOutput:\n", execResult{exit: exit(2), ok: true}},
		{"Exit code: -1\r\nWall time: 0 seconds\r\nOutput:\r\nx", execResult{out: "x", exit: exit(-1), ok: true}},
		{"Exit code: 0\nWall time: 0 seconds\nOutput:", execResult{exit: exit(0), ok: true}},
		{"Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session ID 9\nOriginal token count: 2\nOutput:\nup\n", execResult{out: "up\n", session: "9", ok: true}},
		{"Wall time: 1.0 seconds\nProcess exited with code 137\nOutput:\nKilled\n", execResult{out: "Killed\n", exit: exit(137), ok: true}},
		// Not a header: kept as it is.
		{"Output:\nx", execResult{out: "Output:\nx"}},
		{"Exit code: one\nOutput:\nx", execResult{out: "Exit code: one\nOutput:\nx"}},
		{"Exit code: 1\nWall time: 1 seconds", execResult{out: "Exit code: 1\nWall time: 1 seconds"}},
		{"Success. Updated the following files:\nM a.go\n", execResult{out: "Success. Updated the following files:\nM a.go\n"}},
		{`{"output":"x"}`, execResult{out: `{"output":"x"}`}},
		{"command timed out after 10000 milliseconds\n", execResult{out: "command timed out after 10000 milliseconds\n"}},
	}
	for _, tt := range tests {
		got := parseExec(tt.in)
		if diff := cmp.Diff(tt.want, got, cmp.AllowUnexported(execResult{})); diff != "" {
			t.Errorf("parseExec(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestKilledByTimeout(t *testing.T) {
	secs := func(f float64) *float64 { return &f }
	tests := []struct {
		exit       int
		args       map[string]string
		seconds    *float64
		typescript bool
		timeout    bool
	}{
		{143, map[string]string{"timeout": "600"}, secs(0.6), true, true}, // seconds meant, milliseconds read
		{143, map[string]string{"timeout": "30"}, secs(0), true, true},
		{143, map[string]string{"timeout": "2400"}, secs(2.8), true, true}, // slow to die
		{143, nil, secs(10.0), true, true},                                 // the default of 10 s
		{143, map[string]string{"timeout": "0"}, secs(10.1), true, true},
		{143, nil, secs(3.0), true, false},
		{143, map[string]string{"timeout": "600000"}, secs(0.6), true, false}, // killed long before its time
		{137, map[string]string{"timeout": "2000"}, secs(2.0), true, false},   // SIGKILL is not the CLI's
		{1, map[string]string{"timeout": "600"}, secs(0.6), true, false},
		{143, map[string]string{"timeout": "600"}, nil, true, false},
		{143, map[string]string{"timeout": "soon"}, secs(0.6), true, false},
		{143, map[string]string{"timeout_ms": "600"}, secs(0.6), false, false}, // the Rust CLI
		{143, map[string]string{"timeout": "600"}, secs(0.6), false, false},
	}
	for _, tt := range tests {
		c := &Call{Exit: &tt.exit, Args: tt.args}
		if got := killedByTimeout(c, execResult{seconds: tt.seconds}, tt.typescript); (got != "") != tt.timeout {
			t.Errorf("killedByTimeout(exit %d, %v, %v, typescript %v) = %q, want timed out %v", tt.exit, tt.args, tt.seconds, tt.typescript, got, tt.timeout)
		}
	}
}

func TestCodexCommand(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"bash", "-lc", "cargo build && echo 'done'"}, "cargo build && echo 'done'"},
		{[]string{"/bin/zsh", "-lc", "ls"}, "ls"},
		{[]string{"sh", "-c", "ls"}, "ls"},
		{[]string{"ls", "-la"}, "ls -la"},
		{[]string{"rg", "-n", "fn main() {", "src dir"}, "rg -n 'fn main() {' 'src dir'"},
		{[]string{"bash", "-lc", "a", "b"}, "bash -lc a b"},
		{[]string{"python3", "-c", "print(1)"}, "python3 -c 'print(1)'"},
		{[]string{"echo", "it's"}, `echo "it's"`},
		{[]string{"printf", "a\x00b"}, `printf "a\x00b"`},
	} {
		if got := argvLine(tt.argv); got != tt.want {
			t.Errorf("argvLine(%q) = %q, want %q", tt.argv, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"bash -lc 'cargo biuld'", "cargo biuld"},
		{`/bin/bash -lc 'echo '"'"'hi'"'"''`, "echo 'hi'"},
		{`bash -c "make test"`, "make test"},
		{"cargo test --quiet", "cargo test --quiet"},
		{"bash -lc 'a' > out", "bash -lc 'a' > out"},
		{`bash -lc "echo $HOME"`, `bash -lc "echo $HOME"`},
		{"bash -lc 'unterminated", "bash -lc 'unterminated"},
		{"python -c 'print(1)'", "python -c 'print(1)'"},
	} {
		if got := unwrapShell(tt.in); got != tt.want {
			t.Errorf("unwrapShell(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMatchCodex(t *testing.T) {
	long := strings.Repeat("x", HeadSize)
	for _, tt := range []struct {
		name string
		head string
		want bool
	}{
		{"session_meta", cxMeta, true},
		{"session_meta cut off by the head", `{"timestamp":"2026-05-01T10:00:00.000Z","type":"session_meta","payload":{"id":"x","base_instructions":{"text":"` + long, true},
		{"a response_item first", `{"timestamp":"2026-05-01T10:00:00.000Z","type":"response_item","payload":{"type":"message","role":"user","content":[]}}`, true},
		{"stderr line in front", "Reading prompt from stdin...\n" + `{"type":"thread.started","thread_id":"019a"}`, true},
		{"legacy", `{"id":"5a7c0d1e","timestamp":"2025-07-18T14:03:11.482Z","instructions":null,"git":null}`, true},
		{"legacy cut off by the head", `{"id":"5a7c0d1e","timestamp":"2025-07-18T14:03:11.482Z","instructions":"` + long, true},
		{"legacy state marker", `{"record_type":"state"}`, true},
		{"exec item", `{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":"hi"}}`, true},
		{"wrapped without a timestamp", `{"type":"session_meta","payload":{"id":"x"}}`, false},
		{"payload that is not an object", `{"timestamp":"t","type":"event_msg","payload":"x"}`, false},
		{"claude user line", `{"parentUuid":null,"type":"user","sessionId":"s","message":{"role":"user","content":"hi"}}`, false},
		{"claude line cut off", `{"parentUuid":null,"isSidechain":false,"type":"user","message":{"content":"` + long, false},
		{"bare chat message", `{"type":"message","role":"user","content":"hi"}`, false},
		{"gemini header", `{"sessionId":"a","projectHash":"b","startTime":"t"}`, false},
		{"empty object", `{}`, false},
	} {
		head := tt.head
		if len(head) > HeadSize {
			head = head[:HeadSize]
		}
		if got := matchCodex([]byte(head)); got != tt.want {
			t.Errorf("%s: matchCodex = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestMatchCodexOthers checks that no other format's sample looks like
// Codex, whatever the order of the registry.
func TestMatchCodexOthers(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*"))
	for _, file := range files {
		dir, base := filepath.Base(filepath.Dir(file)), filepath.Base(file)
		if dir == "codex" || strings.HasPrefix(base, "codex.") || strings.HasSuffix(file, ".golden") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if matchCodex(head(data)) {
			t.Errorf("matchCodex(%s) = true", file)
		}
	}
}

// TestCodexOutputs checks the shapes an output takes, and what marks a call
// failed.
func TestCodexOutputs(t *testing.T) {
	call := func(name, args string) string {
		return `{"timestamp":"2026-05-01T10:00:01.000Z","type":"response_item","payload":{"type":"function_call","name":"` + name + `","arguments":` + args + `,"call_id":"c1"}}`
	}
	out := func(output string) string {
		return `{"timestamp":"2026-05-01T10:00:02.000Z","type":"response_item","payload":{"type":"function_call_output","call_id":"c1","output":` + output + `}}`
	}
	type result struct {
		Command string
		Output  string
		IsError bool
	}
	for _, tt := range []struct {
		name    string
		in      string
		want    result
		wantTok int
	}{
		{"content items", codexLines(cxMeta, call("view_image", `"{\"path\":\"a.png\"}"`), out(`[{"type":"input_text","text":"a"},{"type":"input_image","image_url":"data:x"}]`)),
			result{"", "a\n[image]", false}, 0},
		{"one content item", codexLines(cxMeta, call("shell", `"{\"command\":[\"ls\"]}"`), out(`{"type":"input_text","text":"a.txt\n"}`)),
			result{"ls", "a.txt\n", false}, 0},
		{"early object form", codexLines(cxMeta, call("shell", `"{\"command\":[\"false\"]}"`), out(`{"content":"failed","success":false}`)),
			result{"false", "failed", true}, 0},
		{"unparsable arguments", codexLines(cxMeta, call("shell", `"{\"command\":"`), out(`"failed to parse function arguments: EOF while parsing a value"`)),
			result{"", "failed to parse function arguments: EOF while parsing a value", true}, 0},
		{"null arguments", codexLines(cxMeta, call("mcp__docs__search", `null`), out(`"ok"`)),
			result{"", "ok", false}, 0},
		{"tokens after the call", codexLines(cxMeta, call("shell_command", `"{\"command\":\"ls\"}"`),
			`{"timestamp":"2026-05-01T10:00:01.100Z","type":"event_msg","payload":{"type":"token_count","info":null}}`,
			`{"timestamp":"2026-05-01T10:00:01.200Z","type":"event_msg","payload":{"type":"token_count","info":{"last_token_usage":{"output_tokens":57}}}}`,
			out(`"Exit code: 0\nWall time: 0 seconds\nOutput:\n"`)),
			result{"ls", "", false}, 57},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "f", nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Calls) != 1 || len(s.Skipped) != 0 {
				t.Fatalf("got %d calls and skipped %v, want 1 call", len(s.Calls), s.Skipped)
			}
			c := s.Calls[0]
			if diff := cmp.Diff(tt.want, result{c.Command, c.Output, c.IsError}); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			if c.Tokens != tt.wantTok {
				t.Errorf("tokens = %d, want %d", c.Tokens, tt.wantTok)
			}
		})
	}
}

// FuzzCodex runs the Codex decoder alone, which FuzzParse also covers among
// all the formats, to reach its corners faster. It checks the invariants of
// FuzzParse.
func FuzzCodex(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "codex", "*"))
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(codexLines(cxMeta, cxExec, cxRunning, cxPoll("p1", "42", `Process exited with code 1\nOutput:\n`))))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", Lookup("codex")) })
	})
}
