package parser

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/tidwall/gjson"
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
	return strings.HasPrefix(gjson.GetBytes(head[start:], "info.id").String(), "ses_")
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
	data, err := io.ReadAll(r)
	if err != nil {
		return s, fmt.Errorf("read %s: %w", name, err)
	}
	start := preambleEnd(data)
	if start < 0 {
		s.skip(1, `no JSON object: expected an opencode export starting with "{"`)
		return s, nil
	}
	lines := &lineCounter{data: data, line: 1}
	doc := data[start:]
	if !gjson.ValidBytes(doc) {
		msg, off := jsonError(doc)
		line := 0
		if off >= 0 {
			line = lines.at(start + int(off))
		}
		s.skip(line, msg+"; calls before it are still read")
	}

	info := gjson.GetBytes(doc, "info")
	s.ID = info.Get("id").String()
	setOpencodeInfo(s, info)

	msgs := gjson.GetBytes(doc, "messages")
	i := -1
	msgs.ForEach(func(_, m gjson.Result) bool {
		i++
		line := lines.at(start + m.Index)
		readOpencodeMessage(s, m, i, func(off int) int {
			if off <= 0 {
				return line
			}
			return lines.at(start + off)
		})
		return true
	})
	return s, nil
}

// setOpencodeInfo sets the session's title, directory, version and times
// from a Session.Info object, as an export and the storage folder hold it.
func setOpencodeInfo(s *Session, info gjson.Result) {
	s.Title = info.Get("title").String()
	s.Cwd = info.Get("directory").String()
	s.Agent = info.Get("version").String()
	s.Start = epochMillis(info.Get("time.created"))
	s.End = epochMillis(info.Get("time.updated"))
}

// readOpencodeMessage adds the tool calls of message m, the i-th. lineAt
// turns an offset in the document into a line number; gjson gives the
// results of m.Get offsets in the whole document, as it does m's own.
func readOpencodeMessage(s *Session, m gjson.Result, i int, lineAt func(int) int) {
	om := newOpencodeMessage(s, m.Get("info"), i)
	m.Get("parts").ForEach(func(_, p gjson.Result) bool {
		if !gjson.Valid(p.Raw) {
			return false // the cut-off end of a broken export
		}
		om.part(p, Pos{File: s.Path, Line: lineAt(p.Index)})
		return true
	})
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

// newOpencodeMessage starts the i-th message of s, whose info object (role,
// model, tokens) is info; info may be missing.
func newOpencodeMessage(s *Session, info gjson.Result, i int) *opencodeMessage {
	if info.Get("role").String() == "assistant" {
		if model := info.Get("modelID").String(); model != "" {
			setOnce(&s.Model, model)
		}
	}
	return &opencodeMessage{s: s, i: i, tokens: int(info.Get("tokens.output").Int())}
}

// part reads one part of the message, found at pos.
func (m *opencodeMessage) part(p gjson.Result, pos Pos) {
	switch p.Get("type").String() {
	case "text":
		if !p.Get("synthetic").Bool() {
			m.text = p.Get("text").String()
		}
	case "tool":
		c := opencodeCall(m.s, p, m.i, pos)
		c.Text = abridgeText(m.text)
		c.Tokens, m.tokens = m.tokens, 0
		m.text = ""
	}
}

// opencodeCall adds the call of tool part p, found at pos in message msg.
func opencodeCall(s *Session, p gjson.Result, msg int, pos Pos) *Call {
	st := p.Get("state")
	c := &Call{
		Msg:   msg,
		ID:    p.Get("callID").String(),
		Tool:  p.Get("tool").String(),
		Start: epochMillis(st.Get("time.start")),
		End:   epochMillis(st.Get("time.end")),
		Pos:   pos,
	}
	c.Kind = KindOf(c.Tool)
	in := st.Get("input")
	setInput(c, in)
	if in.Get("redacted").Exists() && len(s.Notes) == 0 {
		s.Notes = append(s.Notes, "the export was made with --sanitize: commands and outputs are redacted, so failures cannot be explained")
	}
	c.Status = st.Get("status").String()
	switch c.Status {
	case "completed":
		c.Output = abridge(st.Get("output").String())
	case "error":
		c.IsError = true
		c.Output = abridge(st.Get("error").String())
	case "pending", "running":
		// Left unfinished when the session stopped.
		c.Status = "interrupted"
		c.Output = abridge(st.Get("metadata.output").String())
	}
	if st.Get("metadata.interrupted").Bool() {
		c.Status = "interrupted"
	}
	if exit := st.Get("metadata.exit"); exit.Type == gjson.Number {
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

func epochMillis(v gjson.Result) time.Time {
	if v.Type != gjson.Number {
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
