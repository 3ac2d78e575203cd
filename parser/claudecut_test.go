package parser

import (
	"strings"
	"testing"
)

// TestClaudeCutResults: a user record cut short gives the results whose
// id is whole; a failed result gives its id after its content, so cut in
// its content it gives none, and no warning of an unknown call. A result
// read cut short is not held against a whole copy replayed later.
func TestClaudeCutResults(t *testing.T) {
	use := `{"type":"assistant","uuid":"a1","sessionId":"s","timestamp":"2026-02-03T10:00:01Z","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"ls x"}}]}}`
	tests := []struct {
		name   string
		lines  []string
		output string // of toolu_1
		exit   int    // of toolu_1; -1 for none
		warns  []string
	}{
		{"id first, cut in the content", []string{use,
			`{"type":"user","uuid":"u1","sessionId":"s","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 2\nls: cannot access 'x': No such file or [REDACTED]`},
			"ls: cannot access 'x': No such file or [REDACTED]", 2, []string{"2: invalid JSON: record ends early"}},
		{"content first, cut in the content", []string{use,
			`{"type":"user","uuid":"u1","sessionId":"s","message":{"content":[{"type":"tool_result","content":"Exit code 2\nls: cannot access 'x': No such file or [REDACTED]`},
			"", -1, []string{"2: invalid JSON: record ends early"}},
		{"cut, then a whole copy", []string{use,
			`{"type":"user","uuid":"u1","sessionId":"s","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 2\nls: cannot access 'x': No such file or [REDACTED]`,
			`{"type":"user","uuid":"u2","sessionId":"s","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 2\nls: cannot access 'x': No such file or directory","is_error":true}]}}`},
			"ls: cannot access 'x': No such file or [REDACTED]", 2, []string{"2: invalid JSON: record ends early"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(strings.Join(tt.lines, "\n")+"\n"), "t.jsonl", Lookup("claude-code"))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Calls) != 1 {
				t.Fatalf("%d calls, want 1", len(s.Calls))
			}
			c := s.Calls[0]
			exit := -1
			if c.Exit != nil {
				exit = *c.Exit
			}
			if c.Output != tt.output || exit != tt.exit {
				t.Errorf("output %q, exit %d; want %q, %d", c.Output, exit, tt.output, tt.exit)
			}
			var warns []string
			for _, e := range s.Skipped {
				warns = append(warns, strings.TrimPrefix(e.Error(), "t.jsonl:"))
			}
			if strings.Join(warns, "|") != strings.Join(tt.warns, "|") {
				t.Errorf("warnings %q, want %q", warns, tt.warns)
			}
		})
	}
}
