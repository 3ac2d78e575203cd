package parser

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestOpenHandsMatch(t *testing.T) {
	checkMatchesOwnSamplesOnly(t, "openhands", matchOpenHands)
	for _, tt := range []struct {
		in   string
		want bool
	}{
		{`[{"id":0,"timestamp":"2025-01-20T20:29:13.519638","source":"environment","observation":"agent_state_changed"}]`, true},
		{`{"id":3,"source":"agent","action":"run","args":{"command":"ls"}}`, true},
		{"[\n  {\n    \"id\": 0,\n    \"timestamp\": \"2025-01-20T20:29:13.519638\",\n    \"source\": \"environment\",\n    \"message\": \"\",\n    \"observation\": \"agent_st", true},
		{`[{"id":1,"kind":"ActionEvent","source":"agent"}]`, false}, // the V1 SDK, not read
		{`[{"action":"run"}]`, false},
		{`{"id":"ses_1","action":{"x":1},"source":"a"}`, false},
		{`[]`, false},
	} {
		if got := matchOpenHands([]byte(tt.in)); got != tt.want {
			t.Errorf("matchOpenHands(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

// TestOpenHandsResults states how observations settle their actions.
func TestOpenHandsResults(t *testing.T) {
	run := `{"id":1,"source":"agent","action":"run","args":{"command":"sleep 999"},"tool_call_metadata":{"tool_call_id":"t1","function_name":"execute_bash"}}`
	type result struct {
		Exit    any
		Status  Status
		IsError bool
		Output  string
		Note    string
	}
	for _, tt := range []struct {
		name, obs string
		want      result
	}{
		{"hard timeout", `{"id":2,"cause":1,"observation":"run","content":"","extras":{"metadata":{"exit_code":-1,"suffix":"\n[The command timed out after 120.0 seconds. Send keys to interrupt it.]"}}}`,
			result{nil, "interrupted", false, "\n[The command timed out after 120.0 seconds. Send keys to interrupt it.]", "The command timed out after 120.0 seconds. Send keys to interrupt it."}},
		{"matched by tool_call_id", `{"id":2,"observation":"run","content":"x","extras":{"metadata":{"exit_code":137}},"tool_call_metadata":{"tool_call_id":"t1"}}`,
			result{137, "", false, "x", ""}},
		{"legacy exit code", `{"id":2,"cause":1,"observation":"run","content":"x","extras":{"command_id":-1,"exit_code":2}}`,
			result{2, "", false, "x", ""}},
		{"prefix kept", `{"id":2,"cause":1,"observation":"run","content":"tail","extras":{"metadata":{"exit_code":0,"prefix":"[Previous output truncated.]\n","suffix":"\n[The command completed with exit code 0.]"}}}`,
			result{0, "", false, "[Previous output truncated.]\ntail", ""}},
		{"error observation", `{"id":2,"cause":1,"observation":"error","content":"ERROR: sandbox died"}`,
			result{nil, "", true, "ERROR: sandbox died", ""}},
		{"answer to another event", `{"id":2,"cause":7,"observation":"run","content":"x"}`,
			result{nil, "no-result", false, "", ""}},
	} {
		s, err := Parse(strings.NewReader("["+run+",\n"+tt.obs+"]"), "f", Lookup("openhands"))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Calls) != 1 {
			t.Fatalf("%s: got %d calls", tt.name, len(s.Calls))
		}
		c := s.Calls[0]
		got := result{nil, c.Status, c.IsError, c.Output, c.Note}
		if c.Exit != nil {
			got.Exit = *c.Exit
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// TestOpenHandsEvents checks which actions are calls and what a broken
// event list reports.
func TestOpenHandsEvents(t *testing.T) {
	in := `[
{"id":0,"source":"user","action":"message","args":{"content":"Do it"}},
{"id":1,"source":"agent","action":"think","args":{"thought":"hmm"}},
{"id":2,"source":"agent","action":"run_ipython","args":{"code":"print(1)","thought":"try"}},
{"id":3,"source":"agent","action":"edit","args":{"path":"/w/a.py","command":"create","file_text":"x"}},
{"id":4,"source":"agent","action":"delegate","args":{"agent":"BrowsingAgent"}},
7,
{"id":5,"source":"agent","action":"finish","args":{}}
]`
	s, err := Parse(strings.NewReader(in), "f", Lookup("openhands"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Calls {
		got = append(got, c.Tool+" "+string(c.Kind)+" "+c.File)
	}
	want := []string{"run_ipython other ", "edit write /w/a.py", "delegate task "}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if len(s.Skipped) != 1 || s.Skipped[0].Error() != "f:7: event is not a JSON object" {
		t.Errorf("Skipped = %v", s.Skipped)
	}
	if s.Title != "Do it" {
		t.Errorf("Title = %q", s.Title)
	}
}

// TestOpenHandsInput checks that text typed into a running command is a
// call of that command, without what was typed, and that Ctrl-C stops it.
func TestOpenHandsInput(t *testing.T) {
	run := func(id int, cmd string, input bool) string {
		return fmt.Sprintf(`{"id":%d,"source":"agent","action":"run","args":{"command":%q,"is_input":%v}}`, id, cmd, input)
	}
	obs := func(id, cause, exit int, out string) string {
		return fmt.Sprintf(`{"id":%d,"cause":%d,"source":"agent","observation":"run","content":%q,"extras":{"metadata":{"exit_code":%d}}}`, id, cause, out, exit)
	}
	in := "[" + strings.Join([]string{
		run(1, "mount /mnt/dav", false), obs(2, 1, -1, "Username:"),
		run(3, "alice", true), obs(4, 3, -1, "Password:"),
		run(5, "hunter2", true), obs(6, 5, 1, "/sbin/mount.davfs: can't open fuse device"),
		run(7, "python serve.py", false), obs(8, 7, -1, "Serving on :8000"),
		run(9, "C-c", true), obs(10, 9, 130, "^C"),
		run(11, "npm install", false), obs(12, 11, -1, "added 12 packages"),
		run(13, "", false), obs(14, 13, 1, "npm ERR! 404 Not Found"),
		run(15, "ls", false), obs(16, 15, 0, "a.py"),
		run(17, "y", true), obs(18, 17, 0, ""),
	}, ",\n") + "]"
	s, err := Parse(strings.NewReader(in), "f", Lookup("openhands"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range s.Calls {
		got = append(got, fmt.Sprintf("%q %s %v", c.Command, c.Status, c.Args))
	}
	want := []string{
		`"mount /mnt/dav" running map[]`,
		`"mount /mnt/dav" running map[is_input:true]`,
		`"mount /mnt/dav"  map[is_input:true]`,
		`"python serve.py" running map[]`,
		`"python serve.py" interrupted map[is_input:true keys:C-c]`,
		`"npm install" running map[]`,
		`"npm install"  map[]`,
		`"ls"  map[]`,
		`""  map[is_input:true]`,
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
	if strings.Contains(fmt.Sprint(got), "hunter2") {
		t.Error("the typed password is kept")
	}
}

func TestISOTime(t *testing.T) {
	for in, want := range map[string]time.Time{
		"2025-01-20T20:29:13.519638":  time.Date(2025, 1, 20, 20, 29, 13, 519638000, time.UTC),
		"2025-01-20T20:29:13Z":        time.Date(2025, 1, 20, 20, 29, 13, 0, time.UTC),
		"2025-01-20T21:29:13.5+01:00": time.Date(2025, 1, 20, 20, 29, 13, 500000000, time.UTC),
		"yesterday":                   {},
		"":                            {},
	} {
		if got := isoTime(in); !got.Equal(want) {
			t.Errorf("isoTime(%q) = %v, want %v", in, got, want)
		}
	}
}
