package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"

	"mvdan.cc/sh/v3/syntax"

	"github.com/retrace-dev/retrace/internal/shparse"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
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
	if isEnvgym(head) {
		return true
	}
	for line, complete := range headObjects(head) {
		r, ok := rawjson.Parse(bytesString(line))
		if !ok {
			if codexCutRE.Match(line) || codexLegacyCutRE.Match(line) {
				return true
			}
			if !complete {
				return false
			}
			continue // malformed: the decoder reports it, the next record decides
		}
		typ := r.Get("type")
		switch {
		case typ.Kind() == rawjson.String && codexWrapped[typ.Text()]:
			return r.Get("payload").Kind() == rawjson.Object && r.Get("timestamp").Kind() == rawjson.String
		case typ.Kind() == rawjson.String && codexExecEvents[typ.Text()]:
			return true
		case !typ.Exists() && !r.Get("payload").Exists():
			return r.Get("record_type").Text() == "state" ||
				(r.Get("id").Kind() == rawjson.String && r.Get("timestamp").Kind() == rawjson.String &&
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

	// doc is the record being read, in the line reader's buffer, which
	// the next line overwrites: what is kept of it goes through doc.Keep.
	doc rawjson.Doc

	typescript bool // the log is EnvGym's, of the TypeScript CLI
}

func decodeCodex(r io.Reader, name string) (*Session, error) {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReader(r)
	}
	r = br
	typescript := false
	if head, _ := br.Peek(len(envgymRule)); bytes.Equal(head, envgymRule) {
		r, typescript = newEnvgymReader(br), true
	}
	d := &codexDecoder{
		typescript: typescript,
		s:          &Session{Path: name, Format: "codex", Calls: []*Call{}},
		calls:      make(map[string]*codexCall),
		polls:      make(map[string]*codexCall),
		orphans:    make(map[string]string),
		running:    make(map[string]*codexCall),
		outputs:    make(map[string]bool),
		items:      make(map[string]*codexCall),
		msg:        -1,
	}
	err := forEachLine(r, d.s, func(line []byte, n int) {
		d.record(line, n)
		d.doc.Release() // the line's buffer may be let go
	})
	for _, t := range d.titles {
		if t != "" {
			d.s.Title = t
			break
		}
	}
	return d.s, err
}

// The members the decoder reads of a record, of its payload and of an
// exec stream item, by their index in codexNames. The three objects share
// the names: a legacy record is itself a response item.
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

var codexNames = rawjson.NewNames("type", "payload", "timestamp", "call_id", "name", "arguments", "output", "content",
	"role", "id", "input", "action", "info", "kind", "message", "exit_code", "success", "cwd", "model",
	"cli_version", "thread_id", "error", "item", "text", "tool", "status", "command", "aggregated_output",
	"changes", "server", "result")

// codexRecordNames are codexNames, and codexNames again in the payload and
// the item.
var codexRecordNames = codexNames.Nest(cxPayload, codexNames).Nest(cxItem, codexNames)

// A codexRecord holds the members of a record, and those of its payload
// and its item when they are objects. They are found in the pass that
// validates the record.
type codexRecord struct {
	top, payload, item rawjson.Fields
}

func (d *codexDecoder) record(line []byte, n int) {
	var rec codexRecord
	root, ok := d.doc.Record(bytesString(line), codexRecordNames, &rec.top, &rec.payload, &rec.item)
	if !d.s.objectRecord(n, line, root, ok) {
		return
	}
	top := &rec.top
	when := parseTime(top.Get(cxTimestamp).Text())
	d.s.dated(when)
	typ := top.Get(cxType).Text()
	switch {
	case top.Get(cxPayload).Exists():
		if top.Get(cxPayload).Kind() == rawjson.Object {
			d.wrapped(typ, &rec.payload, n, when)
		}
	case codexExecEvents[typ]:
		d.execEvent(typ, &rec, n)
	case !top.Get(cxType).Exists():
		// The legacy session line; state markers and the rest hold no
		// calls.
		if top.Get(cxID).Kind() == rawjson.String && top.Get(cxTimestamp).Exists() {
			setOnce(&d.s.ID, d.doc.Keep(top.Get(cxID).Text()))
		}
	default:
		d.item(top, n, when) // a bare item of the legacy era
	}
}

// wrapped reads a record of the wrapped era whose payload is an object,
// with the members p.
func (d *codexDecoder) wrapped(typ string, p *rawjson.Fields, n int, when time.Time) {
	switch typ {
	case "session_meta":
		if !d.meta {
			d.meta = true
			setOnce(&d.s.ID, d.doc.Keep(p.Get(cxID).Text()))
			setOnce(&d.s.Cwd, d.doc.Keep(p.Get(cxCwd).Text()))
			setOnce(&d.s.Agent, d.doc.Keep(p.Get(cxCLIVersion).Text()))
			return
		}
		if !d.replay {
			d.replay = true
			d.s.Notes = append(d.s.Notes, "the file replays the history of another session (a fork or resume): calls repeated from it are read once")
		}
	case "turn_context":
		setOnce(&d.s.Cwd, d.doc.Keep(p.Get(cxCwd).Text()))
		setOnce(&d.s.Model, d.doc.Keep(p.Get(cxModel).Text()))
	case "response_item":
		d.item(p, n, when)
	case "event_msg":
		d.event(p)
	case "compacted":
		d.text = ""
	}
}

// event reads the event_msg records that tell something the response items
// do not.
func (d *codexDecoder) event(p *rawjson.Fields) {
	switch p.Get(cxType).Text() {
	case "user_message":
		// Some builds mark injected text with a kind other than "plain".
		if kind := p.Get(cxKind); !kind.Exists() || kind.Text() == "plain" {
			setOnce(&d.titles[0], d.doc.Keep(codexTitle(p.Get(cxMessage).Text())))
		}
	case "exec_command_end":
		c := d.lookup(p.Get(cxCallID).Text())
		if c == nil {
			return
		}
		if exit := p.Get(cxExitCode); exit.Kind() == rawjson.Number {
			code := int(exit.Int())
			c.Exit, c.endExit = &code, true
			if c.Status == StatusRunning {
				c.Status = ""
			}
		}
	case "turn_aborted":
		// The user stopped the turn: calls still waiting for their output
		// will never get it.
		for _, c := range d.open {
			if c.Status == StatusNoResult {
				c.Status = StatusInterrupted
			}
		}
		d.open = d.open[:0]
	case "patch_apply_end":
		if c := d.lookup(p.Get(cxCallID).Text()); c != nil && isFalse(p.Get(cxSuccess)) {
			c.IsError = true
		}
	case "token_count":
		usage := p.Path(cxInfo, "last_token_usage", "output_tokens")
		if usage.Kind() != rawjson.Number {
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
func (d *codexDecoder) item(p *rawjson.Fields, n int, when time.Time) {
	d.msg++
	switch p.Get(cxType).Text() {
	case "message":
		text := codexContent(p.Get(cxContent))
		switch p.Get(cxRole).Text() {
		case "assistant":
			d.text = d.doc.Keep(text)
		case "user":
			d.text = ""
			if m := envCwdRE.FindStringSubmatch(text); m != nil && strings.Contains(text, "<environment_context>") {
				setOnce(&d.s.Cwd, d.doc.Keep(strings.TrimSpace(m[1])))
			}
			setOnce(&d.titles[1], d.doc.Keep(codexTitle(text)))
		}
	case "function_call":
		d.functionCall(p, n, when)
	case "custom_tool_call":
		c := d.add(p.Get(cxCallID).Text(), p.Get(cxName).Text(), n, when)
		if c == nil {
			return
		}
		in := p.Get(cxInput)
		if c.Tool == "apply_patch" {
			c.File = d.doc.Keep(patchFile(in.Text()))
		} else if in.Kind() == rawjson.String {
			if args, ok := rawjson.Parse(in.Text()); ok && args.Kind() == rawjson.Object {
				d.args(c.Call, args)
			} else {
				c.Args = map[string]string{"input": d.doc.Keep(termtext.Cut(in.Text(), maxArg))}
			}
		}
	case "local_shell_call":
		id := p.Get(cxCallID).Text()
		if id == "" {
			id = p.Get(cxID).Text()
		}
		c := d.add(id, "local_shell_call", n, when)
		if c == nil {
			return
		}
		d.args(c.Call, p.Get(cxAction))
		delete(c.Args, "type")
	case "function_call_output", "custom_tool_call_output":
		d.output(p, n, when)
	}
}

func (d *codexDecoder) functionCall(p *rawjson.Fields, n int, when time.Time) {
	id := p.Get(cxCallID).Text()
	// args is the argument value: the JSON a string holds, or an object.
	var args rawjson.Value
	switch a := p.Get(cxArguments); a.Kind() {
	case rawjson.String:
		args, _ = rawjson.Parse(a.Text())
	case rawjson.Object:
		args = a
	}
	if p.Get(cxName).Text() == "write_stdin" {
		if _, seen := d.polls[id]; !seen && id != "" {
			id = d.doc.Keep(id)
			sid := args.Get("session_id").Text()
			d.polls[id] = d.running[sid]
			if d.polls[id] == nil {
				d.orphans[id] = d.doc.Keep(sid)
			}
		}
		return
	}
	c := d.add(id, p.Get(cxName).Text(), n, when)
	if c == nil {
		return
	}
	if c.Tool == "apply_patch" {
		c.File = d.doc.Keep(patchFile(args.Get("input").Text()))
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
	id = d.doc.Keep(id)
	c := &Call{
		Msg:    d.msg,
		ID:     id,
		Tool:   d.doc.Keep(tool),
		Kind:   KindOf(tool),
		Start:  when,
		Text:   abridgeText(d.text),
		Status: StatusNoResult,
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

// The members of a tool's arguments that hold its shell command, by their
// index in codexShellNames.
const (
	shCommand = iota
	shCmd
)

var codexShellNames = rawjson.NewNames("command", "cmd")

// args fills in c's command, file and arguments from a tool's argument
// value, whose shell command is an argv array (shell, local_shell_call), a
// string (shell_command) or the string "cmd" (exec_command).
func (d *codexDecoder) args(c *Call, args rawjson.Value) {
	setInput(c, args, d.doc.Keep, d.doc.Keep)
	if c.Kind != KindShell {
		return
	}
	var f rawjson.Fields
	args.Pick(codexShellNames, &f)
	if command := f.Get(shCommand); command.Kind() == rawjson.Array {
		var argv []string
		for a := range command.Elements() {
			argv = append(argv, a.Text())
		}
		c.Command = d.doc.Keep(argvLine(argv))
	} else if cmd := f.Get(shCmd); c.Command == "" && cmd.Kind() == rawjson.String {
		c.Command = d.doc.Keep(cmd.Text())
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

func (d *codexDecoder) output(p *rawjson.Fields, n int, when time.Time) {
	id := p.Get(cxCallID).Text()
	if d.outputs[id] {
		return // a replayed copy of an output already read
	}
	text, failed := codexOutput(p.Get(cxOutput))
	if c, ok := d.polls[id]; ok {
		d.outputs[d.doc.Keep(id)] = true
		if c == nil {
			d.s.skip(n, "write_stdin output for session "+strconv.Quote(d.orphans[id])+", which no exec_command started")
			return
		}
		d.poll(c, text, when)
		return
	}
	c := d.calls[id]
	if c == nil {
		d.s.skip(n, p.Get(cxType).Text()+" for unknown call "+strconv.Quote(id))
		return
	}
	d.outputs[d.doc.Keep(id)] = true
	c.Status = ""
	c.End = when
	c.IsError = c.IsError || failed
	res := parseExec(text)
	c.Output = d.doc.Keep(abridge(res.out))
	if !c.endExit && res.exit != nil {
		c.Exit = res.exit
	}
	if note := killedByTimeout(c.Call, res, d.typescript); note != "" {
		c.Status, c.Note = StatusInterrupted, note
	}
	if res.session != "" && c.Exit == nil {
		// Polls will add to the output: keep it whole until then.
		c.output = d.doc.Keep(res.out)
		c.Status = StatusRunning
		d.running[d.doc.Keep(res.session)] = c
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
	c.output = d.doc.Keep(c.output + res.out)
	c.Output = abridge(c.output)
	c.End = when
	if res.exit != nil {
		if !c.endExit {
			c.Exit = res.exit
		}
		if c.Status == StatusRunning {
			c.Status = ""
		}
	}
}

// execEvent reads one event of the `codex exec --json` stream.
func (d *codexDecoder) execEvent(typ string, rec *codexRecord, n int) {
	switch typ {
	case "thread.started":
		setOnce(&d.s.ID, d.doc.Keep(rec.top.Get(cxThreadID).Text()))
	case "turn.started":
		d.text = ""
	case "turn.failed":
		msg := firstLine(rec.top.Path(cxError, "message").Text(), 200)
		if msg == "" {
			msg = "no message"
		}
		d.s.Notes = append(d.s.Notes, "a turn failed: "+msg)
	case "item.started", "item.updated", "item.completed":
		d.execItem(&rec.item, n)
	}
}

// execItem reads one state of an exec stream item, with the members it,
// which are all Missing when the item is not an object. The first state
// of an item makes its call; later states update it.
func (d *codexDecoder) execItem(it *rawjson.Fields, n int) {
	id := it.Get(cxID).Text()
	c, seen := d.items[id]
	if id == "" {
		c, seen = nil, false // an item without an id is new each time
	}
	if !seen {
		d.msg++
	}
	typ := it.Get(cxType).Text()
	if typ == "agent_message" {
		d.text = d.doc.Keep(it.Get(cxText).Text())
	}
	if typ != "command_execution" && typ != "file_change" && typ != "mcp_tool_call" {
		if !seen && id != "" {
			d.items[d.doc.Keep(id)] = nil
		}
		return
	}
	if c == nil {
		tool := typ
		if typ == "mcp_tool_call" {
			tool = it.Get(cxTool).Text()
		}
		if c = d.add(id, tool, n, time.Time{}); c == nil {
			return // the id of a call already read
		}
		if id != "" {
			d.items[c.ID] = c
		}
	}
	status := it.Get(cxStatus).Text()
	c.Status = Status(d.doc.Keep(status))
	c.IsError = status == "failed" || status == "declined"
	switch typ {
	case "command_execution":
		c.Command = d.doc.Keep(unwrapShell(it.Get(cxCommand).Text()))
		c.Output = d.doc.Keep(abridge(it.Get(cxAggregatedOutput).Text()))
		if exit := it.Get(cxExitCode); exit.Kind() == rawjson.Number {
			code := int(exit.Int())
			c.Exit = &code
		}
	case "file_change":
		var paths []string
		for change := range it.Get(cxChanges).Values() {
			paths = append(paths, change.Get("path").Text())
		}
		if len(paths) > 0 {
			c.File = d.doc.Keep(paths[0])
		}
		if len(paths) > 1 {
			c.Args = map[string]string{"files": d.doc.Keep(termtext.Cut(strings.Join(paths, " "), maxArg))}
		}
	case "mcp_tool_call":
		c.Args = nil
		setInput(c.Call, it.Get(cxArguments), d.doc.Keep, d.doc.Keep)
		if server := it.Get(cxServer).Text(); server != "" {
			if c.Args == nil {
				c.Args = make(map[string]string)
			}
			c.Args["server"] = d.doc.Keep(termtext.Cut(server, maxArg))
		}
		if e := it.Get(cxError); e.Exists() && e.Kind() != rawjson.Null {
			c.IsError = true
			c.Output = d.doc.Keep(abridge(e.Get("message").Text()))
		} else {
			c.Output = d.doc.Keep(abridge(codexContent(it.Path(cxResult, "content"))))
		}
	}
}

// An execResult is a command's output with Codex's header or JSON wrapper
// taken off.
type execResult struct {
	out     string
	exit    *int
	seconds *float64 // how long the command ran, where the wrapper says
	session string   // session id of a unified exec process still running
	ok      bool     // a header or wrapper was found
}

// parseExec reads the forms Codex gives a command's output in: the JSON
// {"output", "metadata": {"exit_code"}} of shell, and the text headers of
// shell_command ("Exit code: N", "Wall time: …", "Output:") and of
// exec_command and write_stdin ("Process exited with code N", "Process
// running with session ID S"). Other text is returned as it is.
func parseExec(text string) execResult {
	if strings.HasPrefix(text, "{") {
		var f, meta rawjson.Fields
		_, ok := rawjson.Record(text, execNames, &f, &meta)
		if out := f.Get(exOutput); ok && out.Kind() == rawjson.String && f.Get(exMetadata).Kind() == rawjson.Object {
			res := execResult{out: out.Text(), ok: true}
			if e := meta.Get(exExitCode); e.Kind() == rawjson.Number {
				code := int(e.Int())
				res.exit = &code
			}
			if d := meta.Get(exDuration); d.Kind() == rawjson.Number {
				secs := d.Float()
				res.seconds = &secs
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

// killedByTimeout says how the TypeScript CLI's own timeout stopped a
// call, or "": Node's spawn sends SIGTERM (exit 143) once the call has run
// as long as its `timeout` argument, in milliseconds, or 10 s without one.
// Agents that mean seconds get their commands stopped within a second.
// The Rust CLI reports its timeouts otherwise (exit 124, "command timed
// out"), and is not read so.
func killedByTimeout(c *Call, res execResult, typescript bool) string {
	if !typescript || c.Exit == nil || *c.Exit != 143 || res.seconds == nil {
		return ""
	}
	secs := *res.seconds
	limit := c.Args["timeout"]
	ms, err := strconv.ParseFloat(limit, 64)
	if limit == "" || err == nil && ms == 0 {
		limit, ms, err = "10000", 10000, nil // the CLI's default
	}
	// The run is timed to a tenth of a second, and the kill takes its time.
	if err != nil || ms < 0 || secs+0.1 < 0.9*ms/1000 {
		return ""
	}
	return fmt.Sprintf("timed out: killed by its timeout of %s ms after %s s", limit, strconv.FormatFloat(secs, 'f', -1, 64))
}

// patchFailedRE matches what apply_patch says when a patch does not apply.
var patchFailedRE = regexp.MustCompile(`(?i)^(?:apply_patch verification failed|failed to (?:apply|find|parse)|invalid (?:patch|hunk)|patch rejected|error)`)

// toolFailedRE matches Codex's own errors for a call it could not run.
var toolFailedRE = regexp.MustCompile(`^(?:failed to parse function arguments|unsupported call|unsupported custom tool call)`)

var envCwdRE = regexp.MustCompile(`<cwd>([^<]*)</cwd>`)

// The members of shell's JSON output that parseExec reads, by their index
// in execNames, and of its metadata, in metadataNames.
const (
	exOutput = iota
	exMetadata
)

const (
	exExitCode = iota
	exDuration
)

var (
	metadataNames = rawjson.NewNames("exit_code", "duration_seconds")
	execNames     = rawjson.NewNames("output", "metadata").Nest(exMetadata, metadataNames)
)

// codexOutput returns the text of a call's output, which is a string, a
// list of content items, one content item, or, in early builds, an object
// {content, success}; failed reports success false.
func codexOutput(out rawjson.Value) (text string, failed bool) {
	switch out.Kind() {
	case rawjson.String:
		return out.Text(), false
	case rawjson.Array:
		return codexContent(out), false
	case rawjson.Object:
		if content := out.Get("content"); content.Exists() {
			return codexContent(content), isFalse(out.Get("success"))
		}
		return out.Get("text").Text(), false
	}
	return "", false
}

// codexContent returns the text of a content list, or of a string.
func codexContent(content rawjson.Value) string {
	if content.Kind() != rawjson.Array {
		return content.Text()
	}
	var b strings.Builder
	var f rawjson.Fields
	for range content.PickEach(contentNames, &f) {
		var s string
		switch t := f.Get(ctType).Text(); {
		case strings.HasSuffix(t, "image"):
			s = "[image]"
		case f.Get(ctText).Exists():
			s = f.Get(ctText).Text()
		default:
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	return b.String()
}

// The members of a content item that codexContent reads, by their index
// in contentNames.
const (
	ctType = iota
	ctText
)

var contentNames = rawjson.NewNames("type", "text")

// isFalse reports whether v is false.
func isFalse(v rawjson.Value) bool { return v.Kind() == rawjson.Bool && !v.Bool() }

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
