package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
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
// checkpoint. gjson reads the first JSON value of head even when head ends
// inside it.
func matchGemini(head []byte) bool {
	head = bytes.TrimLeft(head, " \t\r\n")
	if len(head) == 0 {
		return false
	}
	doc := gjson.ParseBytes(head)
	switch head[0] {
	case '[':
		return geminiContent(doc.Get("0"))
	case '{':
	default:
		return false
	}
	if geminiContent(doc.Get("history.0")) {
		return true
	}
	if doc.Get("sessionId").Type != gjson.String || doc.Get("projectHash").Type != gjson.String {
		return false
	}
	// Claude Code lines carry a sessionId too, but never a projectHash. A
	// real record always has startTime; without it, ask for a message.
	if doc.Get("startTime").Type == gjson.String || geminiTypes[doc.Get("messages.0.type").String()] {
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
		rec := gjson.ParseBytes(line)
		return rec.Get("$set").IsObject() || rec.Get("$rewindTo").Type == gjson.String ||
			(rec.Get("id").Type == gjson.String && geminiTypes[rec.Get("type").String()])
	}
	return false
}

// geminiContent reports whether c looks like a Gemini API content.
func geminiContent(c gjson.Result) bool {
	role := c.Get("role").String()
	return (role == "user" || role == "model") && c.Get("parts").IsArray()
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
		return decodeGeminiDocument(br, s)
	}
	d := &geminiLog{s: s, byID: make(map[string]*geminiMsg)}
	err := forEachLine(br, s, d.record)
	d.finish()
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
	if gjson.ValidBytes(first) {
		r := gjson.ParseBytes(first)
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

// set takes the metadata fields r has, as the header and $set records give
// them.
func (m *geminiMeta) set(r gjson.Result) {
	if v := r.Get("sessionId"); v.Type == gjson.String {
		m.id = v.String()
	}
	if v := r.Get("summary"); v.Type == gjson.String {
		m.summary = v.String()
	}
	if v := r.Get("kind"); v.Type == gjson.String {
		m.kind = v.String()
	}
	// directories lists the workspace directories; the first is the project
	// root the session runs in.
	if v := r.Get("directories"); v.IsArray() {
		m.cwd = v.Get("0").String()
	}
	if t := parseTime(r.Get("startTime").String()); !t.IsZero() {
		m.start = t
	}
	if t := parseTime(r.Get("lastUpdated").String()); !t.IsZero() {
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
		if !g.time.IsZero() {
			if s.Start.IsZero() {
				s.Start = g.time
			}
			if g.time.After(s.End) {
				s.End = g.time
			}
		}
		for _, c := range g.calls {
			c.Msg = i
			s.add(c)
			if c.Start.After(s.End) {
				s.End = c.Start
			}
		}
	}
}

// readGeminiMsg keeps what is needed of message record m. lineAt turns the
// offset of a value in the input into its line number; an offset of 0
// stands for the record's own line.
func readGeminiMsg(m gjson.Result, path string, lineAt func(off int) int) *geminiMsg {
	g := &geminiMsg{
		id:    m.Get("id").String(),
		typ:   m.Get("type").String(),
		time:  parseTime(m.Get("timestamp").String()),
		model: m.Get("model").String(),
	}
	if g.typ == "user" {
		text := geminiText(m.Get("displayContent"))
		if strings.TrimSpace(text) == "" {
			text = geminiText(m.Get("content"))
		}
		if !geminiInjected(text) {
			g.prompt = firstLine(text, 100)
		}
	}
	calls := m.Get("toolCalls")
	if !calls.IsArray() {
		return g
	}
	text := abridgeText(geminiText(m.Get("content")))
	tokens := int(m.Get("tokens.output").Int())
	calls.ForEach(func(_, tc gjson.Result) bool {
		if !gjson.Valid(tc.Raw) {
			return false // the cut-off end of a truncated record
		}
		c := geminiCall(tc, path, lineAt(tc.Index))
		if len(g.calls) == 0 {
			c.Text, c.Tokens = text, tokens
		}
		g.calls = append(g.calls, c)
		return true
	})
	return g
}

// geminiCall reads one ToolCallRecord.
func geminiCall(tc gjson.Result, path string, line int) *Call {
	c := &Call{
		ID:    tc.Get("id").String(),
		Tool:  tc.Get("name").String(),
		Start: parseTime(tc.Get("timestamp").String()),
		Pos:   Pos{File: path, Line: line},
	}
	c.Kind = KindOf(c.Tool)
	setInput(c, tc.Get("args"))
	out, errText, ok := geminiResponse(tc.Get("result"))
	if display := tc.Get("resultDisplay"); !ok && display.Type == gjson.String {
		out = display.String()
	}
	geminiOutcome(c, tc.Get("status").String(), out, errText)
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
func geminiOutcome(c *Call, status, out, errText string) {
	var sh geminiShellResult
	if c.Kind == Shell {
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
				c.Status = "cancelled"
			}
			out = joinLines(errText, out)
		}
	case "error":
		c.Status = status
		c.IsError = true
		if errText != "" {
			out = errText
		}
	case "cancelled":
		c.Status = status
		c.IsError = true
		out = joinLines(errText, out)
	default:
		c.Status = "interrupted"
	}
	// Since January 2026 the shell tool prints "Exit Code:" only when it is
	// not zero.
	if c.Kind == Shell && sh.framed && !sh.exitLine && !sh.signal && !sh.failed && !c.IsError && c.Status != "interrupted" {
		zero := 0
		c.Exit = &zero
	}
	c.Output = abridge(out)
}

// geminiResponse returns the output and error texts of a tool result: a
// list of parts (functionResponse, text, inline data) or a single one. ok
// is false when there is no result at all.
func geminiResponse(res gjson.Result) (out, errText string, ok bool) {
	if !res.Exists() || res.Type == gjson.Null {
		return "", "", false
	}
	var outs, errs []string
	part := func(p gjson.Result) {
		switch {
		case p.Type == gjson.String:
			outs = append(outs, p.String())
		case p.Get("functionResponse").IsObject():
			r := p.Get("functionResponse.response")
			o, e := r.Get("output"), r.Get("error")
			if o.Exists() {
				outs = append(outs, geminiScalar(o))
			}
			if e.Exists() {
				errs = append(errs, geminiScalar(e))
			}
			if !o.Exists() && !e.Exists() && r.Exists() {
				outs = append(outs, r.Raw) // an MCP tool's own shape
			}
		case p.Get("text").Type == gjson.String:
			outs = append(outs, p.Get("text").String())
		case p.Get("inlineData").IsObject():
			outs = append(outs, "["+p.Get("inlineData.mimeType").String()+" data]")
		case p.Get("fileData").IsObject():
			outs = append(outs, "["+p.Get("fileData.fileUri").String()+"]")
		}
	}
	if res.IsArray() {
		res.ForEach(func(_, p gjson.Result) bool {
			part(p)
			return true
		})
	} else {
		part(res)
	}
	return strings.Join(outs, "\n"), strings.Join(errs, "\n"), true
}

func geminiScalar(v gjson.Result) string {
	if v.Type == gjson.String {
		return v.String()
	}
	return v.Raw
}

// geminiText returns the text of a message's content: a string, a list of
// parts and strings, or one part. Thoughts are left out.
func geminiText(content gjson.Result) string {
	switch {
	case content.Type == gjson.String:
		return content.String()
	case content.IsArray():
		var b strings.Builder
		content.ForEach(func(_, p gjson.Result) bool {
			b.WriteString(geminiText(p))
			return true
		})
		return b.String()
	case content.IsObject() && !content.Get("thought").Bool():
		return content.Get("text").String()
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

func (d *geminiLog) record(line []byte, n int) {
	if !gjson.ValidBytes(line) {
		msg, _ := jsonError(line)
		d.s.skip(n, msg)
		return
	}
	rec := gjson.ParseBytes(line)
	if !rec.IsObject() {
		d.s.skip(n, "record is not a JSON object")
		return
	}
	lineAt := func(int) int { return n }
	// The order of the tests is Gemini CLI's own.
	switch {
	case rec.Get("$rewindTo").Type == gjson.String:
		d.rewind(rec.Get("$rewindTo").String())
	case rec.Get("id").Type == gjson.String:
		d.put(readGeminiMsg(rec, d.s.Path, lineAt))
	case rec.Get("$set").IsObject():
		set := rec.Get("$set")
		d.meta.set(set)
		if msgs := set.Get("messages"); msgs.IsArray() {
			d.order = d.order[:0]
			clear(d.byID)
			msgs.ForEach(func(_, m gjson.Result) bool {
				if m.Get("id").Type == gjson.String {
					d.put(readGeminiMsg(m, d.s.Path, lineAt))
				}
				return true
			})
		}
	case rec.Get("sessionId").Type == gjson.String && rec.Get("projectHash").Type == gjson.String:
		d.meta.set(rec)
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

// decodeGeminiDocument reads a whole-document record or checkpoint. A
// truncated document gives the calls that are complete in it.
func decodeGeminiDocument(r io.Reader, s *Session) (*Session, error) {
	data, rerr := io.ReadAll(r)
	if rerr != nil {
		rerr = fmt.Errorf("read %s: %w", s.Path, rerr)
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	doc := data[start:]
	lines := &lineCounter{data: data, line: 1}
	if len(doc) == 0 {
		return s, rerr
	}
	if !gjson.ValidBytes(doc) {
		msg, off := jsonError(doc)
		line := 0
		if off >= 0 {
			line = lines.at(start + int(off))
		}
		s.skip(line, msg+"; calls before it are still read")
	}
	root := gjson.ParseBytes(doc)
	lineAt := func(base int) func(int) int {
		return func(off int) int {
			if off <= 0 {
				off = base
			}
			return lines.at(start + off)
		}
	}
	switch {
	case root.IsArray():
		readGeminiCheckpoint(s, root, lineAt(0))
		return s, rerr
	case !root.Get("messages").Exists() && root.Get("history").IsArray():
		readGeminiCheckpoint(s, root.Get("history"), lineAt(0))
		return s, rerr
	}
	var meta geminiMeta
	meta.set(root)
	var msgs []*geminiMsg
	root.Get("messages").ForEach(func(_, m gjson.Result) bool {
		msgs = append(msgs, readGeminiMsg(m, s.Path, lineAt(m.Index)))
		return true
	})
	meta.build(s, msgs)
	return s, rerr
}

// readGeminiCheckpoint reads the calls of a /chat save checkpoint, a list
// of Gemini API contents.
func readGeminiCheckpoint(s *Session, contents gjson.Result, lineAt func(int) int) {
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
	contents.ForEach(func(_, content gjson.Result) bool {
		i++
		role := content.Get("role").String()
		text := ""
		first := true
		content.Get("parts").ForEach(func(_, p gjson.Result) bool {
			if !gjson.Valid(p.Raw) {
				return false // the cut-off end of a truncated checkpoint
			}
			switch {
			case p.Get("functionCall").IsObject():
				fc := p.Get("functionCall")
				c := &Call{
					Msg:    i,
					ID:     fc.Get("id").String(),
					Tool:   fc.Get("name").String(),
					Status: "no-result",
					Pos:    Pos{File: s.Path, Line: lineAt(p.Index)},
				}
				c.Kind = KindOf(c.Tool)
				setInput(c, fc.Get("args"))
				if first {
					c.Text = abridgeText(text)
					first = false
				}
				pending = append(pending, pendingCall{c, c.ID})
				s.add(c)
			case p.Get("functionResponse").IsObject():
				fr := p.Get("functionResponse")
				c := take(fr.Get("id").String(), fr.Get("name").String())
				if c == nil {
					s.skip(lineAt(p.Index), "functionResponse for unknown functionCall "+strconv.Quote(fr.Get("name").String()))
					return true
				}
				out, errText, _ := geminiResponse(p)
				geminiOutcome(c, "", out, errText)
			case p.Get("text").Type == gjson.String && !p.Get("thought").Bool():
				if role == "model" {
					text = p.Get("text").String()
				} else if s.Title == "" && !geminiInjected(p.Get("text").String()) {
					s.Title = firstLine(p.Get("text").String(), 100)
				}
			}
			return true
		})
		return true
	})
}

// geminiInjected reports user text that Gemini CLI writes itself, which is
// no prompt: the context it opens a chat with, and the summary that replaces
// the history when it is compressed.
func geminiInjected(text string) bool {
	t := strings.TrimSpace(text)
	return strings.HasPrefix(t, "This is the Gemini CLI.") || strings.HasPrefix(t, "<session_context>") ||
		strings.HasPrefix(t, "<state_snapshot>")
}
