package parser

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

func TestOpenAIMessagesMatch(t *testing.T) {
	checkMatchesOwnSamplesOnly(t, "openai-messages", matchOpenAIMessages)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1"`, true},
		{`{"messages":[{"role":"tool","tool_call_id":"c1","content":"x"}]}`, true},
		{`[{"role":"assistant","function_call":{"name":"run","arguments":"{}"}}]`, true},
		{`[{"role":"user","content":"hi"},{"role":"assistant","content":"hello"}]`, false},
		{`[{"role":"user","parts":[]},{"role":"model","tool_calls":[]}]`, false}, // Gemini roles
		{`[{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Bash","input":{}}]}]`, false},
		{`{"sessionId":"a","projectHash":"b","messages":[{"id":"1","type":"user","content":"x"}]}`, false},
		{`{"type":"message","role":"assistant","tool_calls":[]}`, false},
	} {
		if got := matchOpenAIMessages([]byte(tt.in)); got != tt.want {
			t.Errorf("matchOpenAIMessages(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestSetArguments states where a call's command, file and arguments come
// from in each form of tool call arguments.
func TestSetArguments(t *testing.T) {
	type input struct {
		Command, File string
		Args          map[string]string
	}
	for _, tt := range []struct {
		tool, args string
		want       input
	}{
		{"bash", `"{\"command\":\"ls\",\"timeout\":5}"`, input{"ls", "", map[string]string{"timeout": "5"}}},
		{"shell", `"{\"command\":[\"bash\",\"-lc\",\"make -j4\"],\"workdir\":\"/w\"}"`, input{"make -j4", "", map[string]string{"workdir": "/w"}}},
		{"shell", `"{\"command\":[\"rg\",\"-n\",\"x\"]}"`, input{"rg -n x", "", nil}},
		{"run", `"{\"cmd\":\"go vet\"}"`, input{"go vet", "", nil}},
		{"run", `"go vet ./..."`, input{"go vet ./...", "", nil}},
		{"run", `{"cmd":"go vet"}`, input{"go vet", "", nil}},
		{"read_file", `"{\"path\":\"a.go\",\"offset\":3}"`, input{"", "a.go", map[string]string{"offset": "3"}}},
		{"read_file", `"a.go"`, input{"", "", map[string]string{"arguments": "a.go"}}},
		{"read_file", `""`, input{}},
		{"read_file", `"[1,2]"`, input{"", "", map[string]string{"arguments": "[1,2]"}}},
	} {
		c := &Call{Tool: tt.tool, Kind: KindOf(tt.tool)}
		args, ok := rawjson.Parse(tt.args)
		if !ok {
			t.Fatalf("%s is not JSON", tt.args)
		}
		setArguments(c, args)
		got := input{c.Command, c.File, c.Args}
		if len(got.Args) == 0 {
			got.Args = nil
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("setArguments(%s, %s) (-want +got):\n%s", tt.tool, tt.args, diff)
		}
	}
}

// TestResultExitCode lists the exit code lines read from result text, and
// text that only looks like one.
func TestResultExitCode(t *testing.T) {
	type result struct {
		Exit   any
		Output string
	}
	for _, tt := range []struct {
		in   string
		want result
	}{
		{"Exit code: 2\nboom", result{2, "boom"}},
		{"Exit code 2\nboom", result{2, "boom"}},
		{"boom\nexit status 1", result{1, "boom"}},
		{"boom\nProcess exited with code 0\n", result{0, "boom"}},
		{"boom\n[exit code: -1]", result{-1, "boom"}},
		{"returncode: 3", result{3, ""}},
		{"line one\nexit code: 4\nline three", result{nil, "line one\nexit code: 4\nline three"}},
		{"The exit code 5 means busy", result{nil, "The exit code 5 means busy"}},
		{"exit code: 99999999999999999999", result{nil, "exit code: 99999999999999999999"}},
		{"<returncode>1</returncode>\n<output>\nno\n</output>", result{1, "no"}},
		{"", result{nil, ""}},
	} {
		c := &Call{}
		readResultText(c, tt.in)
		got := result{nil, c.Output}
		if c.Exit != nil {
			got.Exit = *c.Exit
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("readResultText(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}

// TestOpenAIResults covers pairing by name in the legacy form and results
// that answer nothing.
func TestOpenAIResults(t *testing.T) {
	in := `[
{"role":"assistant","function_call":{"name":"search","arguments":"{\"q\":\"x\"}"}},
{"role":"function","name":"other","content":"not mine"},
{"role":"function","name":"search","content":"found"},
{"role":"tool","content":"nobody asked"},
"junk"
]`
	s, err := Parse(strings.NewReader(in), "f", Lookup("openai-messages"))
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) != 1 || s.Calls[0].Output != "found" || s.Calls[0].Status != "" {
		t.Errorf("calls = %+v", s.Calls)
	}
	var got []string
	for _, e := range s.Skipped {
		got = append(got, e.Error())
	}
	want := []string{`f:3: tool result for unknown tool call ""`, `f:5: tool result for unknown tool call ""`}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}

	s, _ = Parse(strings.NewReader(`{"messages":"none"}`), "f", Lookup("openai-messages"))
	if len(s.Skipped) != 1 || !strings.Contains(s.Skipped[0].Msg, "no message list") {
		t.Errorf("Skipped = %v", s.Skipped)
	}
}
