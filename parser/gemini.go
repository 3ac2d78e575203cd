package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// Gemini CLI records a chat under ~/.gemini/tmp/<project>/chats/ in one of
// two eras, and saves it in two other shapes; all four are read here.
//
//   - session-*.json (until April 2026) and /export-session output: one JSON
//     ConversationRecord, {"sessionId", "projectHash", "startTime",
//     "lastUpdated", "messages": [...]}. It is read whole.
//   - session-*.jsonl (since April 2026): a header line with the same
//     metadata, then message records appended again each time they change
//     (the last version of an id wins, at the place of its first), metadata
//     updates {"$set": {...}}, whose "messages" replaces the whole list, and
//     {"$rewindTo": id}, which drops that message and all after it (all of
//     them when the id is unknown). It is streamed, keeping each message's
//     calls, already abridged, until the final list is known.
//   - /chat save checkpoints: raw Gemini API contents, {"history": [...]} or
//     a bare array of {"role": "user"|"model", "parts": [...]}, with calls
//     as functionCall parts and results as functionResponse parts, paired by
//     id or else by order and name. They record no times, statuses or model.
//
// A message is any record of the final list: user, gemini, info, error and
// warning messages all count, and a call's Msg is the index in that list of
// the gemini message holding it. In a checkpoint it is the index of the
// content in the history. Tool calls are the "toolCalls" of gemini
// messages; each has one timestamp, taken as the call's start. The shell
// tool's exit code is only in its output text, which is framed by labelled
// lines ("Output:", "Exit Code:", …) that geminiShell takes apart.

// geminiTypes are the message types of a ConversationRecord.
var geminiTypes = map[string]bool{"user": true, "gemini": true, "info": true, "error": true, "warning": true}

// matchGemini accepts a ConversationRecord (legacy .json, /export-session),
// a .jsonl whose header carries the same metadata, and a /chat save
// checkpoint. The first JSON value of head is read even when head ends
// inside it.
func matchGemini(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return false
	}
	doc := rawjson.Peek(bytesString(head))
	switch head[0] {
	case '[':
		return geminiContent(doc.Path("0"))
	case '{':
	default:
		return false
	}
	if geminiContent(doc.Path("history", "0")) {
		return true
	}
	if doc.Get("sessionId").Kind() != rawjson.String || doc.Get("projectHash").Kind() != rawjson.String {
		return false
	}
	// Claude Code lines carry a sessionId too, but never a projectHash. A
	// real record always has startTime; without it, ask for a message.
	if doc.Get("startTime").Kind() == rawjson.String || geminiTypes[doc.Path("messages", "0", "type").Text()] {
		return true
	}
	first := true
	for line := range bytes.Lines(head) {
		if first {
			first = false
			continue
		}
		if line = bytes.TrimSpace(line); len(line) == 0 {
			continue
		}
		rec := rawjson.Peek(bytesString(line))
		return rec.Get("$set").Kind() == rawjson.Object || rec.Get("$rewindTo").Kind() == rawjson.String ||
			(rec.Get("id").Kind() == rawjson.String && geminiTypes[rec.Get("type").Text()])
	}
	return false
}

// geminiContent reports whether c looks like a Gemini API content.
func geminiContent(c rawjson.Value) bool {
	role := c.Get("role").Text()
	return (role == "user" || role == "model") && c.Get("parts").Kind() == rawjson.Array
}

func decodeGemini(r io.Reader, name string) (*Session, error) {
	s := &Session{Path: name, Format: "gemini", Calls: []*Call{}}
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, HeadSize)
	}
	// A read error here comes again when the input is read.
	head, _ := br.Peek(HeadSize)
	if bytes.HasPrefix(head, bom) {
		br.Discard(len(bom))
		head = head[len(bom):]
	}
	if geminiDocument(head) {
		data, release, err := readWhole(br)
		defer release()
		if err != nil {
			err = fmt.Errorf("read %s: %w", s.Path, err)
		}
		readGeminiDocument(s, data)
		s.detach()
		return s, err
	}
	d := &geminiLog{s: s, byID: make(map[string]*geminiMsg)}
	err := forEachLine(br, s, d.record)
	d.finish()
	s.detach()
	return s, err
}

// geminiDocument tells a whole JSON document (a pretty-printed record, a
// checkpoint, a record on one line) from a .jsonl log, whose first line is a
// header without messages and whose other lines are objects.
func geminiDocument(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return false
	}
	if head[0] == '[' {
		return true
	}
	first, rest, _ := bytes.Cut(head, []byte("\n"))
	if r, ok := rawjson.Parse(bytesString(first)); ok {
		return r.Get("messages").Exists() || r.Get("history").Exists()
	}
	// A header broken in the middle still has records after it.
	for line := range bytes.Lines(rest) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			return line[0] != '{'
		}
	}
	return true
}

// A geminiMsg is what is kept of one message record.
type geminiMsg struct {
	id     string
	typ    string
	time   time.Time
	model  string
	prompt string  // first line of a user message, for the title
	calls  []*Call // Msg and Ordinal are set when the final list is known
}

// geminiMeta is the session metadata of a ConversationRecord.
type geminiMeta struct {
	id, summary, cwd, kind string
	start, end             time.Time
}

// The members of a ConversationRecord, a header or a $set record that the
// decoder reads, by their index in geminiMetaNames.
const (
	gmSessionID = iota
	gmSummary
	gmKind
	gmDirectories
	gmStartTime
	gmLastUpdated
	gmMessages
	gmHistory
)

var geminiMetaNames = rawjson.NewNames("sessionId", "summary", "kind", "directories", "startTime", "lastUpdated", "messages", "history")

// set takes the metadata in f, the members of a header, a $set record or
// a whole record.
func (m *geminiMeta) set(f *rawjson.Fields) {
	if v := f.Get(gmSessionID); v.Kind() == rawjson.String {
		m.id = v.Text()
	}
	if v := f.Get(gmSummary); v.Kind() == rawjson.String {
		m.summary = v.Text()
	}
	if v := f.Get(gmKind); v.Kind() == rawjson.String {
		m.kind = v.Text()
	}
	// directories lists the workspace directories; the first is the project
	// root the session runs in.
	if v := f.Get(gmDirectories); v.Kind() == rawjson.Array {
		m.cwd = ""
		for dir := range v.Elements() {
			m.cwd = dir.Text()
			break
		}
	}
	if t := parseTime(f.Get(gmStartTime).Text()); !t.IsZero() {
		m.start = t
	}
	if t := parseTime(f.Get(gmLastUpdated).Text()); !t.IsZero() {
		m.end = t
	}
}

// build fills in s from the metadata and the final message list, numbering
// the calls.
func (m *geminiMeta) build(s *Session, msgs []*geminiMsg) {
	s.ID = m.id
	s.Title = m.summary
	s.Cwd = m.cwd
	s.Start, s.End = m.start, m.end
	if m.kind == "subagent" {
		s.Notes = append(s.Notes, "this is a subagent's session: its prompt came from the main agent")
	}
	for i, g := range msgs {
		if g.typ == "user" {
			setOnce(&s.Title, g.prompt)
		}
		if g.typ == "gemini" {
			setOnce(&s.Model, g.model)
		}
		// lastUpdated is not rewritten when its update is lost.
		s.dated(g.time)
		for _, c := range g.calls {
			c.Msg = i
			s.add(c)
			if c.Start.After(s.End) {
				s.End = c.Start
			}
		}
	}
}

// The members of a message record that the decoder reads, by their index
// in geminiMsgNames.
const (
	gfID = iota
	gfType
	gfTimestamp
	gfModel
	gfDisplayContent
	gfContent
	gfToolCalls
	gfTokens
)

var geminiMsgNames = rawjson.NewNames("id", "type", "timestamp", "model", "displayContent", "content", "toolCalls", "tokens")

// A geminiReader reads messages and calls out of JSON text: a .jsonl
// record, or a whole document, which may be cut short at a syntax error:
// then its last values may be incomplete, and are not Valid.
type geminiReader struct {
	path string
	// lineAt turns the offset of a value in the text into its line number.
	lineAt func(off int) int
}

// readMsg keeps what is needed of message record m.
func (t *geminiReader) readMsg(m rawjson.Value) *geminiMsg {
	var f rawjson.Fields
	m.Pick(geminiMsgNames, &f)
	g := &geminiMsg{
		id:    f.Get(gfID).Text(),
		typ:   f.Get(gfType).Text(),
		time:  parseTime(f.Get(gfTimestamp).Text()),
		model: f.Get(gfModel).Text(),
	}
	if g.typ == "user" {
		text := t.text(f.Get(gfDisplayContent))
		if strings.TrimSpace(text) == "" {
			text = t.text(f.Get(gfContent))
		}
		if !geminiInjected(text) {
			g.prompt = firstLine(text, 100)
		}
	}
	calls := f.Get(gfToolCalls)
	if calls.Kind() != rawjson.Array {
		return g
	}
	text := abridgeText(t.text(f.Get(gfContent)))
	tokens := int(f.Path(gfTokens, "output").Int())
	for tc := range calls.Elements() {
		if !tc.Valid() {
			break // the cut-off end of a truncated record
		}
		c := t.call(tc, t.lineAt(tc.Offset()))
		if len(g.calls) == 0 {
			c.Text, c.Tokens = text, tokens
		}
		g.calls = append(g.calls, c)
	}
	return g
}

// The members of a ToolCallRecord that the decoder reads, by their index
// in geminiCallNames.
const (
	gcID = iota
	gcName
	gcTimestamp
	gcArgs
	gcResult
	gcResultDisplay
	gcStatus
)

var geminiCallNames = rawjson.NewNames("id", "name", "timestamp", "args", "result", "resultDisplay", "status")

// call reads one ToolCallRecord, valid JSON.
func (t *geminiReader) call(tc rawjson.Value, line int) *Call {
	var f rawjson.Fields
	tc.Pick(geminiCallNames, &f)
	c := &Call{
		ID:    f.Get(gcID).Text(),
		Tool:  f.Get(gcName).Text(),
		Start: parseTime(f.Get(gcTimestamp).Text()),
		Pos:   Pos{File: t.path, Line: line},
	}
	c.Kind = KindOf(c.Tool)
	setInput(c, f.Get(gcArgs), nil, nil)
	out, errText, ok := t.response(f.Get(gcResult))
	if display := f.Get(gcResultDisplay); !ok && display.Kind() == rawjson.String {
		out = display.Text()
	}
	geminiOutcome(c, Status(f.Get(gcStatus).Text()), out, errText)
	return c
}

// geminiOutcome sets c's output, exit code and status from its result text
// and error text and the record's status, which checkpoints do not have.
//
// Status "error" is a tool's own failure (bad arguments, a path outside the
// workspace, a spawn failure): IsError, with the error text as output. A
// shell command that exits non-zero is still "success"; its exit code is in
// the text. Status "cancelled" means the user denied the call or stopped it:
// it did not do what the agent asked, so it is an error too, and keeps the
// status word "cancelled" so that readers can tell a refusal from a failure.
// Statuses of calls still in flight (scheduled, executing, …) mean the
// session stopped during the call: "interrupted", as other formats say.
func geminiOutcome(c *Call, status Status, out, errText string) {
	var sh geminiShellResult
	if c.Kind == KindShell {
		sh = geminiShell(out)
		out = sh.out
		c.Exit = sh.exit
	}
	switch status {
	case "success":
		c.Status = status
		if out == "" {
			out = errText
		}
	case "":
		// A checkpoint: an error response is the only sign of failure.
		c.Status = ""
		if errText != "" {
			c.IsError = true
			if strings.HasPrefix(errText, "[Operation Cancelled]") {
				c.Status = StatusCancelled
			}
			out = joinLines(errText, out)
		}
	case StatusError:
		c.Status = status
		c.IsError = true
		if errText != "" {
			out = errText
		}
	case StatusCancelled:
		c.Status = status
		c.IsError = true
		out = joinLines(errText, out)
	default:
		c.Status = StatusInterrupted
	}
	// Since January 2026 the shell tool prints "Exit Code:" only when it is
	// not zero.
	if c.Kind == KindShell && sh.framed && !sh.exitLine && !sh.signal && !sh.failed && !c.IsError && c.Status != StatusInterrupted {
		zero := 0
		c.Exit = &zero
	}
	c.Output = abridge(out)
}

// The members of a result part that the decoder reads, by their index in
// geminiPartNames.
const (
	gpFunctionResponse = iota
	gpText
	gpInlineData
	gpFileData
)

var geminiPartNames = rawjson.NewNames("functionResponse", "text", "inlineData", "fileData")

// response returns the output and error texts of a tool result: a list of
// parts (functionResponse, text, inline data) or a single one. ok is false
// when there is no result at all.
func (t *geminiReader) response(res rawjson.Value) (out, errText string, ok bool) {
	if !res.Exists() || res.Kind() == rawjson.Null {
		return "", "", false
	}
	var outs, errs []string
	part := func(p rawjson.Value) {
		if p.Kind() == rawjson.String {
			outs = append(outs, p.Text())
			return
		}
		var f rawjson.Fields
		p.Pick(geminiPartNames, &f)
		switch {
		case f.Get(gpFunctionResponse).Kind() == rawjson.Object:
			r := f.Path(gpFunctionResponse, "response")
			output, e := r.Get("output"), r.Get("error")
			if output.Exists() {
				outs = append(outs, geminiScalar(output))
			}
			if e.Exists() {
				errs = append(errs, geminiScalar(e))
			}
			if !output.Exists() && !e.Exists() && r.Exists() {
				outs = append(outs, r.Raw()) // an MCP tool's own shape
			}
		case f.Get(gpText).Kind() == rawjson.String:
			outs = append(outs, f.Get(gpText).Text())
		case f.Get(gpInlineData).Kind() == rawjson.Object:
			outs = append(outs, "["+f.Path(gpInlineData, "mimeType").Text()+" data]")
		case f.Get(gpFileData).Kind() == rawjson.Object:
			outs = append(outs, "["+f.Path(gpFileData, "fileUri").Text()+"]")
		}
	}
	if res.Kind() == rawjson.Array {
		for p := range res.Elements() {
			part(p)
		}
	} else {
		part(res)
	}
	return strings.Join(outs, "\n"), strings.Join(errs, "\n"), true
}

// geminiScalar returns the text of a string, or else the JSON of the
// value.
func geminiScalar(v rawjson.Value) string {
	if v.Kind() == rawjson.String {
		return v.Text()
	}
	return v.Raw()
}

// The members of a content part that text reads, by their index in
// geminiTextNames.
const (
	gtThought = iota
	gtText
)

var geminiTextNames = rawjson.NewNames("thought", "text")

// text returns the text of a message's content: a string, a list of parts
// and strings, or one part. Thoughts are left out.
func (t *geminiReader) text(content rawjson.Value) string {
	switch content.Kind() {
	case rawjson.String:
		return content.Text()
	case rawjson.Array:
		var b strings.Builder
		for p := range content.Elements() {
			b.WriteString(t.text(p))
		}
		return b.String()
	case rawjson.Object:
		var f rawjson.Fields
		content.Pick(geminiTextNames, &f)
		if !f.Get(gtThought).Bool() {
			return f.Get(gtText).Text()
		}
	}
	return ""
}

func joinLines(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// A geminiShellResult is the shell tool's output text taken apart.
type geminiShellResult struct {
	out      string // what the command printed, stdout then stderr
	exit     *int   // the "Exit Code:" value; nil when absent or "(none)"
	exitLine bool   // there was an "Exit Code:" line
	framed   bool   // the text had the tool's "Output:" or "Stdout:" frame
	signal   bool   // a "Signal:" line names a signal
	failed   bool   // an "Error:" line says the command could not run
}

// geminiShellTrailer lists the labelled lines the shell tool puts after
// the output, last first. Each appears at most once.
var geminiShellTrailer = []string{"Process Group PGID: ", "Background PIDs: ", "Signal: ", "Exit Code: ", "Error: "}

// geminiShell takes apart the text Gemini CLI's shell tool returns. It has
// had three layouts, all of them possibly wrapped (since June 2026) in
// <untrusted_context> tags:
//
//   - until mid-2025: Command:, Directory:, Stdout:, Stderr:, Error:,
//     Exit Code:, Signal:, Background PIDs:, Process Group PGID:, with
//     "(empty)" and "(none)" for missing values;
//   - until January 2026: the same with one Output: for stdout and stderr;
//   - since: Output:, then Error:, Exit Code: (only when not zero), Signal:,
//     Background PIDs: and Process Group PGID: each only when there is one.
//
// The command's output is kept, with stderr after stdout, and with any
// Error: or Signal: line that carries a value, since those explain a
// failure. Text in none of these layouts (a cancelled or backgrounded
// command, a summary) is returned as it is.
func geminiShell(text string) geminiShellResult {
	t := geminiUnwrap(text)
	var r geminiShellResult
	if rest, ok := strings.CutPrefix(t, "Command: "); ok {
		t = geminiAfterDirectory(rest, t)
	}
	var kept []string // trailer lines kept in the output, last first
	for _, label := range geminiShellTrailer {
		rest, last := "", t
		if i := strings.LastIndexByte(t, '\n'); i >= 0 {
			rest, last = strings.TrimSuffix(t[:i], "\r"), t[i+1:]
		}
		v, ok := strings.CutPrefix(strings.TrimSuffix(last, "\r"), label)
		if !ok {
			continue
		}
		t = rest
		v = strings.TrimSpace(v)
		switch label {
		case "Exit Code: ":
			r.exitLine = true
			if n, err := strconv.Atoi(v); err == nil {
				r.exit = &n
			}
		case "Signal: ":
			// Some 2025 builds print 0 for no signal.
			if v != "(none)" && v != "0" && v != "" {
				r.signal = true
				kept = append(kept, last)
			}
		case "Error: ":
			if v != "(none)" {
				r.failed = true
				kept = append(kept, last)
			}
		}
	}
	switch {
	case strings.HasPrefix(t, "Output: ") || t == "Output:":
		r.framed = true
		t = strings.TrimPrefix(strings.TrimPrefix(t, "Output:"), " ")
		if t == "(empty)" {
			t = ""
		}
	case strings.HasPrefix(t, "Stdout: ") || t == "Stdout:":
		r.framed = true
		t = strings.TrimPrefix(strings.TrimPrefix(t, "Stdout:"), " ")
		stdout, stderr := t, ""
		if i := strings.LastIndex(t, "\nStderr:"); i >= 0 {
			stdout = t[:i]
			stderr = strings.TrimPrefix(t[i+len("\nStderr:"):], " ")
		}
		if stdout == "(empty)" {
			stdout = ""
		}
		if stderr == "(empty)" {
			stderr = ""
		}
		t = joinLines(stdout, stderr)
	default:
		if len(kept) == 0 && !r.exitLine && t == geminiUnwrap(text) {
			return geminiShellResult{out: t}
		}
	}
	for i := len(kept) - 1; i >= 0; i-- {
		t = joinLines(t, kept[i])
	}
	r.out = t
	return r
}

// geminiAfterDirectory returns what follows the Directory: line that ends
// a command, which may span lines: the first such line followed by the
// output's label, else the first such line. It returns t when there is none.
func geminiAfterDirectory(rest, t string) string {
	after := ""
	found := false
	for {
		i := strings.Index(rest, "\nDirectory: ")
		if i < 0 {
			break
		}
		_, next, _ := strings.Cut(rest[i+1:], "\n")
		if strings.HasPrefix(next, "Output:") || strings.HasPrefix(next, "Stdout:") {
			return next
		}
		if !found {
			after, found = next, true
		}
		rest = rest[i+1:]
	}
	if found {
		return after
	}
	return t
}

// geminiUnwrap removes the <untrusted_context> tags newer builds put around
// tool output.
func geminiUnwrap(s string) string {
	t := strings.TrimSpace(s)
	body, ok := strings.CutSuffix(t, "</untrusted_context>")
	if !strings.HasPrefix(t, "<untrusted_context") || !ok {
		return s
	}
	// The opening tag ends before the closing one.
	i := strings.IndexByte(body, '>')
	if i < 0 {
		return s
	}
	inner := body[i+1:]
	inner = strings.TrimPrefix(strings.TrimPrefix(inner, "\r"), "\n")
	inner = strings.TrimSuffix(strings.TrimSuffix(inner, "\n"), "\r")
	return inner
}

// A geminiLog reads a .jsonl chat record line by line.
type geminiLog struct {
	s     *Session
	meta  geminiMeta
	order []string              // ids of the current message list, in order
	byID  map[string]*geminiMsg // last version of each listed message
}

// The members of a .jsonl record that tell its kind, by their index in
// geminiRecordNames.
const (
	grRewindTo = iota
	grID
	grSet
	grSessionID
	grProjectHash
)

var geminiRecordNames = rawjson.NewNames("$rewindTo", "id", "$set", "sessionId", "projectHash")

func (d *geminiLog) record(line []byte, n int) {
	// A copy: the messages read keep parts of it until the session is
	// detached.
	var f rawjson.Fields
	rec, ok := rawjson.Record(string(line), geminiRecordNames, &f)
	if !d.s.objectRecord(n, line, rec, ok) {
		return
	}
	r := &geminiReader{path: d.s.Path, lineAt: func(int) int { return n }}
	// The order of the tests is Gemini CLI's own.
	switch {
	case f.Get(grRewindTo).Kind() == rawjson.String:
		d.rewind(f.Get(grRewindTo).Text())
	case f.Get(grID).Kind() == rawjson.String:
		d.put(r.readMsg(rec))
	case f.Get(grSet).Kind() == rawjson.Object:
		var meta rawjson.Fields
		f.Get(grSet).Pick(geminiMetaNames, &meta)
		d.meta.set(&meta)
		if msgs := meta.Get(gmMessages); msgs.Kind() == rawjson.Array {
			d.order = d.order[:0]
			clear(d.byID)
			for m := range msgs.Elements() {
				if m.Get("id").Kind() == rawjson.String {
					d.put(r.readMsg(m))
				}
			}
		}
	case f.Get(grSessionID).Kind() == rawjson.String && f.Get(grProjectHash).Kind() == rawjson.String:
		var meta rawjson.Fields
		rec.Pick(geminiMetaNames, &meta)
		d.meta.set(&meta)
	}
}

// put adds a message, or replaces an earlier version in its place.
func (d *geminiLog) put(g *geminiMsg) {
	if _, ok := d.byID[g.id]; !ok {
		d.order = append(d.order, g.id)
	}
	d.byID[g.id] = g
}

// rewind drops message id and all after it, or every message when id is
// not in the list.
func (d *geminiLog) rewind(id string) {
	i := len(d.order) - 1
	for i >= 0 && d.order[i] != id {
		i--
	}
	if i < 0 {
		i = 0
	}
	for _, gone := range d.order[i:] {
		delete(d.byID, gone)
	}
	d.order = d.order[:i]
}

func (d *geminiLog) finish() {
	msgs := make([]*geminiMsg, len(d.order))
	for i, id := range d.order {
		msgs[i] = d.byID[id]
	}
	d.meta.build(d.s, msgs)
}

// readGeminiDocument adds to s what data, a whole-document record or
// checkpoint, holds. A truncated document gives the calls that are complete
// in it; a broken one, those before the error.
func readGeminiDocument(s *Session, data []byte) {
	lines := &lineCounter{data: data, line: 1}
	// The session's strings share data's bytes until it is detached.
	text := bytesString(data)
	doc, ok := rawjson.Index(text)
	if !ok {
		start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
		if start == len(data) {
			return
		}
		msg, off := jsonError(data[start:])
		line := 0
		if off >= 0 {
			line = lines.at(start + int(off))
		}
		s.skip(line, msg+"; calls before it are still read")
		// Like gjson, which read broken documents before, pass over any
		// control character before the value, not only white space.
		for start < len(data) && data[start] <= ' ' {
			start++
		}
		doc = rawjson.NewDoc(text[:start+rawjson.Prefix(text[start:])])
	}
	rd := &geminiReader{path: s.Path, lineAt: lines.at}
	root := doc.Root()
	if root.Kind() == rawjson.Array {
		rd.readCheckpoint(s, root)
		return
	}
	var f rawjson.Fields
	root.Pick(geminiMetaNames, &f)
	if !f.Get(gmMessages).Exists() && f.Get(gmHistory).Kind() == rawjson.Array {
		rd.readCheckpoint(s, f.Get(gmHistory))
		return
	}
	var meta geminiMeta
	meta.set(&f)
	var msgs []*geminiMsg
	for m := range f.Get(gmMessages).Values() {
		msgs = append(msgs, rd.readMsg(m))
	}
	meta.build(s, msgs)
}

// The members of a checkpoint's content and of its parts that
// readCheckpoint reads, by their index in checkpointContentNames and
// checkpointPartNames.
const (
	ccRole = iota
	ccParts
)

const (
	cpFunctionCall = iota
	cpFunctionResponse
	cpText
	cpThought
)

var (
	checkpointContentNames = rawjson.NewNames("role", "parts")
	checkpointPartNames    = rawjson.NewNames("functionCall", "functionResponse", "text", "thought")
)

// readCheckpoint reads the calls of a /chat save checkpoint, a list of
// Gemini API contents.
func (t *geminiReader) readCheckpoint(s *Session, contents rawjson.Value) {
	s.Notes = append(s.Notes, "a /chat save checkpoint records no times, statuses or model; calls are paired with their responses by id, or else by order and name")
	type pendingCall struct {
		c  *Call
		id string // the functionCall's own id, often absent
	}
	var pending []pendingCall
	take := func(id, name string) *Call {
		at := -1
		for i, p := range pending {
			if id != "" && p.id == id {
				at = i
				break
			}
			if at < 0 && p.c.Tool == name {
				at = i
				if id == "" {
					break
				}
			}
		}
		if at < 0 {
			return nil
		}
		c := pending[at].c
		pending = append(pending[:at], pending[at+1:]...)
		return c
	}
	i := -1
	for content := range contents.Elements() {
		i++
		var cf rawjson.Fields
		content.Pick(checkpointContentNames, &cf)
		role := cf.Get(ccRole).Text()
		text := ""
		first := true
		var f rawjson.Fields
		for p := range cf.Get(ccParts).Values() {
			if !p.Valid() {
				break // the cut-off end of a truncated checkpoint
			}
			line := t.lineAt(p.Offset())
			p.Pick(checkpointPartNames, &f)
			switch fc, fr := f.Get(cpFunctionCall), f.Get(cpFunctionResponse); {
			case fc.Kind() == rawjson.Object:
				c := &Call{
					Msg:    i,
					ID:     fc.Get("id").Text(),
					Tool:   fc.Get("name").Text(),
					Status: StatusNoResult,
					Pos:    Pos{File: s.Path, Line: line},
				}
				c.Kind = KindOf(c.Tool)
				setInput(c, fc.Get("args"), nil, nil)
				if first {
					c.Text = abridgeText(text)
					first = false
				}
				pending = append(pending, pendingCall{c, c.ID})
				s.add(c)
			case fr.Kind() == rawjson.Object:
				name := fr.Get("name").Text()
				c := take(fr.Get("id").Text(), name)
				if c == nil {
					s.skip(line, "functionResponse for unknown functionCall "+strconv.Quote(name))
					continue
				}
				out, errText, _ := t.response(p)
				geminiOutcome(c, "", out, errText)
			case f.Get(cpText).Kind() == rawjson.String && !f.Get(cpThought).Bool():
				if role == "model" {
					text = f.Get(cpText).Text()
				} else if s.Title == "" && !geminiInjected(f.Get(cpText).Text()) {
					s.Title = firstLine(f.Get(cpText).Text(), 100)
				}
			}
		}
	}
}

// geminiInjected reports user text that Gemini CLI writes itself, which is
// no prompt: the context it opens a chat with, and the summary that replaces
// the history when it is compressed.
func geminiInjected(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "This is the Gemini CLI.") || strings.HasPrefix(t, "<session_context>") ||
		strings.HasPrefix(t, "<state_snapshot>")
}
