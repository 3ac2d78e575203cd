package parser

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMiniSWEAgentMatch(t *testing.T) {
	checkMatchesOwnSamplesOnly(t, "mini-swe-agent", matchMiniSWEAgent)
	bigConfig := `{"info": {"config": {"agent": {"system_template": "` + strings.Repeat("x", HeadSize) + `"}}, "mini_version": "1.0.0"}, "messages": []}`
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`{"messages":[],"trajectory_format":"mini-swe-agent-1"}`, true},
		{`{"info":{"mini_version":"1.17.2","config":{}},"messages":[`, true},
		// mini_version beyond the head, agent_type within it.
		{"{\n  \"info\": {\n    \"config\": {\n      \"agent_type\": \"minisweagent.agents.default.DefaultAgent\",\n      \"x\": \"" + strings.Repeat("y", 100), true},
		{bigConfig[:HeadSize], false},
		{`{"info":{"exit_status":"x"},"messages":[{"role":"user","content":"mini_version"}]}`, false},
		{`[{"role":"assistant","content":"<returncode>0</returncode>"}]`, false},
	} {
		if got := matchMiniSWEAgent([]byte(tt.in)); got != tt.want {
			t.Errorf("matchMiniSWEAgent(%.80q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestMiniObservation states how each shape of result text becomes the
// call's exit code, output and status.
func TestMiniObservation(t *testing.T) {
	type result struct {
		Exit   any
		Output string
		Status Status
	}
	for _, tt := range []struct {
		name, in string
		want     result
	}{
		{"plain", "<returncode>1</returncode>\n<output>\nboom\n</output>", result{1, "boom", ""}},
		{"empty output", "<returncode>0</returncode>\n<output>\n</output>", result{0, "", ""}},
		{"output holding a closing tag", "<returncode>0</returncode>\n<output>\na</output>b\n</output>", result{0, "a</output>b", ""}},
		{"no output tag", "<returncode>127</returncode>\nsh: 1: foo: not found", result{127, "sh: 1: foo: not found", ""}},
		{"head and tail", "<returncode>0</returncode>\n<warning>\nlong\n</warning><output_head>\nA\n</output_head>\n<elided_chars>\n10 characters elided\n</elided_chars>\n<output_tail>\nZ\n</output_tail>",
			result{0, "A\n[… 10 characters elided …]\nZ", ""}},
		{"exception", "<exception>An error occurred while executing the command: boom</exception>\n<returncode>-1</returncode>\n<output>\n\n</output>",
			result{-1, "An error occurred while executing the command: boom\n", ""}},
		{"timeout exception", "<exception>Command 'sleep 9' timed out after 1 seconds</exception>\n<returncode>-1</returncode>\n<output>\n</output>",
			result{-1, "Command 'sleep 9' timed out after 1 seconds\n", "interrupted"}},
		{"timeout message", "The last command <command>sleep 9</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>",
			result{nil, "The last command <command>sleep 9</command> timed out and has been killed.\nThe output of the command was:\n <output>\n\n</output>", "interrupted"}},
		{"v1 observation template", "Observation: hello", result{nil, "Observation: hello", ""}},
		{"refused by the user", "Command not executed. The user rejected your command.", result{nil, "Command not executed. The user rejected your command.", "rejected"}},
		{"code too large", "<returncode>99999999999999999999</returncode>\n<output>\nx\n</output>", result{nil, "x", ""}},
	} {
		c := &Call{}
		readObservation(c, tt.in)
		got := result{nil, c.Output, c.Status}
		if c.Exit != nil {
			got.Exit = *c.Exit
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestMiniMessages covers the pairing of calls and results the samples do
// not: results out of order, an unknown tool_call_id and a block in the
// newer XML form.
func TestMiniMessages(t *testing.T) {
	in := `{"trajectory_format":"mini-swe-agent-1.1","messages":[
{"role":"assistant","content":"two at once","tool_calls":[
 {"id":"a","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}},
 {"id":"b","function":{"name":"bash","arguments":"{\"command\":\"pwd\"}"}}]},
{"role":"tool","tool_call_id":"b","content":"<returncode>0</returncode>\n<output>\n/w\n</output>"},
{"role":"tool","tool_call_id":"zz","content":"<returncode>2</returncode>\n<output>\nx\n</output>"},
{"role":"tool","tool_call_id":"zz","content":"late"},
{"role":"assistant","content":"THOUGHT: xml\n<mswea_bash_command>make</mswea_bash_command>"},
{"role":"user","content":"<returncode>2</returncode>\n<output>\nmake: *** No targets.\n</output>"}
]}`
	s, err := Parse(strings.NewReader(in), "f", Lookup("mini-swe-agent"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Calls {
		exit := "nil"
		if c.Exit != nil {
			exit = strconv.Itoa(*c.Exit)
		}
		got = append(got, c.ID+" "+c.Command+" "+exit+" "+c.Output+" "+c.Text)
	}
	want := []string{"a ls 2 x two at once", "b pwd 0 /w ", "#3 make 2 make: *** No targets. xml"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, e := range s.Skipped {
		skipped = append(skipped, e.Error())
	}
	if diff := cmp.Diff([]string{`f:7: tool result for unknown tool call "zz"`}, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
