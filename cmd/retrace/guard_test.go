package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/guard"
	"github.com/retrace-dev/retrace/parser"
)

// cutTranscript returns the first n records of a transcript: its first n
// messages when it is one JSON document with "messages" (Gemini CLI's),
// its other members kept in their order, else its first n lines.
func cutTranscript(b []byte, n int) ([]byte, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if !json.Valid(b) {
		return cutLines(b, n), nil
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return cutLines(b, n), nil
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return cutLines(b, n), nil
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return cutLines(b, n), nil
		}
		if key, _ := t.(string); key == "messages" {
			var msgs []json.RawMessage
			if err := json.Unmarshal(v, &msgs); err != nil {
				return nil, err
			}
			if v, err = json.Marshal(msgs[:min(n, len(msgs))]); err != nil {
				return nil, err
			}
		}
		if out.Len() > 1 {
			out.WriteByte(',')
		}
		k, _ := json.Marshal(t)
		out.Write(k)
		out.WriteByte(':')
		out.Write(v)
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// cutLines returns the first n lines of b.
func cutLines(b []byte, n int) []byte {
	lines := bytes.SplitAfter(b, []byte("\n"))
	return bytes.Join(lines[:min(n, len(lines))], nil)
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

// hookRun answers a payload as `retrace guard --store STORE` does, and
// returns its exit status, standard output and standard error. The
// command line itself is tested by the scripts; building its grammar for
// each of thousands of calls would take most of a replay's time.
func hookRun(t testing.TB, store string, payload []byte) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: bytes.NewReader(payload), Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	c := &guardCmd{Agent: "auto", Store: store, Timeout: time.Minute}
	status := c.answer(&Globals{}, env)
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
// anything. With no agent, the guard has no transcript to read, only its
// store, and is asked before each call only.
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
	tr := &growing{data: data, lines: s.Format != "gemini", path: filepath.Join(t.TempDir(), filepath.Base(path))}
	defer tr.close()
	var out []replayed
	for i, c := range s.Calls {
		if c.Kind != parser.KindShell || c.Command == "" {
			continue
		}
		if agent == "" {
			status, _, reason := hookRun(t, store, hookPayload(guard.ClaudeCode, true, "", c))
			out = append(out, replayed{call: c, status: status, reason: strings.TrimSpace(reason)})
			continue
		}
		// Before the call: the records before its own; after it: the
		// records up to the next call's.
		before, after := c.Pos.Line-1, len(data)
		if i+1 < len(s.Calls) {
			after = s.Calls[i+1].Pos.Line - 1
		}
		if !tr.lines {
			before, after = c.Msg, c.Msg+1
		}
		tr.grow(t, before)
		status, _, reason := hookRun(t, store, hookPayload(agent, true, tr.path, c))
		r := replayed{call: c, status: status, reason: strings.TrimSpace(reason)}
		tr.grow(t, after)
		status, stdout, stderr := hookRun(t, store, hookPayload(agent, false, tr.path, c))
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

// A growing transcript is written as its agent wrote it: JSON Lines by
// appending lines, a Gemini CLI session whole, cut after its first
// messages.
type growing struct {
	data  []byte
	lines bool
	path  string
	f     *os.File
	n     int // lines written
	end   int // bytes of data written
}

// grow writes the first n lines (or messages) of the transcript.
func (g *growing) grow(t *testing.T, n int) {
	t.Helper()
	if !g.lines {
		b, err := cutTranscript(g.data, n)
		if err == nil {
			err = os.WriteFile(g.path, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
		return
	}
	if g.f == nil {
		f, err := os.Create(g.path)
		if err != nil {
			t.Fatal(err)
		}
		g.f = f
	}
	start := g.end
	for ; g.n < n && g.end < len(g.data); g.n++ {
		i := bytes.IndexByte(g.data[g.end:], '\n')
		if i < 0 {
			g.end = len(g.data)
			break
		}
		g.end += i + 1
	}
	if _, err := g.f.Write(g.data[start:g.end]); err != nil {
		t.Fatal(err)
	}
}

func (g *growing) close() {
	if g.f != nil {
		g.f.Close()
	}
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

// TestGuardCorpus replays every session of the real transcripts of
// ../shared/corpus through the guard, with a store learned from the other
// sessions, and checks that no call that succeeded in the transcript is
// blocked. Each block is logged (go test -v), with whether the call
// failed again on the flag it names: a repeated mistake the guard would
// have stopped.
func TestGuardCorpus(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "shared", "corpus")
	if _, err := os.Stat(dir); err != nil {
		t.Skip("no corpus at", dir)
	}
	if raceEnabled {
		t.Skip("the replay of every call of the corpus is too long under the race detector")
	}
	type session struct {
		path   string
		format string
		rep    *analyzer.SessionReport
		learnt []guard.Lesson
	}
	var sessions []session
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(path)
		if err != nil {
			return err
		}
		defer f.Close()
		s, err := parser.Parse(f, path, nil)
		if err != nil {
			return nil // not a transcript
		}
		rep := analyzer.AnalyzeSession(s)
		learnt, _ := guard.Draw(rep, 0)
		sessions = append(sessions, session{path, s.Format, rep, learnt})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// Each session is replayed on its own, in parallel.
	type count struct{ calls, blocks, stopped, told int }
	counts := make([]count, len(sessions))
	t.Run("sessions", func(t *testing.T) {
		for i, s := range sessions {
			t.Run(filepath.Base(s.path), func(t *testing.T) {
				t.Parallel()
				var others []guard.Lesson
				for j, o := range sessions {
					if j != i {
						others = append(others, o.learnt...)
					}
				}
				store := guard.Store{Path: filepath.Join(t.TempDir(), "lessons.jsonl")}
				if _, err := store.Replace(nil, others); err != nil {
					t.Fatal(err)
				}
				agent := ""
				if slices.Contains(guard.Agents, s.format) {
					agent = s.format
				}
				failed := make(map[*parser.Call]*analyzer.Failure)
				for _, f := range s.rep.Failures {
					failed[f.Call()] = f
				}
				n := &counts[i]
				for _, r := range replay(t, agent, s.path, store.Path) {
					n.calls++
					if r.context != "" {
						n.told++
						t.Logf("msg %d: told %q", r.call.Msg, r.context)
					}
					if r.status != 2 {
						continue
					}
					n.blocks++
					f := failed[parsedCall(s.rep, r.call)]
					switch {
					case f == nil:
						t.Errorf("msg %d: a call that succeeded is blocked: %s\n\t%s", r.call.Msg, r.reason, r.call.Command)
					case f.Category == diagnose.CLIUsage && slices.ContainsFunc(f.BadFlags, func(b string) bool { return strings.Contains(r.reason, "not "+b+" ") }):
						n.stopped++
						t.Logf("msg %d: stopped a repeated mistake: %s", r.call.Msg, r.reason)
					default:
						t.Logf("msg %d: blocked a call that failed (%s: %s): %s", r.call.Msg, f.Category, f.Message, r.reason)
					}
				}
			})
		}
	})
	var calls, blocks, stopped, told int
	for _, n := range counts {
		calls, blocks, stopped, told = calls+n.calls, blocks+n.blocks, stopped+n.stopped, told+n.told
	}
	t.Logf("%d sessions, %d shell calls: %d blocked, %d of them repeated mistakes; context given %d times", len(sessions), calls, blocks, stopped, told)
}

// parsedCall returns the call of the report's session that is c, by its
// id: replay parses the transcript again.
func parsedCall(rep *analyzer.SessionReport, c *parser.Call) *parser.Call {
	for _, x := range rep.Session.Calls {
		if x.ID == c.ID && x.Msg == c.Msg {
			return x
		}
	}
	return nil
}

// TestGuardTimeout checks that a guard that has no answer in time lets the
// call go on: here its standard input never ends.
func TestGuardTimeout(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: r, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	c := &guardCmd{Agent: "auto", Store: filepath.Join(t.TempDir(), "lessons.jsonl"), Timeout: 50 * time.Millisecond}
	if status := c.answer(&Globals{}, env); status != 0 || stdout.Len() != 0 ||
		stderr.String() != "retrace guard: no answer after 50ms; the call goes on\n" {
		t.Errorf("exit %d, stdout %q, stderr %q", status, stdout.String(), stderr.String())
	}
}
