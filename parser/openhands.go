package parser

import (
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// OpenHands (formerly OpenDevin) records a conversation as events: actions
// ({"id", "timestamp", "source", "action", "args", "tool_call_metadata"})
// and observations ({"id", "cause", "observation", "content", "extras"}),
// where an observation's cause is the id of the action it answers. A
// trajectory download or save_trajectory_path file is a JSON array of
// events; the session store keeps one event per file, events/<id>.json,
// and one such file is read as a session of one event. A call is an action
// that uses a tool: "run" is a shell command whose observation has its exit
// code in extras.metadata.exit_code (extras.exit_code in older versions;
// -1 while the command is still running); read, write, edit, browse and
// the rest map to their kinds. Timestamps are ISO 8601 without a zone and
// are read as UTC. A call's message index is the index of its action in
// the event list.

// openhandsNotTools are the actions that use no tool.
var openhandsNotTools = map[string]bool{
	"message": true, "system": true, "finish": true, "think": true, "recall": true,
	"change_agent_state": true, "condensation": true, "condensation_request": true,
	"reject": true, "null": true, "push": true, "send_pr": true,
}

// openhandsNoise are the action arguments that say nothing about the call:
// the thought becomes Call.Text, the rest are settings.
var openhandsNoise = []string{
	"thought", "translated_ipython_code", "impl_source", "blocking", "hidden",
	"confirmation_state", "security_risk", "background",
}

// openhandsKinds are the kinds of the tool actions whose names KindOf does
// not know as such.
var openhandsKinds = map[string]Kind{
	"run": KindShell, "read": KindRead, "write": KindWrite, "edit": KindEdit, "browse": KindWeb,
	"browse_interactive": KindWeb, "delegate": KindTask,
}

func matchOpenHands(head []byte) bool {
	switch jsonStart(head) {
	case '[':
		for e := range rawjson.Peek(bytesString(head)).Elements() {
			return isOpenHandsEvent(e) ||
				// A first event cut off by the end of the head, such as a
				// long system prompt: every event starts with these keys.
				(!e.Valid() && e.Get("id").Kind() == rawjson.Number &&
					e.Get("timestamp").Kind() == rawjson.String && e.Get("source").Kind() == rawjson.String)
		}
	case '{':
		return isOpenHandsEvent(rawjson.Peek(bytesString(head)))
	}
	return false
}

func isOpenHandsEvent(e rawjson.Value) bool {
	if e.Kind() != rawjson.Object {
		return false
	}
	var f rawjson.Fields
	e.Pick(openhandsEventNames, &f)
	kind := f.Get(ohAction).Kind() == rawjson.String || f.Get(ohObservation).Kind() == rawjson.String
	return kind && f.Get(ohID).Exists() && (f.Get(ohSource).Exists() || f.Get(ohTimestamp).Exists())
}

// The members of an event that the decoder reads, by their index in
// openhandsEventNames.
const (
	ohID = iota
	ohTimestamp
	ohSource
	ohAction
	ohObservation
	ohArgs
	ohMessage
	ohToolCallMetadata
	ohCause
	ohContent
	ohExtras
)

var openhandsEventNames = rawjson.NewNames("id", "timestamp", "source", "action", "observation", "args",
	"message", "tool_call_metadata", "cause", "content", "extras")

type openhandsDecoder struct {
	s        *Session
	lines    *lineCounter
	byEvent  map[int64]*Call  // calls by the id of their action event
	byCallID map[string]*Call // calls by tool_call_id
	response string           // id of the model response of the last call
	// pending is the shell command still running when its output was
	// read, to which the text the agent types next (is_input) goes.
	pending *Call
}

func decodeOpenHands(r io.Reader, name string) (*Session, error) {
	d := &openhandsDecoder{
		s:        &Session{Path: name, Format: "openhands", Calls: []*Call{}},
		byEvent:  make(map[int64]*Call),
		byCallID: make(map[string]*Call),
	}
	root, lines, release, err := readJSONDoc(r, d.s)
	defer release()
	d.lines = lines
	switch root.Kind() {
	case rawjson.Array:
		i := -1
		for e := range root.Elements() {
			i++
			if !e.Valid() {
				break // the cut-off end of a broken file
			}
			d.event(e, i)
		}
	case rawjson.Object:
		d.event(root, 0)
	default:
		if len(d.s.Skipped) == 0 {
			d.s.skip(1, "not a JSON array or object: expected OpenHands events")
		}
	}
	sortSkipped(d.s)
	return d.s, err
}

func (d *openhandsDecoder) event(e rawjson.Value, i int) {
	if e.Kind() != rawjson.Object {
		d.s.skip(d.lines.at(e.Offset()), "event is not a JSON object")
		return
	}
	var f rawjson.Fields
	e.Pick(openhandsEventNames, &f)
	when := isoTime(f.Get(ohTimestamp).Text())
	d.s.dated(when)
	if a := f.Get(ohAction); a.Kind() == rawjson.String {
		d.action(&f, a.Text(), i, when)
	} else if o := f.Get(ohObservation); o.Kind() == rawjson.String {
		d.observation(&f, o.Text(), when)
	}
}

// action reads an action event, whose members are e.
func (d *openhandsDecoder) action(e *rawjson.Fields, action string, i int, when time.Time) {
	args := e.Get(ohArgs)
	source := e.Get(ohSource).Text()
	if action == "message" && source == "user" && d.s.Title == "" {
		text := args.Get("content").Text()
		if text == "" {
			text = e.Get(ohMessage).Text()
		}
		d.s.Title = firstLine(text, 100)
	}
	if openhandsNotTools[action] || source == "user" {
		return
	}
	meta := e.Get(ohToolCallMetadata)
	c := &Call{
		Msg:    i,
		ID:     meta.Get("tool_call_id").Text(),
		Tool:   meta.Get("function_name").Text(),
		Start:  when,
		Text:   abridgeText(args.Get("thought").Text()),
		Status: StatusNoResult,
		Pos:    Pos{File: d.s.Path, Line: d.lines.at(e.Object().Offset())},
	}
	if c.Tool == "" {
		c.Tool = action
	}
	c.Kind = KindOf(action)
	if k, ok := openhandsKinds[action]; ok {
		c.Kind = k
	}
	if action == "edit" && (args.Get("command").Text() == "create" ||
		strings.Contains(args.Get("translated_ipython_code").Text(), `'command': 'create'`)) {
		c.Kind = KindWrite
	}
	setInput(c, args, nil, nil)
	for _, k := range openhandsNoise {
		delete(c.Args, k)
	}
	if c.Args["is_input"] == "false" {
		delete(c.Args, "is_input")
	}
	if c.Kind == KindShell {
		d.typed(c)
	}
	resp := meta.Get("model_response")
	setOnce(&d.s.Model, resp.Get("model").Text())
	if id := resp.Get("id").Text(); id == "" || id != d.response {
		c.Tokens = int(resp.Path("usage", "completion_tokens").Int())
		d.response = id
	}
	d.s.add(c)
	if id := e.Get(ohID); id.Kind() == rawjson.Number {
		d.byEvent[id.Int()] = c
	}
	if c.ID != "" && d.byCallID[c.ID] == nil {
		d.byCallID[c.ID] = c
	}
}

// typed makes a shell call that types text into the command still running
// (is_input: a name or a password at a prompt, "yes", Ctrl-C), or that
// only waits for more of its output (an empty command), a call of that
// command: its outcome is the command's. What was typed is not kept, as it
// is often a password; a control key is, and Ctrl-C or Ctrl-D stop the
// command. Input with no command waiting has no command either.
func (d *openhandsDecoder) typed(c *Call) {
	if c.Args["is_input"] != "true" {
		if strings.TrimSpace(c.Command) == "" && d.pending != nil {
			c.Command = d.pending.Command // waits for more of the command still running
			delete(c.Args, "command")
			return
		}
		d.pending = nil // a new command: whatever ran before was left
		return
	}
	if controlKeyRE.MatchString(c.Command) {
		c.Args["keys"] = c.Command
	}
	c.Command = ""
	if d.pending != nil {
		c.Command = d.pending.Command
	}
}

// controlKeyRE matches the control keys OpenHands sends as input: C-c,
// C-d, C-z.
var controlKeyRE = regexp.MustCompile(`^C-[a-z\\]$`)

// routineSuffixRE matches the note OpenHands adds to every finished
// command's output, which says nothing the exit code does not.
var routineSuffixRE = regexp.MustCompile(`^\s*\[The command completed with exit code -?\d+\.\]\s*$`)

// observation reads an observation event, whose members are e.
func (d *openhandsDecoder) observation(e *rawjson.Fields, obs string, when time.Time) {
	var c *Call
	if cause := e.Get(ohCause); cause.Kind() == rawjson.Number {
		c = d.byEvent[cause.Int()]
	}
	if c == nil {
		c = d.byCallID[e.Path(ohToolCallMetadata, "tool_call_id").Text()]
	}
	if c == nil || c.Status != StatusNoResult {
		return // the answer to a message or a state change
	}
	c.Status = ""
	c.End = when
	extras := e.Get(ohExtras)
	out := e.Get(ohContent).Text()
	switch obs {
	case "run":
		meta := extras.Get("metadata")
		code := meta.Get("exit_code")
		if code.Kind() != rawjson.Number {
			code = extras.Get("exit_code")
		}
		if prefix := meta.Get("prefix").Text(); strings.TrimSpace(prefix) != "" {
			out = prefix + out
		}
		suffix := meta.Get("suffix").Text()
		if strings.TrimSpace(suffix) != "" && !routineSuffixRE.MatchString(suffix) {
			out += suffix
		}
		if code.Kind() == rawjson.Number {
			if n := int(code.Int()); n != -1 {
				c.Exit = &n
				d.pending = nil
			} else {
				// Still running when the agent stopped waiting.
				c.Note = strings.Trim(strings.TrimSpace(suffix), "[]")
				c.Status = StatusRunning
				if strings.Contains(c.Note, "timed out") {
					c.Status = StatusInterrupted
				}
				if c.Args["is_input"] != "true" {
					d.pending = c
				}
			}
		}
		if k := c.Args["keys"]; k == "C-c" || k == "C-d" {
			c.Status = StatusInterrupted // the agent stopped it
		}
		setOnce(&d.s.Cwd, meta.Get("working_dir").Text())
	case "error":
		c.IsError = true
	case "user_rejected":
		c.IsError = true
		c.Status = StatusRejected
	}
	c.Output = abridge(out)
}

// isoTime reads an ISO 8601 time, taking one without a zone as UTC.
func isoTime(s string) time.Time {
	if t := parseTime(s); !t.IsZero() || s == "" {
		return t
	}
	t, err := time.Parse("2006-01-02T15:04:05.999999999", s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}
