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
	doc := data[start:]
	cut := false
	// The session's strings share data's bytes until it is detached.
	idx, ok := indexJSON(bytesString(doc))
	if !ok {
		msg, off := jsonError(doc)
		line := 0
		if off >= 0 {
			line = lines.at(start + int(off))
		}
		s.skip(line, msg+"; calls before it are still read")
		// What is read is what comes before the error.
		doc = doc[:jsonPrefix(doc)]
		cut = true
	}
	root := bytesString(doc)
	var f [2]string
	var offs [2]int
	idx.fieldsAt(root, []string{"info", "messages"}, f[:], offs[:])
	info := value(f[0])
	s.ID = info.Get("id").String()
	setOpencodeInfo(s, info)

	i := -1
	idx.eachValueAt(f[1], func(off int, m string) bool {
		i++
		readOpencodeMessage(s, idx, m, i, cut, func(moff int) int {
			return lines.at(start + offs[1] + off + moff)
		})
		return true
	})
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

// readOpencodeMessage adds the tool calls of the raw message m, the i-th,
// of the export indexed by idx. lineAt turns an offset in m into a line
// number. When cut is set, m may end early, in the middle of a part.
func readOpencodeMessage(s *Session, idx *docIndex, m string, i int, cut bool, lineAt func(int) int) {
	var f [2]string
	var offs [2]int
	idx.fieldsAt(m, []string{"info", "parts"}, f[:], offs[:])
	om := newOpencodeMessage(s, f[0], i)
	om.idx = idx
	idx.eachValueAt(f[1], func(off int, p string) bool {
		if cut && !validJSONString(p) {
			return false // the cut-off end of a broken export
		}
		om.part(p, Pos{File: s.Path, Line: lineAt(offs[1] + off)})
		return true
	})
}

// An opencodeMessage adds the tool calls of one message to its session, part
// by part in the order of the parts' ids. The export and the storage folders
// and database share it: they differ only in where a part comes from.
type opencodeMessage struct {
	s      *Session
	idx    *docIndex // the index of the export the parts are in, if any
	i      int       // index of the message in its session
	tokens int       // output tokens, given to the message's first call
	text   string    // the assistant's text since the last call
}

// newOpencodeMessage starts the i-th message of s, whose raw info object
// (role, model, tokens) is info; info may be missing.
func newOpencodeMessage(s *Session, info string, i int) *opencodeMessage {
	var f [3]string
	dups := noIndex.fieldsAt(info, []string{"role", "modelID", "tokens"}, f[:], nil)
	if value(f[0]).String() == "assistant" {
		if model := value(f[1]).String(); model != "" {
			setOnce(&s.Model, model)
		}
	}
	tokens := noIndex.below(info, "tokens", f[2], dups&4 != 0, "output")
	return &opencodeMessage{s: s, i: i, tokens: int(value(tokens).Int())}
}

// The members of a part that the decoder reads, by their index in
// opencodePartFields.
const (
	opType = iota
	opSynthetic
	opText
	opCallID
	opTool
	opState
	opCount
)

var opencodePartFields = []string{"type", "synthetic", "text", "callID", "tool", "state"}

// part reads one part of the message, valid JSON found at pos.
func (m *opencodeMessage) part(p string, pos Pos) {
	var f [opCount]string
	m.idx.fieldsAt(p, opencodePartFields, f[:], nil)
	switch value(f[opType]).String() {
	case "text":
		if !value(f[opSynthetic]).Bool() {
			m.text = value(f[opText]).String()
		}
	case "tool":
		c := m.call(&f, pos)
		c.Text = abridgeText(m.text)
		c.Tokens, m.tokens = m.tokens, 0
		m.text = ""
	}
}

// The members of a tool part's state that the decoder reads, by their
// index in opencodeStateFields.
const (
	osTime = iota
	osInput
	osStatus
	osOutput
	osError
	osMetadata
	osCount
)

var opencodeStateFields = []string{"time", "input", "status", "output", "error", "metadata"}

// call adds the call of a tool part whose members are f, found at pos.
func (m *opencodeMessage) call(f *[opCount]string, pos Pos) *Call {
	s := m.s
	st := f[opState]
	var sf [osCount]string
	dups := m.idx.fieldsAt(st, opencodeStateFields, sf[:], nil)
	stateAt := func(i int, path ...string) gjson.Result {
		return value(m.idx.below(st, opencodeStateFields[i], sf[i], dups&(1<<i) != 0, path...))
	}
	c := &Call{
		Msg:   m.i,
		ID:    value(f[opCallID]).String(),
		Tool:  value(f[opTool]).String(),
		Start: epochMillis(stateAt(osTime, "start")),
		End:   epochMillis(stateAt(osTime, "end")),
		Pos:   pos,
	}
	c.Kind = KindOf(c.Tool)
	in := sf[osInput]
	setInputRaw(c, in, asIs, asIs)
	if m.idx.dig(in, "redacted") != "" && len(s.Notes) == 0 {
		s.Notes = append(s.Notes, "the export was made with --sanitize: commands and outputs are redacted, so failures cannot be explained")
	}
	c.Status = value(sf[osStatus]).String()
	switch c.Status {
	case "completed":
		c.Output = abridge(value(sf[osOutput]).String())
	case "error":
		c.IsError = true
		c.Output = abridge(value(sf[osError]).String())
	case "pending", "running":
		// Left unfinished when the session stopped.
		c.Status = "interrupted"
		c.Output = abridge(stateAt(osMetadata, "output").String())
	}
	if stateAt(osMetadata, "interrupted").Bool() {
		c.Status = "interrupted"
	}
	if exit := stateAt(osMetadata, "exit"); exit.Type == gjson.Number {
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
