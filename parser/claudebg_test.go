package parser

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// claudeLines builds a Claude Code transcript for the background tests:
// use and result write one record each, note a user message.
type claudeLines struct{ b strings.Builder }

func (l *claudeLines) use(id, tool, input string) {
	fmt.Fprintf(&l.b, `{"type":"assistant","sessionId":"s","timestamp":"2026-03-10T10:00:00Z","message":{"id":"m%s","content":[{"type":"tool_use","id":"%s","name":"%s","input":%s}]}}`+"\n", id, id, tool, input)
}

func (l *claudeLines) result(id, content, extra string) {
	if extra != "" {
		extra = `,"toolUseResult":` + extra
	}
	fmt.Fprintf(&l.b, `{"type":"user","timestamp":"2026-03-10T10:05:00Z","message":{"content":[{"tool_use_id":"%s","type":"tool_result","content":%q}]}%s}`+"\n", id, content, extra)
}

func (l *claudeLines) note(text string) {
	fmt.Fprintf(&l.b, `{"type":"user","timestamp":"2026-03-10T10:09:00Z","message":{"content":%q}}`+"\n", text)
}

// background starts the background command id with task id task.
func (l *claudeLines) background(id, task, cmd string) {
	l.use(id, "Bash", `{"command":"`+cmd+`","run_in_background":true}`)
	l.result(id, "Command running in background with ID: "+task+". Output is being written to: /tmp/claude/p/tasks/"+task+".output",
		`{"stdout":"","stderr":"","backgroundTaskId":"`+task+`"}`)
}

func (l *claudeLines) failed(task string) {
	l.note("<task-notification>\n<task-id>" + task + "</task-id>\n<status>failed</status>\n<summary>Background command \"x\" failed with exit code 3</summary>\n</task-notification>")
}

func (l *claudeLines) read(id, task, content string) {
	l.use(id, "Read", `{"file_path":"/tmp/claude/p/tasks/`+task+`.output"}`)
	l.result(id, content, "")
}

// calls makes n quick calls named prefix1, prefix2, ….
func (l *claudeLines) calls(prefix string, n int) {
	for i := range n {
		id := fmt.Sprintf("%s%d", prefix, i+1)
		l.use(id, "Bash", `{"command":"true"}`)
		l.result(id, "", "")
	}
}

// TestClaudeBackgroundWindows checks the join windows of background
// calls: an outcome bgRunCalls calls after the start, and a read of the
// output bgSettleCalls calls after the outcome, are not joined, and a
// call is handed to done as soon as its window closes, not at the end.
func TestClaudeBackgroundWindows(t *testing.T) {
	var l claudeLines
	l.background("late", "b1", "make all")
	l.calls("x", bgRunCalls+1)
	l.failed("b1") // too late: the call stays running

	l.background("slow", "b2", "make docs")
	l.failed("b2")
	l.calls("y", bgSettleCalls+1)
	l.read("r2", "b2", "too late to join") // a call of its own only

	l.background("read", "b3", "make test")
	l.failed("b3")
	l.read("r3", "b3", "FAIL: TestParse")
	l.calls("z", 1)

	var order []string
	s, err := Parse(strings.NewReader(l.b.String()), "bg.jsonl", Lookup("claude-code"), Each(func(c *Call) { order = append(order, c.ID) }))
	if err != nil {
		t.Fatal(err)
	}
	byID := make(map[string]*Call)
	for _, c := range s.Calls {
		byID[c.ID] = c
	}
	if c := byID["late"]; c.Status != "running" || c.Exit != nil {
		t.Errorf("late outcome joined: status %q, exit %v", c.Status, c.Exit)
	}
	if i, j := slices.Index(order, "late"), slices.Index(order, fmt.Sprintf("x%d", bgRunCalls+1)); i < 0 || i > j {
		t.Errorf("the unfinished call was handed on at %d, after the call that closed its window (%d)", i, j)
	}
	if c := byID["slow"]; c.Exit == nil || *c.Exit != 3 || strings.Contains(c.Output, "too late") {
		t.Errorf("slow: exit %v, output %q; want exit 3 and no late read", c.Exit, c.Output)
	}
	if c := byID["r2"]; c == nil || c.Output != "too late to join" {
		t.Errorf("the late read is not a call of its own: %+v", c)
	}
	if c := byID["read"]; !c.IsError || !strings.Contains(c.Output, "FAIL: TestParse") {
		t.Errorf("read: is_error %v, output %q; want the read joined", c.IsError, c.Output)
	}
	if i, j := slices.Index(order, "read"), slices.Index(order, "z1"); i < 0 || i > j {
		t.Errorf("the call whose output was read after its outcome was handed on at %d, after the next call (%d)", i, j)
	}
}

// TestClaudeBackgroundPolls checks that polls of a background command are
// folded into it whatever their tool's name, and that a poll of a task no
// background command started stays a call.
func TestClaudeBackgroundPolls(t *testing.T) {
	for _, tt := range []struct {
		tool, input, result, extra string
		status                     Status
		exit                       int // -1: none
	}{
		{"TaskOutput", `{"task_id":"b1"}`, "<retrieval_status>timeout</retrieval_status>\n\n<task_id>b1</task_id>\n\n<status>running</status>", "", "running", -1},
		{"TaskOutput", `{"task_id":"b1"}`, "Task completed", `{"retrieval_status":"success","task":{"task_id":"b1","status":"completed","output":"ok\n","exitCode":0}}`, "", 0},
		{"BashOutput", `{"bash_id":"b1"}`, "<status>completed</status>\n\n<exit_code>4</exit_code>\n\n<stdout>\nout\n</stdout>", "", "", 4},
		{"KillShell", `{"shell_id":"b1"}`, `{"message":"Successfully killed shell: b1 (make)","shell_id":"b1"}`, "", "killed", -1},
		{"KillBash", `{"shell_id":"b1"}`, "Shell b1 is not running, so cannot be killed (status: completed)", "", "", -1},
		{"TaskStop", `{"task_id":"b1"}`, `{"message":"Successfully stopped task: b1 (make)","task_id":"b1","task_type":"local_bash"}`, "", "killed", -1},
	} {
		var l claudeLines
		l.background("bg", "b1", "make")
		l.use("poll", tt.tool, tt.input)
		l.result("poll", tt.result, tt.extra)
		l.use("other", tt.tool, `{"task_id":"a9"}`)
		l.result("other", "<status>running</status>", "")
		s, err := Parse(strings.NewReader(l.b.String()), "bg.jsonl", Lookup("claude-code"))
		if err != nil {
			t.Fatal(err)
		}
		if len(s.Calls) != 2 || s.Calls[0].ID != "bg" || s.Calls[1].ID != "other" {
			t.Errorf("%s: calls %v, want the background call and the other poll", tt.tool, ids(s.Calls))
			continue
		}
		c := s.Calls[0]
		exit := -1
		if c.Exit != nil {
			exit = *c.Exit
		}
		if c.Status != tt.status || exit != tt.exit {
			t.Errorf("%s: status %q exit %d, want %q %d", tt.tool, c.Status, exit, tt.status, tt.exit)
		}
	}
}

func ids(calls []*Call) []string {
	var out []string
	for _, c := range calls {
		out = append(out, c.ID)
	}
	return out
}
