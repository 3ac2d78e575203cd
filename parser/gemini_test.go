package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestGeminiShell takes apart each layout of the shell tool's output.
func TestGeminiShell(t *testing.T) {
	exit := func(n int) *int { return &n }
	tests := []struct {
		name string
		in   string
		out  string
		exit *int // after geminiOutcome: absent Exit Code lines read as 0
	}{
		{"2025 stdout and stderr",
			"Command: make\nDirectory: (root)\nStdout: cc main.c\nStderr: main.c:1: error\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 10",
			"cc main.c\nmain.c:1: error", exit(2)},
		{"2025 empty stdout",
			"Command: ls x\nDirectory: (root)\nStdout: (empty)\nStderr: ls: x: No such file\nError: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 11",
			"ls: x: No such file", exit(2)},
		{"2025 command over two lines",
			"Command: cat <<EOF\nDirectory: not a label\nEOF\nDirectory: web\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 12",
			"", exit(0)},
		{"late 2025 output",
			"Command: true\nDirectory: (root)\nOutput: done\nError: (none)\nExit Code: 0\nSignal: 0\nBackground PIDs: NaN\nProcess Group PGID: 13",
			"done", exit(0)},
		{"2026 success prints no exit code",
			"Output: done\nProcess Group PGID: 14", "done", exit(0)},
		{"2026 failure",
			"Output: boom\nExit Code: 3\nProcess Group PGID: 15", "boom", exit(3)},
		{"output ending in an Error line of its own",
			"Output: Error: config missing\nExit Code: 1\nProcess Group PGID: 16", "Error: config missing", exit(1)},
		{"spawn error",
			"Output: (empty)\nError: spawn bash ENOENT\nProcess Group PGID: 17", "Error: spawn bash ENOENT", nil},
		{"killed by a signal",
			"Output: partial\nSignal: 9\nProcess Group PGID: 18", "partial\nSignal: 9", nil},
		{"2025 killed by a signal",
			"Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15\nBackground PIDs: (none)\nProcess Group PGID: 19",
			"Signal: 15", nil},
		{"untrusted context",
			"<untrusted_context>\nOutput: hi\nExit Code: 4\nProcess Group PGID: 20\n</untrusted_context>", "hi", exit(4)},
		{"CRLF output",
			"Output: a\r\nb\r\nExit Code: 1\r\nProcess Group PGID: 21", "a\r\nb", exit(1)},
		{"Windows output", "Output: a\r\nb\r\n\nExit Code: 1\nProcess Group PGID: 22", "a\r\nb\r\n", exit(1)},
		{"cancelled text is kept",
			"Command was cancelled by user before it could complete. There was no output before it was cancelled.",
			"Command was cancelled by user before it could complete. There was no output before it was cancelled.", nil},
		{"summary is kept", "The build failed in two packages.", "The build failed in two packages.", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Call{Tool: "run_shell_command", Kind: KindShell}
			geminiOutcome(c, "success", tt.in, "")
			if c.Output != tt.out {
				t.Errorf("output = %q, want %q", c.Output, tt.out)
			}
			if diff := cmp.Diff(tt.exit, c.Exit); diff != "" {
				t.Errorf("exit (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGeminiLog checks how the records of a .jsonl log build the final
// message list: calls are listed as "msg:id" in order.
func TestGeminiLog(t *testing.T) {
	const header = `{"sessionId":"s","projectHash":"p","startTime":"2026-05-01T00:00:00Z"}`
	user := func(id string) string { return fmt.Sprintf(`{"id":%q,"type":"user","content":"hi"}`, id) }
	gemini := func(id string, calls ...string) string {
		var tcs []string
		for _, c := range calls {
			tcs = append(tcs, fmt.Sprintf(`{"id":%q,"name":"run_shell_command","args":{"command":"true"},"status":"success"}`, c))
		}
		return fmt.Sprintf(`{"id":%q,"type":"gemini","content":"","toolCalls":[%s]}`, id, strings.Join(tcs, ","))
	}
	tests := []struct {
		name  string
		lines []string
		want  []string
	}{
		{"re-appended message keeps its first place",
			[]string{user("u1"), gemini("g1", "a"), user("u2"), gemini("g1", "a", "b"), gemini("g2", "c")},
			[]string{"1:a", "1:b", "3:c"}},
		{"rewind drops the message and all after it",
			[]string{user("u1"), gemini("g1", "a"), user("u2"), gemini("g2", "b"), `{"$rewindTo":"u2"}`, gemini("g3", "c")},
			[]string{"1:a", "2:c"}},
		{"rewind to an unknown id drops everything",
			[]string{user("u1"), gemini("g1", "a"), `{"$rewindTo":"nope"}`, user("u2"), gemini("g2", "b")},
			[]string{"1:b"}},
		{"a message back after a rewind goes to the end",
			[]string{user("u1"), gemini("g1", "a"), user("u2"), `{"$rewindTo":"g1"}`, user("u3"), gemini("g1", "a")},
			[]string{"2:a"}},
		{"$set messages replaces the list",
			[]string{user("u1"), gemini("g1", "a"), gemini("g2", "b"), `{"$set":{"messages":[` + gemini("g2", "b") + `]}}`, gemini("g3", "c"), gemini("g2", "b", "d")},
			[]string{"0:b", "0:d", "1:c"}},
		{"$set without messages keeps the list",
			[]string{user("u1"), gemini("g1", "a"), `{"$set":{"lastUpdated":"2026-05-01T00:01:00Z","messages":null}}`},
			[]string{"1:a"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := header + "\n" + strings.Join(tt.lines, "\n") + "\n"
			s, err := Parse(strings.NewReader(in), "f", nil)
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != "gemini" || len(s.Skipped) != 0 {
				t.Fatalf("format %s, skipped %v", s.Format, s.Skipped)
			}
			got := []string{}
			for _, c := range s.Calls {
				got = append(got, fmt.Sprintf("%d:%s", c.Msg, c.ID))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestGeminiSkipped states the exact warning for each kind of malformed
// input, and that the rest is still read.
func TestGeminiSkipped(t *testing.T) {
	const header = `{"sessionId":"s","projectHash":"p","startTime":"2026-05-01T00:00:00Z"}`
	const call = `{"id":"g1","type":"gemini","content":"","toolCalls":[{"id":"a","name":"glob","args":{"pattern":"*"},"status":"success"}]}`
	tests := []struct {
		name  string
		in    string
		calls int
		want  []string
	}{
		{"broken header", `{"sessionId":"s",` + "\n" + call + "\n", 1,
			[]string{"f:1: invalid JSON: record ends early"}},
		{"not an object", header + "\n[1]\n" + call, 1, []string{"f:2: record is not a JSON object"}},
		{"truncated record", "{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"messages\": [\n    " + call + ",\n    {\"id\": \"g2\", \"toolCalls\": [{\"id\": \"b\", \"na", 1,
			[]string{"f:6: invalid JSON: record ends early; calls before it are still read"}},
		{"garbage after the record", `{"sessionId":"s","projectHash":"p","messages":[` + call + "]}\n}", 1,
			[]string{"f: invalid JSON: extra data after the record; calls before it are still read"}},
		{"orphan response", `{"history":[{"role":"user","parts":[{"functionResponse":{"name":"glob","response":{"output":"x"}}}]}]}`, 0,
			[]string{`f:1: functionResponse for unknown functionCall "glob"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "f", Lookup("gemini"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.Skipped {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("skipped records (-want +got):\n%s", diff)
			}
			if len(s.Calls) != tt.calls {
				t.Errorf("got %d calls, want %d", len(s.Calls), tt.calls)
			}
		})
	}
}

func TestMatchGemini(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{"{\n  \"sessionId\": \"s\",\n  \"projectHash\": \"p\",\n  \"startTime\": \"2026-01-01T00:00:00Z\",\n  \"messages\": [{\"id\": \"x\", \"content\": \"cut he", true},
		{`{"sessionId":"s","projectHash":"p","startTime":"2026-05-01T00:00:00Z","kind":"main"}` + "\n" + `{"id":"u1","type":"user","con`, true},
		{`{"sessionId":"s","projectHash":"p"}` + "\n" + `{"$set":{"lastUpdated":"2026-05-01T00:00:00Z"}}`, true},
		{`{"sessionId":"s","projectHash":"p","messages":[{"id":"u","type":"user","content":"hi"}]}`, true},
		{`{"history":[{"role":"user","parts":[{"text":"This is the Gemini CLI.`, true},
		{`[{"role":"model","parts":[{"functionCall":{"name":"glob","args":{}}}]}]`, true},
		{`{"sessionId":"s","projectHash":"p","messages":[]}`, false}, // too little to tell
		{`{"parentUuid":null,"isSidechain":false,"sessionId":"s","type":"user","message":{"role":"user","content":"hi"}}`, false},
		{`{"timestamp":"2026-01-01T00:00:00Z","type":"session_meta","payload":{"id":"x"}}`, false},
		{`{"info":{"id":"ses_1","projectID":"p"},"messages":[]}`, false},
		{`[{"role":"user","content":"hi"}]`, false},
		{`{"history":[]}`, false},
	} {
		if got := matchGemini([]byte(tt.in)); got != tt.want {
			t.Errorf("matchGemini(%.60q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// FuzzGemini runs the Gemini decoder alone, which explores it faster than
// FuzzParse does; the invariants are FuzzParse's.
func FuzzGemini(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "gemini", "*"))
	for _, file := range files {
		if data, err := os.ReadFile(file); err == nil && !strings.HasSuffix(file, ".golden") {
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", Lookup("gemini")) })
	})
}
