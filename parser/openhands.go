package parser

import (
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/tidwall/gjson"
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
	"run": Shell, "read": Read, "write": Write, "edit": Edit, "browse": Web,
	"browse_interactive": Web, "delegate": Task,
}

func matchOpenHands(head []byte) bool {
	switch jsonStart(head) {
	case '[':
		ok := false
		gjson.Parse(bytesString(head)).ForEach(func(_, e gjson.Result) bool {
			ok = isOpenHandsEvent(e) ||
				// A first event cut off by the end of the head, such as a
				// long system prompt: every event starts with these keys.
				(!validJSONString(e.Raw) && e.Get("id").Type == gjson.Number &&
					e.Get("timestamp").Type == gjson.String && e.Get("source").Type == gjson.String)
			return false
		})
		return ok
	case '{':
		return isOpenHandsEvent(gjson.Parse(bytesString(head)))
	}
	return false
}

func isOpenHandsEvent(e gjson.Result) bool {
	if !e.IsObject() {
		return false
	}
	m := topMembers(e, "action", "observation", "id", "source", "timestamp")
	action, observation, id, source, timestamp := m[0], m[1], m[2], m[3], m[4]
	kind := action.Type == gjson.String || observation.Type == gjson.String
	return kind && id.Exists() && (source.Exists() || timestamp.Exists())
}

type openhandsDecoder struct {
	s        *Session
	lines    *lineCounter
	byEvent  map[int64]*Call  // calls by the id of their action event
	byCallID map[string]*Call // calls by tool_call_id
	response string           // id of the model response of the last call
}

func decodeOpenHands(r io.Reader, name string) (*Session, error) {
	d := &openhandsDecoder{
		s:        &Session{Path: name, Format: "openhands", Calls: []*Call{}},
		byEvent:  make(map[int64]*Call),
		byCallID: make(map[string]*Call),
	}
	data, lines, release, err := readJSONDoc(r, d.s)
	defer release()
	d.lines = lines
	root := gjson.ParseBytes(data)
	switch {
	case root.IsArray():
		i := -1
		root.ForEach(func(_, e gjson.Result) bool {
			i++
			if !validJSONString(e.Raw) {
				return false // the cut-off end of a broken file
			}
			d.event(e, i)
			return true
		})
	case root.IsObject():
		d.event(root, 0)
	default:
		if len(d.s.Skipped) == 0 {
			d.s.skip(1, "not a JSON array or object: expected OpenHands events")
		}
	}
	sortSkipped(d.s)
	return d.s, err
}

func (d *openhandsDecoder) event(e gjson.Result, i int) {
	if !e.IsObject() {
		d.s.skip(d.lines.at(e.Index), "event is not a JSON object")
		return
	}
	when := isoTime(e.Get("timestamp").String())
	if !when.IsZero() {
		if d.s.Start.IsZero() {
			d.s.Start = when
		}
		if when.After(d.s.End) {
			d.s.End = when
		}
	}
	if a := e.Get("action"); a.Type == gjson.String {
		d.action(e, a.String(), i, when)
	} else if o := e.Get("observation"); o.Type == gjson.String {
		d.observation(e, o.String(), when)
	}
}

func (d *openhandsDecoder) action(e gjson.Result, action string, i int, when time.Time) {
	args := e.Get("args")
	if action == "message" && e.Get("source").String() == "user" && d.s.Title == "" {
		text := args.Get("content").String()
		if text == "" {
			text = e.Get("message").String()
		}
		d.s.Title = firstLine(text, 100)
	}
	if openhandsNotTools[action] || e.Get("source").String() == "user" {
		return
	}
	meta := e.Get("tool_call_metadata")
	c := &Call{
		Msg:    i,
		ID:     meta.Get("tool_call_id").String(),
		Tool:   meta.Get("function_name").String(),
		Start:  when,
		Text:   abridgeText(args.Get("thought").String()),
		Status: "no-result",
		Pos:    Pos{File: d.s.Path, Line: d.lines.at(e.Index)},
	}
	if c.Tool == "" {
		c.Tool = action
	}
	c.Kind = KindOf(action)
	if k, ok := openhandsKinds[action]; ok {
		c.Kind = k
	}
	if action == "edit" && (args.Get("command").String() == "create" ||
		strings.Contains(args.Get("translated_ipython_code").String(), `'command': 'create'`)) {
		c.Kind = Write
	}
	setInputResult(c, args)
	for _, k := range openhandsNoise {
		delete(c.Args, k)
	}
	if c.Args["is_input"] == "false" {
		delete(c.Args, "is_input")
	}
	resp := meta.Get("model_response")
	setOnce(&d.s.Model, resp.Get("model").String())
	if id := resp.Get("id").String(); id == "" || id != d.response {
		c.Tokens = int(resp.Get("usage.completion_tokens").Int())
		d.response = id
	}
	d.s.add(c)
	if id := e.Get("id"); id.Type == gjson.Number {
		d.byEvent[id.Int()] = c
	}
	if c.ID != "" && d.byCallID[c.ID] == nil {
		d.byCallID[c.ID] = c
	}
}

// routineSuffixRE matches the note OpenHands adds to every finished
// command's output, which says nothing the exit code does not.
var routineSuffixRE = regexp.MustCompile(`^\s*\[The command completed with exit code -?\d+\.\]\s*$`)

func (d *openhandsDecoder) observation(e gjson.Result, obs string, when time.Time) {
	var c *Call
	if cause := e.Get("cause"); cause.Type == gjson.Number {
		c = d.byEvent[cause.Int()]
	}
	if c == nil {
		c = d.byCallID[e.Get("tool_call_metadata.tool_call_id").String()]
	}
	if c == nil || c.Status != "no-result" {
		return // the answer to a message or a state change
	}
	c.Status = ""
	c.End = when
	extras := e.Get("extras")
	out := e.Get("content").String()
	switch obs {
	case "run":
		meta := extras.Get("metadata")
		code := meta.Get("exit_code")
		if code.Type != gjson.Number {
			code = extras.Get("exit_code")
		}
		if prefix := meta.Get("prefix").String(); strings.TrimSpace(prefix) != "" {
			out = prefix + out
		}
		suffix := meta.Get("suffix").String()
		if strings.TrimSpace(suffix) != "" && !routineSuffixRE.MatchString(suffix) {
			out += suffix
		}
		if code.Type == gjson.Number {
			if n := int(code.Int()); n != -1 {
				c.Exit = &n
			} else {
				// Still running when the agent stopped waiting.
				c.Note = strings.Trim(strings.TrimSpace(suffix), "[]")
				c.Status = "running"
				if strings.Contains(c.Note, "timed out") {
					c.Status = "interrupted"
				}
			}
		}
		setOnce(&d.s.Cwd, meta.Get("working_dir").String())
	case "error":
		c.IsError = true
	case "user_rejected":
		c.IsError = true
		c.Status = "rejected"
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
