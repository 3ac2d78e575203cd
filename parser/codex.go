package parser

import (
	"bytes"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
	"mvdan.cc/sh/v3/syntax"

	"github.com/retrace-dev/retrace/internal/shparse"
)

// The OpenAI Codex CLI writes one JSON record per line to
// ~/.codex/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl, in one of three
// shapes, all read here:
//
//   - the wrapped era: every line is {"timestamp", "type", "payload"}, with
//     type session_meta, turn_context, response_item, event_msg or
//     compacted. Tool calls are response_items (function_call,
//     custom_tool_call, local_shell_call) joined to their outputs by
//     call_id. Forked and resumed files replay a parent's history after a
//     second session_meta; a call_id already read is not read again.
//   - the legacy bare era: a first line {"id", "timestamp", "instructions",
//     "git"}, then bare response items and {"record_type":"state"} lines.
//   - the `codex exec --json` stream: thread.started, turn.started,
//     item.started/updated/completed and turn.completed/failed events.
//
// A call with no output at the end of the file has the status "no-result",
// or "interrupted" when a turn_aborted event followed it; an exec_command
// whose process was still running has the status "running".
//
// Messages are counted simply: every response item (a response_item record,
// or a bare item of the legacy era) is one message, whatever it holds, and
// so is every distinct item of the exec stream. Other records (event_msg,
// turn_context, session_meta, compacted) are not messages. A call's output
// and a write_stdin poll are messages of their own, as the model sees them.
//
// A long-running exec_command hands back a session id; the agent then polls
// it with write_stdin, and the exit code arrives on a later poll. Polls are
// folded into the exec_command call: their output is appended to its
// output, and they are not calls of their own.

// codexWrapped are the record types of the wrapped era.
var codexWrapped = map[string]bool{
	"session_meta": true, "turn_context": true, "response_item": true,
	"event_msg": true, "compacted": true,
}

// codexExecEvents are the event types of `codex exec --json`.
var codexExecEvents = map[string]bool{
	"thread.started": true, "turn.started": true, "turn.completed": true,
	"turn.failed": true, "item.started": true, "item.updated": true,
	"item.completed": true,
}

// codexCutRE recognizes a wrapped-era record cut off by the end of the head.
var codexCutRE = regexp.MustCompile(`^\{"timestamp":"[^"]*",(?:"ordinal":\d+,)?"type":"(?:session_meta|turn_context|response_item|event_msg|compacted)","payload":\{`)

// codexLegacyCutRE recognizes the legacy first line cut off by the end of
// the head, as long instructions make it.
var codexLegacyCutRE = regexp.MustCompile(`^\{"id":"[^"]*","timestamp":"[^"]*","instructions":`)

// matchCodex accepts a head whose first JSON record is a Codex record: a
// wrapped record (which always has "timestamp" and a "payload" object; a
// Claude Code line never has "payload"), the legacy session line, a legacy
// state marker, or an exec event. Lines that are not JSON are passed over,
// and so is a malformed record that ends within head, which the decoder
// reports.
func matchCodex(head []byte) bool {
	for line := range bytes.Lines(head) {
		complete := bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if !validJSON(line) {
			if codexCutRE.Match(line) || codexLegacyCutRE.Match(line) {
				return true
			}
			if !complete {
				return false
			}
			continue // malformed: the decoder reports it, the next record decides
		}
		r := gjson.ParseBytes(line)
		typ := r.Get("type")
		switch {
		case typ.Type == gjson.String && codexWrapped[typ.String()]:
			return r.Get("payload").IsObject() && r.Get("timestamp").Type == gjson.String
		case typ.Type == gjson.String && codexExecEvents[typ.String()]:
			return true
		case !typ.Exists() && !r.Get("payload").Exists():
			return r.Get("record_type").String() == "state" ||
				(r.Get("id").Type == gjson.String && r.Get("timestamp").Type == gjson.String &&
					(r.Get("instructions").Exists() || r.Get("git").Exists()))
		}
		return false
	}
	return false
}

// A codexCall is a call with what the decoder still needs to know of it.
type codexCall struct {
	*Call
	endExit bool   // the exit code came from exec_command_end, and wins
	output  string // whole output of a running exec_command, with its polls
}

type codexDecoder struct {
	s       *Session
	calls   map[string]*codexCall // by call_id
	polls   map[string]*codexCall // write_stdin call_id → the exec_command it polls; nil when unknown
	orphans map[string]string     // write_stdin call_id → session id, for polls of unknown sessions
	running map[string]*codexCall // exec_command calls by the session id of their process
	outputs map[string]bool       // call_ids whose output has been read
	items   map[string]*codexCall // exec stream items by id; nil for items that are not calls
	msg     int                   // index of the current message; -1 before the first
	text    string                // assistant text not yet attached to a call
	tokens  *Call                 // first call since the last token_count
	open    []*Call               // calls made since the last turn_aborted
	meta    bool                  // the session's own session_meta has been read
	replay  bool                  // a Note on replayed history has been added
	titles  [2]string             // first user_message event, first user message item

	// line is the record being read, in the line reader's buffer, which
	// the next line overwrites: what is kept of it goes through keep.
	line string
}

func decodeCodex(r io.Reader, name string) (*Session, error) {
	d := &codexDecoder{
		s:       &Session{Path: name, Format: "codex", Calls: []*Call{}},
		calls:   make(map[string]*codexCall),
		polls:   make(map[string]*codexCall),
		orphans: make(map[string]string),
		running: make(map[string]*codexCall),
		outputs: make(map[string]bool),
		items:   make(map[string]*codexCall),
		msg:     -1,
	}
	err := forEachLine(r, d.s, func(line []byte, n int) {
		d.record(line, n)
		d.line = "" // the line's buffer may be let go
	})
	d.line = ""
	for _, t := range d.titles {
		if t != "" {
			d.s.Title = t
			break
		}
	}
	return d.s, err
}

// keep returns s copied out of the record being read when it is part of
// it, so that it outlives the line.
func (d *codexDecoder) keep(s string) string {
	if within(s, d.line) {
		return strings.Clone(s)
	}
	return s
}

// The members the decoder reads of a record, of its payload and of an
// exec stream item, by their index in codexNames. The three objects share
// the list: a legacy record is itself a response item.
const (
	cxType = iota
	cxPayload
	cxTimestamp
	cxCallID
	cxName
	cxArguments
	cxOutput
	cxContent
	cxRole
	cxID
	cxInput
	cxAction
	cxInfo
	cxKind
	cxMessage
	cxExitCode
	cxSuccess
	cxCwd
	cxModel
	cxCLIVersion
	cxThreadID
	cxError
	cxItem
	cxText
	cxTool
	cxStatus
	cxCommand
	cxAggregatedOutput
	cxChanges
	cxServer
	cxResult
	cxCount
)

var codexNames = []string{"type", "payload", "timestamp", "call_id", "name", "arguments", "output", "content",
	"role", "id", "input", "action", "info", "kind", "message", "exit_code", "success", "cwd", "model",
	"cli_version", "thread_id", "error", "item", "text", "tool", "status", "command", "aggregated_output",
	"changes", "server", "result"}

// A codexObject holds the raw values of the members of an object that the
// decoder reads, "" for those it lacks.
type codexObject [cxCount]string

// get reads a member as gjson.Get would give it.
func (o *codexObject) get(f int) gjson.Result { return value(o[f]) }

// str reads a member as gjson.Get(…).String() would give it.
func (o *codexObject) str(f int) string { return value(o[f]).String() }

// A codexRecord holds the members of a record, and those of its payload
// and its item when they are objects. They are found in the pass that
// validates the record.
type codexRecord struct {
	top, payload, item codexObject
}

func (d *codexDecoder) record(line []byte, n int) {
	d.line = bytesString(line)
	var rec codexRecord
	var inner [cxCount]*fieldSet
	inner[cxPayload] = &fieldSet{names: codexNames, vals: rec.payload[:]}
	inner[cxItem] = &fieldSet{names: codexNames, vals: rec.item[:]}
	if !validFields(d.line, &fieldSet{names: codexNames, vals: rec.top[:], inner: inner[:]}) {
		d.s.skipInvalid(n, line)
		return
	}
	if d.line[skipSpace(d.line, 0)] != '{' {
		d.s.skip(n, "record is not a JSON object")
		return
	}
	top := &rec.top
	when := parseTime(top.str(cxTimestamp))
	if !when.IsZero() {
		if d.s.Start.IsZero() {
			d.s.Start = when
		}
		if when.After(d.s.End) {
			d.s.End = when
		}
	}
	typ := top.str(cxType)
	switch {
	case top[cxPayload] != "":
		if isObject(top[cxPayload]) {
			d.wrapped(typ, top[cxPayload], &rec.payload, n, when)
		}
	case codexExecEvents[typ]:
		d.execEvent(typ, &rec, n)
	case top[cxType] == "":
		// The legacy session line; state markers and the rest hold no
		// calls.
		if top.get(cxID).Type == gjson.String && top[cxTimestamp] != "" {
			setOnce(&d.s.ID, d.keep(top.str(cxID)))
		}
	default:
		d.item(top, n, when) // a bare item of the legacy era
	}
}

// wrapped reads a record of the wrapped era whose payload is the object
// raw, with the members p.
func (d *codexDecoder) wrapped(typ, raw string, p *codexObject, n int, when time.Time) {
	switch typ {
	case "session_meta":
		if !d.meta {
			d.meta = true
			setOnce(&d.s.ID, d.keep(p.str(cxID)))
			setOnce(&d.s.Cwd, d.keep(p.str(cxCwd)))
			setOnce(&d.s.Agent, d.keep(p.str(cxCLIVersion)))
			return
		}
		if !d.replay {
			d.replay = true
			d.s.Notes = append(d.s.Notes, "the file replays the history of another session (a fork or resume): calls repeated from it are read once")
		}
	case "turn_context":
		setOnce(&d.s.Cwd, d.keep(p.str(cxCwd)))
		setOnce(&d.s.Model, d.keep(p.str(cxModel)))
	case "response_item":
		d.item(p, n, when)
	case "event_msg":
		d.event(raw, p)
	case "compacted":
		d.text = ""
	}
}

// event reads the event_msg records that tell something the response items
// do not.
func (d *codexDecoder) event(raw string, p *codexObject) {
	switch p.str(cxType) {
	case "user_message":
		// Some builds mark injected text with a kind other than "plain".
		if p[cxKind] == "" || p.str(cxKind) == "plain" {
			setOnce(&d.titles[0], d.keep(codexTitle(p.str(cxMessage))))
		}
	case "exec_command_end":
		c := d.lookup(p.str(cxCallID))
		if c == nil {
			return
		}
		if exit := p.get(cxExitCode); exit.Type == gjson.Number {
			code := int(exit.Int())
			c.Exit, c.endExit = &code, true
			if c.Status == "running" {
				c.Status = ""
			}
		}
	case "turn_aborted":
		// The user stopped the turn: calls still waiting for their output
		// will never get it.
		for _, c := range d.open {
			if c.Status == "no-result" {
				c.Status = "interrupted"
			}
		}
		d.open = d.open[:0]
	case "patch_apply_end":
		if c := d.lookup(p.str(cxCallID)); c != nil && p.get(cxSuccess).Type == gjson.False {
			c.IsError = true
		}
	case "token_count":
		usage := value(noIndex.below(raw, "info", p[cxInfo], true, "last_token_usage", "output_tokens"))
		if usage.Type != gjson.Number {
			return
		}
		if d.tokens != nil && d.tokens.Tokens == 0 {
			d.tokens.Tokens = int(usage.Int())
		}
		d.tokens = nil
	}
}

// lookup returns the call with the given call_id, or the exec_command a
// write_stdin call polled.
func (d *codexDecoder) lookup(id string) *codexCall {
	if c := d.calls[id]; c != nil {
		return c
	}
	return d.polls[id]
}

// item reads one response item: a message, a call or a call's output.
func (d *codexDecoder) item(p *codexObject, n int, when time.Time) {
	d.msg++
	switch p.str(cxType) {
	case "message":
		text := codexContent(p[cxContent])
		switch p.str(cxRole) {
		case "assistant":
			d.text = d.keep(text)
		case "user":
			d.text = ""
			if m := envCwdRE.FindStringSubmatch(text); m != nil && strings.Contains(text, "<environment_context>") {
				setOnce(&d.s.Cwd, d.keep(strings.TrimSpace(m[1])))
			}
			setOnce(&d.titles[1], d.keep(codexTitle(text)))
		}
	case "function_call":
		d.functionCall(p, n, when)
	case "custom_tool_call":
		c := d.add(p.str(cxCallID), p.str(cxName), n, when)
		if c == nil {
			return
		}
		in := p.get(cxInput)
		if c.Tool == "apply_patch" {
			c.File = d.keep(patchFile(in.String()))
		} else if s := in.String(); in.Type == gjson.String && validFields(s, nil) && isObject(s[skipSpace(s, 0):]) {
			d.args(c.Call, s)
		} else if in.Type == gjson.String {
			c.Args = map[string]string{"input": d.keep(cut(s, maxArg))}
		}
	case "local_shell_call":
		id := p.str(cxCallID)
		if id == "" {
			id = p.str(cxID)
		}
		c := d.add(id, "local_shell_call", n, when)
		if c == nil {
			return
		}
		d.args(c.Call, p[cxAction])
		delete(c.Args, "type")
	case "function_call_output", "custom_tool_call_output":
		d.output(p, n, when)
	}
}

func (d *codexDecoder) functionCall(p *codexObject, n int, when time.Time) {
	id := p.str(cxCallID)
	// args is the raw argument value: the JSON a string holds, or an
	// object.
	var args string
	switch a := p.get(cxArguments); {
	case a.Type == gjson.String && validFields(a.Str, nil):
		args = a.Str
	case a.IsObject():
		args = a.Raw
	}
	if p.str(cxName) == "write_stdin" {
		if _, seen := d.polls[id]; !seen && id != "" {
			id = d.keep(id)
			sid := value(field(args, "session_id")).String()
			d.polls[id] = d.running[sid]
			if d.polls[id] == nil {
				d.orphans[id] = d.keep(sid)
			}
		}
		return
	}
	c := d.add(id, p.str(cxName), n, when)
	if c == nil {
		return
	}
	if c.Tool == "apply_patch" {
		c.File = d.keep(patchFile(value(field(args, "input")).String()))
		return
	}
	d.args(c.Call, args)
}

// add makes a new call, or returns nil for a call_id already read: a copy
// in a replayed history.
func (d *codexDecoder) add(id, tool string, n int, when time.Time) *codexCall {
	if id != "" && d.calls[id] != nil {
		return nil
	}
	id = d.keep(id)
	c := &Call{
		Msg:    d.msg,
		ID:     id,
		Tool:   d.keep(tool),
		Kind:   KindOf(tool),
		Start:  when,
		Text:   abridgeText(d.text),
		Status: "no-result",
		Pos:    Pos{File: d.s.Path, Line: n},
	}
	d.text = ""
	d.s.add(c)
	if d.tokens == nil {
		d.tokens = c
	}
	d.open = append(d.open, c)
	cc := &codexCall{Call: c}
	if id != "" {
		d.calls[id] = cc
	}
	return cc
}

// codexShellNames are the members of a tool's arguments that hold its
// shell command.
var codexShellNames = []string{"command", "cmd"}

// args fills in c's command, file and arguments from a tool's raw argument
// value, whose shell command is an argv array (shell, local_shell_call), a
// string (shell_command) or the string "cmd" (exec_command).
func (d *codexDecoder) args(c *Call, raw string) {
	setInputRaw(c, raw, d.keep, d.keep)
	if c.Kind != Shell {
		return
	}
	var f [2]string
	fields(raw, codexShellNames, f[:])
	if isArray(f[0]) {
		var argv []string
		eachElement(f[0], func(a string) bool {
			argv = append(argv, value(a).String())
			return true
		})
		c.Command = d.keep(argvLine(argv))
	} else if cmd := value(f[1]); c.Command == "" && cmd.Type == gjson.String {
		c.Command = d.keep(cmd.Str)
		delete(c.Args, "cmd")
	}
	if c.Args == nil {
		return
	}
	if wd := c.Args["working_directory"]; wd != "" {
		// local_shell_call's name for what the other tools call workdir.
		delete(c.Args, "working_directory")
		c.Args["workdir"] = wd
	}
}

func (d *codexDecoder) output(p *codexObject, n int, when time.Time) {
	id := p.str(cxCallID)
	if d.outputs[id] {
		return // a replayed copy of an output already read
	}
	text, failed := codexOutput(p[cxOutput])
	if c, ok := d.polls[id]; ok {
		d.outputs[d.keep(id)] = true
		if c == nil {
			d.s.skip(n, "write_stdin output for session "+strconv.Quote(d.orphans[id])+", which no exec_command started")
			return
		}
		d.poll(c, text, when)
		return
	}
	c := d.calls[id]
	if c == nil {
		d.s.skip(n, p.str(cxType)+" for unknown call "+strconv.Quote(id))
		return
	}
	d.outputs[d.keep(id)] = true
	c.Status = ""
	c.End = when
	c.IsError = c.IsError || failed
	res := parseExec(text)
	c.Output = d.keep(abridge(res.out))
	if !c.endExit && res.exit != nil {
		c.Exit = res.exit
	}
	if res.session != "" && c.Exit == nil {
		// Polls will add to the output: keep it whole until then.
		c.output = d.keep(res.out)
		c.Status = "running"
		d.running[d.keep(res.session)] = c
	}
	switch {
	case c.Tool == "apply_patch":
		c.IsError = c.IsError || (c.Exit != nil && *c.Exit != 0) || patchFailedRE.MatchString(res.out)
	case !res.ok:
		c.IsError = c.IsError || toolFailedRE.MatchString(text)
	}
}

// poll appends the output of a write_stdin poll to the exec_command call c,
// and takes the exit code once the process has ended.
func (d *codexDecoder) poll(c *codexCall, text string, when time.Time) {
	res := parseExec(text)
	c.output = d.keep(c.output + res.out)
	c.Output = abridge(c.output)
	c.End = when
	if res.exit != nil {
		if !c.endExit {
			c.Exit = res.exit
		}
		if c.Status == "running" {
			c.Status = ""
		}
	}
}

// execEvent reads one event of the `codex exec --json` stream.
func (d *codexDecoder) execEvent(typ string, rec *codexRecord, n int) {
	switch typ {
	case "thread.started":
		setOnce(&d.s.ID, d.keep(rec.top.str(cxThreadID)))
	case "turn.started":
		d.text = ""
	case "turn.failed":
		msg := firstLine(value(noIndex.below(d.line, "error", rec.top[cxError], true, "message")).String(), 200)
		if msg == "" {
			msg = "no message"
		}
		d.s.Notes = append(d.s.Notes, "a turn failed: "+msg)
	case "item.started", "item.updated", "item.completed":
		d.execItem(rec.top[cxItem], &rec.item, n)
	}
}

// execItem reads one state of an exec stream item, the raw value raw with
// the members it, which are all "" when raw is not an object. The first
// state of an item makes its call; later states update it.
func (d *codexDecoder) execItem(raw string, it *codexObject, n int) {
	id := it.str(cxID)
	c, seen := d.items[id]
	if id == "" {
		c, seen = nil, false // an item without an id is new each time
	}
	if !seen {
		d.msg++
	}
	typ := it.str(cxType)
	if typ == "agent_message" {
		d.text = d.keep(it.str(cxText))
	}
	if typ != "command_execution" && typ != "file_change" && typ != "mcp_tool_call" {
		if !seen && id != "" {
			d.items[d.keep(id)] = nil
		}
		return
	}
	if c == nil {
		tool := typ
		if typ == "mcp_tool_call" {
			tool = it.str(cxTool)
		}
		if c = d.add(id, tool, n, time.Time{}); c == nil {
			return // the id of a call already read
		}
		if id != "" {
			d.items[c.ID] = c
		}
	}
	status := it.str(cxStatus)
	c.Status = d.keep(status)
	c.IsError = status == "failed" || status == "declined"
	switch typ {
	case "command_execution":
		c.Command = d.keep(unwrapShell(it.str(cxCommand)))
		c.Output = d.keep(abridge(it.str(cxAggregatedOutput)))
		if exit := it.get(cxExitCode); exit.Type == gjson.Number {
			code := int(exit.Int())
			c.Exit = &code
		}
	case "file_change":
		var paths []string
		var path [1]string
		eachValueFields(it[cxChanges], codexPathName, path[:], func(string) bool {
			paths = append(paths, value(path[0]).String())
			return true
		})
		if len(paths) > 0 {
			c.File = d.keep(paths[0])
		}
		if len(paths) > 1 {
			c.Args = map[string]string{"files": d.keep(cut(strings.Join(paths, " "), maxArg))}
		}
	case "mcp_tool_call":
		c.Args = nil
		setInputRaw(c.Call, it[cxArguments], d.keep, d.keep)
		if server := it.str(cxServer); server != "" {
			if c.Args == nil {
				c.Args = make(map[string]string)
			}
			c.Args["server"] = d.keep(cut(server, maxArg))
		}
		if e := it[cxError]; e != "" && e != "null" {
			c.IsError = true
			c.Output = d.keep(abridge(value(field(e, "message")).String()))
		} else {
			c.Output = d.keep(abridge(codexContent(noIndex.below(raw, "result", it[cxResult], true, "content"))))
		}
	}
}

// codexPathName names the member of a file change that the decoder reads.
var codexPathName = []string{"path"}

// An execResult is a command's output with Codex's header or JSON wrapper
// taken off.
type execResult struct {
	out     string
	exit    *int
	session string // session id of a unified exec process still running
	ok      bool   // a header or wrapper was found
}

// parseExec reads the forms Codex gives a command's output in: the JSON
// {"output", "metadata": {"exit_code"}} of shell, and the text headers of
// shell_command ("Exit code: N", "Wall time: …", "Output:") and of
// exec_command and write_stdin ("Process exited with code N", "Process
// running with session ID S"). Other text is returned as it is.
func parseExec(text string) execResult {
	if strings.HasPrefix(text, "{") {
		var v [2]string
		var meta [1]string
		set := fieldSet{names: execJSONNames, vals: v[:], inner: []*fieldSet{nil, {names: exitCodeName, vals: meta[:]}}}
		if validFields(text, &set) && isString(v[0]) && isObject(v[1]) {
			res := execResult{out: unquote(v[0]), ok: true}
			if e := value(meta[0]); e.Type == gjson.Number {
				code := int(e.Int())
				res.exit = &code
			}
			return res
		}
	}
	raw := execResult{out: text}
	var res execResult
	rest := text
	for i := 0; ; i++ {
		line, after, more := strings.Cut(rest, "\n")
		line = strings.TrimSuffix(line, "\r")
		var num string
		switch {
		case line == "Output:" && i > 0:
			res.out, res.ok = after, true
			return res
		case strings.HasPrefix(line, "Exit code: "):
			num = strings.TrimPrefix(line, "Exit code: ")
		case strings.HasPrefix(line, "Process exited with code "):
			num = strings.TrimPrefix(line, "Process exited with code ")
		case strings.HasPrefix(line, "Process running with session ID "):
			res.session = strings.TrimPrefix(line, "Process running with session ID ")
		case strings.HasPrefix(line, "Wall time: "), strings.HasPrefix(line, "Chunk ID: "),
			strings.HasPrefix(line, "Original token count: "), strings.HasPrefix(line, "Total output lines: "):
		default:
			return raw
		}
		if num != "" {
			code, err := strconv.Atoi(num)
			if err != nil {
				return raw
			}
			res.exit = &code
		}
		if !more {
			return raw
		}
		rest = after
	}
}

// patchFailedRE matches what apply_patch says when a patch does not apply.
var patchFailedRE = regexp.MustCompile(`(?i)^(?:apply_patch verification failed|failed to (?:apply|find|parse)|invalid (?:patch|hunk)|patch rejected|error)`)

// toolFailedRE matches Codex's own errors for a call it could not run.
var toolFailedRE = regexp.MustCompile(`^(?:failed to parse function arguments|unsupported call|unsupported custom tool call)`)

var envCwdRE = regexp.MustCompile(`<cwd>([^<]*)</cwd>`)

// execJSONNames are the members of shell's JSON output, and exitCodeName
// the member of its metadata, that parseExec reads.
var (
	execJSONNames = []string{"output", "metadata"}
	exitCodeName  = []string{"exit_code"}
)

// codexOutput returns the text of a call's raw output, which is a string,
// a list of content items, one content item, or, in early builds, an object
// {content, success}; failed reports success false.
func codexOutput(raw string) (text string, failed bool) {
	switch {
	case isString(raw):
		return unquote(raw), false
	case isArray(raw):
		return codexContent(raw), false
	case isObject(raw):
		var f [3]string
		fields(raw, outputNames, f[:])
		if f[0] != "" {
			return codexContent(f[0]), value(f[1]).Type == gjson.False
		}
		return value(f[2]).String(), false
	}
	return "", false
}

// outputNames are the members of an output object that codexOutput reads.
var outputNames = []string{"content", "success", "text"}

// codexContent returns the text of a raw content list, or of a string.
func codexContent(raw string) string {
	if !isArray(raw) {
		return value(raw).String()
	}
	var b strings.Builder
	var f [2]string
	eachElementFields(raw, contentNames, f[:], func(string) bool {
		var s string
		switch t := value(f[0]).String(); {
		case strings.HasSuffix(t, "image"):
			s = "[image]"
		case f[1] != "":
			s = value(f[1]).String()
		default:
			return true
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
		return true
	})
	return b.String()
}

// contentNames are the members of a content item that codexContent reads.
var contentNames = []string{"type", "text"}

// codexTitle turns a user message into a title, unless it is text Codex
// injects: AGENTS.md instructions, the environment context.
func codexTitle(s string) string {
	if strings.HasPrefix(strings.TrimSpace(s), "# AGENTS.md instructions") {
		return ""
	}
	return promptTitle(s)
}

// patchFile returns the first file an apply_patch patch adds, updates or
// deletes.
func patchFile(patch string) string {
	for line := range strings.Lines(patch) {
		line = strings.TrimSpace(line)
		for _, p := range []string{"*** Update File: ", "*** Add File: ", "*** Delete File: "} {
			if f, ok := strings.CutPrefix(line, p); ok {
				return strings.TrimSpace(f)
			}
		}
	}
	return ""
}

// shells run the script given after -c or -lc.
var shells = map[string]bool{"bash": true, "sh": true, "zsh": true}

// argvLine turns an argv into a shell command line: the script of
// ["bash", "-lc", script], or the words quoted and joined.
func argvLine(argv []string) string {
	if len(argv) == 3 && shells[path.Base(argv[0])] && (argv[1] == "-lc" || argv[1] == "-c") {
		return argv[2]
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		q, err := syntax.Quote(a, syntax.LangBash)
		if err != nil {
			q = strconv.Quote(a)
		}
		words[i] = q
	}
	return strings.Join(words, " ")
}

// unwrapShell returns the script of a command line `bash -lc 'script'`, as
// the exec stream writes shell calls, or the line itself.
func unwrapShell(line string) string {
	f, err := shparse.Parse(syntax.NewParser(), line)
	if err != nil || len(f.Stmts) != 1 {
		return line
	}
	st := f.Stmts[0]
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || st.Negated || st.Background || len(st.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) != 3 {
		return line
	}
	var words [3]string
	for i, w := range call.Args {
		if words[i], ok = literal(w); !ok {
			return line
		}
	}
	if shells[path.Base(words[0])] && (words[1] == "-lc" || words[1] == "-c") {
		return words[2]
	}
	return line
}

// literal returns the value of a word made only of plain text and quotes.
func literal(w *syntax.Word) (string, bool) {
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsRune(p.Value, '\\') {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				lit, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsRune(lit.Value, '\\') {
					return "", false
				}
				b.WriteString(lit.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
