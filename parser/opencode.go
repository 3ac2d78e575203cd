package parser

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// `opencode export <id>` writes a session as one pretty-printed JSON object,
// {"info": {…}, "messages": [{"info": {…}, "parts": [...]}, …]}, and prints
// "Exporting session: <id>" on standard error, which is often captured in
// the same file. A tool call is a part of type "tool"; its result is in the
// same part's state. A call's message index is the index of its message in
// "messages".

func matchOpencode(head []byte) bool {
	start := preambleEnd(head)
	if start < 0 {
		return false
	}
	return strings.HasPrefix(rawjson.Peek(bytesString(head[start:])).Path("info", "id").Text(), "ses_")
}

// preambleEnd returns the offset of the '{' that opens the export, passing
// over white space and an "Exporting session:" line, or -1.
func preambleEnd(data []byte) int {
	i := bytes.IndexByte(data, '{')
	if i < 0 {
		return -1
	}
	pre := bytes.TrimSpace(data[:i])
	if len(pre) > 0 && !bytes.HasPrefix(pre, []byte("Exporting session")) {
		return -1
	}
	return i
}

func decodeOpencode(r io.Reader, name string) (*Session, error) {
	s := &Session{Path: name, Format: "opencode", Calls: []*Call{}}
	// An export is one JSON document: it is read whole.
	data, release, err := readWhole(r)
	defer release()
	if err != nil {
		return s, fmt.Errorf("read %s: %w", name, err)
	}
	readOpencodeExport(s, data)
	s.detach()
	return s, nil
}

// readOpencodeExport adds to s what the export data holds.
func readOpencodeExport(s *Session, data []byte) {
	start := preambleEnd(data)
	if start < 0 {
		s.skip(1, `no JSON object: expected an opencode export starting with "{"`)
		return
	}
	lines := &lineCounter{data: data, line: 1}
	// The session's strings share data's bytes until it is detached.
	text := bytesString(data[start:])
	doc, ok := rawjson.Index(text)
	if !ok {
		msg, off := jsonError(data[start:])
		line := 0
		if off >= 0 {
			line = lines.at(start + int(off))
		}
		s.skip(line, msg+"; calls before it are still read")
		// What is read is what comes before the error.
		doc = rawjson.NewDoc(text[:rawjson.Prefix(text)])
	}
	var f rawjson.Fields
	doc.Root().Pick(exportNames, &f)
	info := f.Get(oeInfo)
	s.ID = info.Get("id").Text()
	setOpencodeInfo(s, info)

	i := -1
	for m := range f.Get(oeMessages).Values() {
		i++
		readOpencodeMessage(s, m, i, func(off int) int { return lines.at(start + off) })
	}
}

// The members of an export that the decoder reads, by their index in
// exportNames.
const (
	oeInfo = iota
	oeMessages
)

var exportNames = rawjson.NewNames("info", "messages")

// setOpencodeInfo sets the session's title, directory, version and times
// from a Session.Info object, as an export and the storage folder hold it.
func setOpencodeInfo(s *Session, info rawjson.Value) {
	s.Title = info.Get("title").Text()
	s.Cwd = info.Get("directory").Text()
	s.Agent = info.Get("version").Text()
	s.Start = epochMillis(info.Path("time", "created"))
	s.End = epochMillis(info.Path("time", "updated"))
}

// The members of a message of an export that the decoder reads, by their
// index in messageOfExportNames.
const (
	omInfo = iota
	omParts
)

var messageOfExportNames = rawjson.NewNames("info", "parts")

// readOpencodeMessage adds the tool calls of the message m, the i-th, of
// an export. lineAt turns an offset in the export into a line number. In
// an export cut short, m may end early, in the middle of a part.
func readOpencodeMessage(s *Session, m rawjson.Value, i int, lineAt func(int) int) {
	var f rawjson.Fields
	m.Pick(messageOfExportNames, &f)
	om := newOpencodeMessage(s, f.Get(omInfo), i)
	for p := range f.Get(omParts).Values() {
		if !p.Valid() {
			break // the cut-off end of a broken export
		}
		om.part(p, Pos{File: s.Path, Line: lineAt(p.Offset())})
	}
}

// An opencodeMessage adds the tool calls of one message to its session, part
// by part in the order of the parts' ids. The export and the storage folders
// and database share it: they differ only in where a part comes from.
type opencodeMessage struct {
	s      *Session
	i      int    // index of the message in its session
	tokens int    // output tokens, given to the message's first call
	text   string // the assistant's text since the last call
}

// The members of a message's info that the decoder reads, by their index
// in messageInfoNames.
const (
	oiRole = iota
	oiModelID
	oiTokens
)

var messageInfoNames = rawjson.NewNames("role", "modelID", "tokens")

// newOpencodeMessage starts the i-th message of s, whose info object
// (role, model, tokens) is info; info may be missing.
func newOpencodeMessage(s *Session, info rawjson.Value, i int) *opencodeMessage {
	var f rawjson.Fields
	info.Pick(messageInfoNames, &f)
	if f.Get(oiRole).Text() == "assistant" {
		if model := f.Get(oiModelID).Text(); model != "" {
			setOnce(&s.Model, model)
		}
	}
	return &opencodeMessage{s: s, i: i, tokens: int(f.Path(oiTokens, "output").Int())}
}

// The members of a part that the decoder reads, by their index in
// opencodePartNames.
const (
	opType = iota
	opSynthetic
	opText
	opCallID
	opTool
	opState
)

var opencodePartNames = rawjson.NewNames("type", "synthetic", "text", "callID", "tool", "state")

// part reads one part of the message, valid JSON found at pos.
func (m *opencodeMessage) part(p rawjson.Value, pos Pos) {
	var f rawjson.Fields
	p.Pick(opencodePartNames, &f)
	switch f.Get(opType).Text() {
	case "text":
		if !f.Get(opSynthetic).Bool() {
			m.text = f.Get(opText).Text()
		}
	case "tool":
		c := m.call(&f, pos)
		c.Text = abridgeText(m.text)
		c.Tokens, m.tokens = m.tokens, 0
		m.text = ""
	}
}

// The members of a tool part's state that the decoder reads, by their
// index in opencodeStateNames.
const (
	osTime = iota
	osInput
	osStatus
	osOutput
	osError
	osMetadata
)

var opencodeStateNames = rawjson.NewNames("time", "input", "status", "output", "error", "metadata")

// call adds the call of a tool part whose members are f, found at pos.
func (m *opencodeMessage) call(f *rawjson.Fields, pos Pos) *Call {
	s := m.s
	var st rawjson.Fields
	f.Get(opState).Pick(opencodeStateNames, &st)
	c := &Call{
		Msg:   m.i,
		ID:    f.Get(opCallID).Text(),
		Tool:  f.Get(opTool).Text(),
		Start: epochMillis(st.Path(osTime, "start")),
		End:   epochMillis(st.Path(osTime, "end")),
		Pos:   pos,
	}
	c.Kind = KindOf(c.Tool)
	in := st.Get(osInput)
	setInput(c, in, nil, nil)
	if in.Get("redacted").Exists() && len(s.Notes) == 0 {
		s.Notes = append(s.Notes, "the export was made with --sanitize: commands and outputs are redacted, so failures cannot be explained")
	}
	c.Status = Status(st.Get(osStatus).Text())
	switch c.Status {
	case StatusCompleted:
		c.Output = abridge(st.Get(osOutput).Text())
	case StatusError:
		c.IsError = true
		c.Output = abridge(st.Get(osError).Text())
	case "pending", StatusRunning:
		// Left unfinished when the session stopped.
		c.Status = StatusInterrupted
		c.Output = abridge(st.Path(osMetadata, "output").Text())
	}
	if st.Path(osMetadata, "interrupted").Bool() {
		c.Status = StatusInterrupted
	}
	if exit := st.Path(osMetadata, "exit"); exit.Kind() == rawjson.Number {
		code := int(exit.Int())
		c.Exit = &code
	}
	if c.Tool == "invalid" {
		// opencode routes calls to unknown tools, or with bad arguments,
		// to the "invalid" tool, which "completes".
		c.IsError = true
	}
	s.add(c)
	return c
}

// epochMillis reads a time given in milliseconds since 1970.
func epochMillis(v rawjson.Value) time.Time {
	if v.Kind() != rawjson.Number {
		return time.Time{}
	}
	return unixMillis(v.Int())
}

// A lineCounter turns byte offsets in data into 1-based line numbers. It is
// fastest when asked for offsets in increasing order.
type lineCounter struct {
	data []byte
	off  int // offset whose line is known
	line int // line at off
}

func (lc *lineCounter) at(off int) int {
	off = min(max(off, 0), len(lc.data))
	if off < lc.off {
		lc.off, lc.line = 0, 1
	}
	lc.line += bytes.Count(lc.data[lc.off:off], []byte("\n"))
	lc.off = off
	return lc.line
}
