package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/tidwall/gjson"
)

// The agents the guard answers, by the names `retrace formats` gives their
// transcripts.
const (
	ClaudeCode = "claude-code"
	Codex      = "codex"
	Gemini     = "gemini"
)

// Agents lists the agents the guard answers.
var Agents = []string{ClaudeCode, Codex, Gemini}

// MaxPayload bounds the hook payload read from standard input: a tool's
// response can be long, but not this long.
const MaxPayload = 32 << 20

// A Payload is one hook call: the event and the tool call it is about, as
// each agent's documentation describes its JSON on standard input.
//
// Claude Code (PreToolUse, PostToolUse, PostToolUseFailure) sends
// session_id, transcript_path, cwd, permission_mode, hook_event_name,
// tool_name, tool_input ({command, description, …} for Bash), tool_use_id,
// and after the call tool_response, or error and is_interrupt for a
// failure. Codex CLI (PreToolUse, PostToolUse) sends the same names plus
// turn_id and model; its transcript_path may be null; its Bash
// tool_response is documented only as "tool-specific output". Gemini CLI
// (BeforeTool, AfterTool) sends session_id, transcript_path, cwd,
// hook_event_name, timestamp, tool_name (run_shell_command), tool_input
// and, after the call, tool_response {llmContent, returnDisplay, error}.
type Payload struct {
	Agent string // ClaudeCode, Codex or Gemini
	Event string // hook_event_name as sent
	// Before reports that the call has not run yet (PreToolUse,
	// BeforeTool); otherwise it has (PostToolUse, PostToolUseFailure,
	// AfterTool).
	Before bool
	// Failed reports that the agent itself called the call a failure
	// (Claude Code's PostToolUseFailure).
	Failed     bool
	SessionID  string
	Transcript string // transcript_path; empty when the agent gave none
	Cwd        string
	Tool       string // tool_name
	// Command is the shell command of a shell call; empty for other tools.
	Command string
	// Output is the text the call returned, after it ran; Exit its exit
	// code when the text says it ("Exit code 2").
	Output string
	Exit   *int
}

// shellTools are each agent's shell tool, as its hooks name it.
var shellTools = map[string]string{ClaudeCode: "Bash", Codex: "Bash", Gemini: "run_shell_command"}

// ReadPayload reads a hook payload. agent names the agent that sent it, or
// is empty to recognize it: Gemini CLI by its event names, Codex CLI by
// the turn_id it adds to Claude Code's fields.
func ReadPayload(b []byte, agent string) (*Payload, error) {
	if len(b) > MaxPayload {
		return nil, fmt.Errorf("the payload is over %d MiB", MaxPayload>>20)
	}
	if !gjson.ValidBytes(b) {
		return nil, errors.New("the payload is not JSON")
	}
	v := gjson.ParseBytes(b)
	if !v.IsObject() {
		return nil, errors.New("the payload is not a JSON object")
	}
	p := &Payload{Event: v.Get("hook_event_name").String()}
	switch p.Event {
	case "PreToolUse", "BeforeTool":
		p.Before = true
	case "PostToolUse", "AfterTool":
	case "PostToolUseFailure":
		p.Failed = true
	default:
		return nil, fmt.Errorf("hook_event_name %q is not a tool call event", p.Event)
	}
	p.Agent = agent
	if p.Agent == "" {
		p.Agent = recognize(v, p.Event)
	}
	p.SessionID = v.Get("session_id").String()
	p.Transcript = v.Get("transcript_path").String()
	p.Cwd = v.Get("cwd").String()
	p.Tool = v.Get("tool_name").String()
	if p.Tool != shellTools[p.Agent] {
		return p, nil
	}
	p.Command = v.Get("tool_input.command").String()
	if !p.Before {
		p.Output = output(v, p.Agent)
		p.Exit = exitCode(p.Output)
	}
	return p, nil
}

// recognize names the agent that sent payload v for event.
func recognize(v gjson.Result, event string) string {
	switch {
	case event == "BeforeTool" || event == "AfterTool":
		return Gemini
	case v.Get("turn_id").Exists():
		return Codex
	}
	return ClaudeCode
}

// output returns the text a call returned, from payload v.
func output(v gjson.Result, agent string) string {
	switch {
	case agent == ClaudeCode && v.Get("error").Exists():
		// PostToolUseFailure: "Exit code 1\nError: …".
		return text(v.Get("error"))
	case agent == Gemini:
		parts := []string{text(v.Get("tool_response.llmContent"))}
		if e := v.Get("tool_response.error"); e.Exists() {
			parts = append(parts, text(e))
		}
		return strings.Join(parts, "\n")
	}
	// The documentation gives no shape for a shell call's tool_response:
	// the text is its string, or the strings it holds, in order.
	return text(v.Get("tool_response"))
}

// text returns the string v is, or the strings it holds, one per line.
func text(v gjson.Result) string {
	switch {
	case v.Type == gjson.String:
		return v.Str
	case v.IsObject() || v.IsArray():
		var parts []string
		v.ForEach(func(_, x gjson.Result) bool {
			if s := text(x); s != "" {
				parts = append(parts, s)
			}
			return true
		})
		return strings.Join(parts, "\n")
	}
	return ""
}

// exitRE finds the exit code a shell tool's text reports: Claude Code's
// "Exit code 2", Gemini CLI's "Exit Code: 2".
var exitRE = regexp.MustCompile(`(?m)^Exit [Cc]ode:? (-?\d+)\s*$`)

// exitCode returns the exit code out reports, or nil.
func exitCode(out string) *int {
	m := exitRE.FindStringSubmatch(out)
	if m == nil {
		return nil
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		return nil
	}
	return &n
}

// A Reply is what the guard answers one payload: a reason to block the
// call, or context for the model about a call that failed, or neither.
type Reply struct {
	Block   string
	Context string
}

// Answer returns what to write on standard output and standard error, and
// the exit status, to give r to the agent that sent p. Every agent blocks
// a call when its hook exits 2, and gives the model the hook's standard
// error as the reason; each reads context after a call from
// hookSpecificOutput.additionalContext in JSON on standard output, with
// exit status 0.
func (p *Payload) Answer(r Reply) (stdout []byte, stderr string, status int) {
	switch {
	case r.Block != "" && p.Before:
		return nil, r.Block + "\n", 2
	case r.Context != "" && !p.Before:
		out := map[string]any{"hookSpecificOutput": map[string]string{
			"hookEventName":     p.Event,
			"additionalContext": r.Context,
		}}
		b, err := json.Marshal(out)
		if err != nil {
			return nil, "", 0
		}
		return append(b, '\n'), "", 0
	}
	return nil, "", 0
}
