package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/guard"
	"github.com/retrace-dev/retrace/parser"
)

// cutTranscript returns the first n records of a transcript: its first n
// messages when it is one JSON document with "messages" (Gemini CLI's),
// else its first n lines.
func cutTranscript(b []byte, n int) ([]byte, error) {
	var doc map[string]json.RawMessage
	if json.Unmarshal(b, &doc) == nil && doc["messages"] != nil {
		var msgs []json.RawMessage
		if err := json.Unmarshal(doc["messages"], &msgs); err != nil {
			return nil, err
		}
		raw, err := json.Marshal(msgs[:min(n, len(msgs))])
		if err != nil {
			return nil, err
		}
		doc["messages"] = raw
		return json.MarshalIndent(doc, "", "  ")
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil), nil
}

// hookPayload writes the payload agent sends about the call c of a
// session whose transcript is at transcript: before it runs, or after.
func hookPayload(agent string, before bool, transcript string, c *parser.Call) []byte {
	p := map[string]any{
		"session_id":      "0a1b2c3d-guard-test",
		"transcript_path": transcript,
		"cwd":             "/home/dev/project",
		"tool_input":      map[string]string{"command": c.Command},
	}
	failed := c.IsError || c.Exit != nil && *c.Exit != 0
	exit := 0
	if c.Exit != nil {
		exit = *c.Exit
	}
	switch agent {
	case guard.ClaudeCode, guard.Codex:
		p["tool_name"] = "Bash"
		p["tool_use_id"] = c.ID
		p["permission_mode"] = "default"
		p["hook_event_name"] = "PreToolUse"
		if agent == guard.Codex {
			p["turn_id"] = "1"
			p["model"] = "gpt-5.3-codex"
		}
		switch {
		case before:
		case agent == guard.ClaudeCode && failed:
			p["hook_event_name"] = "PostToolUseFailure"
			p["error"] = fmt.Sprintf("Exit code %d\n%s", exit, c.Output)
			p["is_interrupt"] = false
		default:
			p["hook_event_name"] = "PostToolUse"
			p["tool_response"] = c.Output
		}
	case guard.Gemini:
		p["tool_name"] = "run_shell_command"
		p["timestamp"] = "2026-03-09T14:01:27.290Z"
		p["hook_event_name"] = "BeforeTool"
		if !before {
			p["hook_event_name"] = "AfterTool"
			p["tool_response"] = map[string]string{"llmContent": c.Output, "returnDisplay": c.Output}
		}
	}
	b, err := json.Marshal(p)
	if err != nil {
		panic(err)
	}
	return b
}

// hookRun runs `retrace guard --store STORE` on a payload, as an agent
// does, and returns its exit status, standard output and standard error.
func hookRun(t testing.TB, store string, payload []byte) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: bytes.NewReader(payload), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	status := run([]string{"guard", "--store", store}, env)
	return status, stdout.String(), stderr.String()
}

// seedAgents are the sample sessions of the agents the guard answers.
var seedAgents = []struct{ agent, file string }{
	{guard.ClaudeCode, "claude-code.jsonl"},
	{guard.Codex, "codex.jsonl"},
	{guard.Gemini, "gemini.json"},
}

// A replayed step is what the guard answered about one call.
type replayed struct {
	call            *parser.Call
	status          int
	reason, context string
}

// replay plays the session of transcript file path through the guard call
// by call, as the agent would have: before each shell call, the transcript
// as it was then and the payload of the call; after it, the transcript
// with the call's result and the payload of its result. It returns what
// the guard answered before each call and, after it, when it said
// anything.
func replay(t *testing.T, agent, path, store string) []replayed {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	s, err := parser.Parse(bytes.NewReader(data), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	lines := s.Format != "gemini"
	transcript := filepath.Join(t.TempDir(), filepath.Base(path))
	grow := func(n int) {
		b, err := cutTranscript(data, n)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(transcript, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out []replayed
	for i, c := range s.Calls {
		if c.Kind != parser.Shell || c.Command == "" {
			continue
		}
		// Before the call: the records before its own; after it: the
		// records up to the next call's.
		before, after := c.Pos.Line-1, len(data)
		if i+1 < len(s.Calls) {
			after = s.Calls[i+1].Pos.Line - 1
		}
		if !lines {
			before, after = c.Msg, c.Msg+1
		}
		grow(before)
		status, _, reason := hookRun(t, store, hookPayload(agent, true, transcript, c))
		r := replayed{call: c, status: status, reason: strings.TrimSpace(reason)}
		grow(after)
		status, stdout, stderr := hookRun(t, store, hookPayload(agent, false, transcript, c))
		if status != 0 || stderr != "" {
			t.Errorf("%s: after msg %d the guard exits %d: %s", path, c.Msg, status, stderr)
		}
		if stdout != "" {
			var reply struct {
				HookSpecificOutput struct{ AdditionalContext string }
			}
			if err := json.Unmarshal([]byte(stdout), &reply); err != nil {
				t.Errorf("%s: after msg %d: %v: %s", path, c.Msg, err, stdout)
			}
			r.context = reply.HookSpecificOutput.AdditionalContext
		}
		out = append(out, r)
	}
	return out
}

// TestGuardReplay replays the sample sessions of each agent through the
// guard, and checks that it blocks the second --num-prompts call and
// nothing else, and hands the earlier fix back when that call fails.
func TestGuardReplay(t *testing.T) {
	for _, seed := range seedAgents {
		t.Run(seed.agent, func(t *testing.T) {
			path := filepath.Join("..", "..", "testdata", "seeds", seed.file)
			store := filepath.Join(t.TempDir(), "lessons.jsonl")
			steps := replay(t, seed.agent, path, store)
			var blocked, told []string
			for _, r := range steps {
				switch {
				case r.status == 2:
					blocked = append(blocked, fmt.Sprintf("msg %d: %s", r.call.Msg, r.reason))
				case r.status != 0 || r.reason != "":
					t.Errorf("msg %d: exit %d: %s", r.call.Msg, r.status, r.reason)
				}
				if r.context != "" {
					told = append(told, fmt.Sprintf("msg %d: %s", r.call.Msg, r.context))
				}
			}
			first, fix, again := seedMsgs(t, path)
			want := []string{fmt.Sprintf("msg %d: benchmark_eagle3.py takes --num-runs, not --num-prompts (failed at msg %d, fixed at msg %d)", again, first, fix)}
			if !slices.Equal(blocked, want) {
				t.Errorf("blocked:\n%s\nwant:\n%s", strings.Join(blocked, "\n"), strings.Join(want, "\n"))
			}
			want = []string{fmt.Sprintf("msg %d: this failed the same way at msg %d; msg %d fixed it with --num-runs 5", again, first, fix)}
			if !slices.Equal(told, want) {
				t.Errorf("context:\n%s\nwant:\n%s", strings.Join(told, "\n"), strings.Join(want, "\n"))
			}
		})
	}
}

// seedMsgs returns the msg of the seed's first --num-prompts failure, of
// its fix, and of the second --num-prompts failure, as `retrace pairs`
// finds them.
func seedMsgs(t *testing.T, path string) (first, fix, again int) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := parser.Parse(f, path, nil)
	if err != nil {
		t.Fatal(err)
	}
	var msgs []int
	for _, ch := range analyzer.AnalyzeSession(s).Chains {
		if ch.Failure.Target == "benchmark_eagle3.py" && slices.Contains(ch.Failure.BadFlags, "--num-prompts") && ch.Fix != nil {
			msgs = append(msgs, ch.Failure.Msg, ch.Fix.Msg)
		}
	}
	if len(msgs) != 4 {
		t.Fatalf("%s: the --num-prompts chains are at %v", path, msgs)
	}
	return msgs[0], msgs[1], msgs[2]
}
