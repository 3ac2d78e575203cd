package guard

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
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
	// encoding/json refuses what nests more than 10 000 levels deep, as a
	// walk that recursed once per level would end in a stack overflow.
	v, err := readObject(b)
	if err != nil {
		if !json.Valid(b) {
			return nil, errors.New("the payload is not JSON")
		}
		return nil, errors.New("the payload is not a JSON object")
	}
	p := &Payload{Event: str(v.at("hook_event_name"))}
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
	p.SessionID = str(v.at("session_id"))
	p.Transcript = str(v.at("transcript_path"))
	p.Cwd = str(v.at("cwd"))
	p.Tool = str(v.at("tool_name"))
	if p.Tool != shellTools[p.Agent] {
		return p, nil
	}
	p.Command = str(v.at("tool_input", "command"))
	if !p.Before {
		p.Output = output(v, p.Agent)
		p.Exit = exitCode(p.Output)
	}
	return p, nil
}

// recognize names the agent that sent payload v for event.
func recognize(v object, event string) string {
	switch {
	case event == "BeforeTool" || event == "AfterTool":
		return Gemini
	case v.at("turn_id") != nil:
		return Codex
	}
	return ClaudeCode
}

// output returns the text a call returned, from payload v.
func output(v object, agent string) string {
	switch {
	case agent == ClaudeCode && v.at("error") != nil:
		// PostToolUseFailure: "Exit code 1\nError: …".
		return text(v.at("error"))
	case agent == Gemini:
		parts := []string{text(v.at("tool_response", "llmContent"))}
		if e := v.at("tool_response", "error"); e != nil {
			parts = append(parts, text(e))
		}
		return strings.Join(parts, "\n")
	}
	// The documentation gives no shape for a shell call's tool_response:
	// the text is its string, or the strings it holds, in order.
	return text(v.at("tool_response"))
}

// at returns the JSON at a path of member names in v, the first member of
// each name, or nil; a member that is null is "null".
func (v object) at(path ...string) json.RawMessage {
	raw, _ := v.get(path[0])
	for _, name := range path[1:] {
		o, err := readObject(raw)
		if err != nil {
			return nil
		}
		raw, _ = o.get(name)
	}
	return raw
}

// str returns the text of the JSON value raw, as gjson's String did: a
// string's text, a number's JSON (in its shortest form when it has a
// fraction or an exponent), that of an object or an array, true or false;
// "" for null or nothing.
func str(raw json.RawMessage) string {
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return ""
	case raw[0] == '"':
		var s string
		json.Unmarshal(raw, &s)
		return s
	case raw[0] == '-' || '0' <= raw[0] && raw[0] <= '9':
		if strings.Trim(string(raw), "-0123456789") != "" {
			f, _ := strconv.ParseFloat(string(raw), 64)
			return strconv.FormatFloat(f, 'f', -1, 64)
		}
	}
	return string(raw)
}

// text returns the string the JSON value raw is, or the strings it holds,
// one per line, in order.
func text(raw json.RawMessage) string {
	if len(raw) > 0 && raw[0] == '"' {
		return str(raw)
	}
	if len(raw) == 0 || raw[0] != '{' && raw[0] != '[' {
		return ""
	}
	// The values are read in order as tokens, where decoding an object
	// into a map would lose the order of its members. In an object, every
	// other string is a key.
	type level struct{ object, key bool }
	var (
		parts  []string
		levels []level
	)
	valueDone := func() {
		if n := len(levels); n > 0 && levels[n-1].object {
			levels[n-1].key = true
		}
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		switch t := tok.(type) {
		case json.Delim:
			if t == '{' || t == '[' {
				levels = append(levels, level{object: t == '{', key: t == '{'})
				continue
			}
			levels = levels[:len(levels)-1]
		case string:
			if n := len(levels); levels[n-1].object && levels[n-1].key {
				levels[n-1].key = false
				continue
			}
			if t != "" {
				parts = append(parts, t)
			}
		}
		valueDone()
	}
	return strings.Join(parts, "\n")
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
