package parser

import (
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/gjson"
)

// Claude Code writes one JSON record per line to
// ~/.claude/projects/<project>/<session>.jsonl. Tool calls are tool_use
// blocks in assistant records; their results are tool_result blocks in later
// user records, joined by id. One API response is often split over several
// assistant records that share message.id; they count as one message. Every
// user record counts as a message, and records of other types (snapshots,
// summaries, progress ticks) are not messages.

// claudeTypes are the record types only Claude Code writes.
var claudeTypes = map[string]bool{
	"user": true, "assistant": true, "system": true, "summary": true,
	"file-history-snapshot": true, "queue-operation": true, "progress": true,
	"attachment": true, "ai-title": true, "last-prompt": true, "custom-title": true,
	"pr-link": true, "agent-setting": true, "file-history-delta": true,
}

// matchClaude accepts a head whose first JSON record is a Claude Code record.
// Lines that are not JSON, such as comments a tool put on top, are passed
// over.
func matchClaude(head []byte) bool {
	for line := range bytes.Lines(head) {
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if !gjson.ValidBytes(line) {
			// A record cut off by the end of head: look for keys only
			// Claude Code writes near the start of a record.
			return bytes.Contains(line, []byte(`"parentUuid"`)) ||
				bytes.Contains(line, []byte(`"isSidechain"`)) ||
				bytes.Contains(line, []byte(`"file-history-snapshot"`))
		}
		r := gjson.ParseBytes(line)
		return claudeTypes[r.Get("type").String()] && !r.Get("payload").Exists()
	}
	return false
}

// exitCodeRE matches the first line Claude Code puts in a failed shell
// call's result.
var exitCodeRE = regexp.MustCompile(`^(?:Error: )?Exit code (-?\d+)(?:\r?\n|$)`)

type claudeDecoder struct {
	s       *Session
	byID    map[string]*Call // calls by tool_use id
	msg     int              // index of the current message; -1 before the first
	msgID   string           // message.id of the current assistant message
	msgCall *Call            // first call of the current assistant message
	text    string           // assistant text not yet attached to a call
	titles  [4]string        // custom title, AI title, summary, first prompt
}

func decodeClaude(r io.Reader, name string) (*Session, error) {
	d := &claudeDecoder{
		s:    &Session{Path: name, Format: "claude-code", Calls: []*Call{}},
		byID: make(map[string]*Call),
		msg:  -1,
	}
	err := forEachLine(r, d.s, d.record)
	d.finish()
	return d.s, err
}

func (d *claudeDecoder) record(line []byte, n int) {
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
	switch typ := rec.Get("type").String(); typ {
	case "assistant", "user":
		d.envelope(rec)
		if typ == "assistant" {
			d.assistant(rec, n)
		} else {
			d.user(rec, n)
		}
	case "summary":
		setOnce(&d.titles[2], rec.Get("summary").String())
	case "ai-title":
		d.titles[1] = rec.Get("aiTitle").String()
	case "custom-title":
		d.titles[0] = rec.Get("customTitle").String()
	}
}

// envelope takes the session facts every conversation record repeats.
func (d *claudeDecoder) envelope(rec gjson.Result) {
	setOnce(&d.s.ID, rec.Get("sessionId").String())
	setOnce(&d.s.Cwd, rec.Get("cwd").String())
	setOnce(&d.s.Agent, rec.Get("version").String())
	if t := parseTime(rec.Get("timestamp").String()); !t.IsZero() {
		if d.s.Start.IsZero() {
			d.s.Start = t
		}
		if t.After(d.s.End) {
			d.s.End = t
		}
	}
}

func (d *claudeDecoder) assistant(rec gjson.Result, n int) {
	id := rec.Get("message.id").String()
	if id == "" || id != d.msgID {
		d.msg++
		d.msgID = id
		d.msgCall = nil
	}
	if m := rec.Get("message.model").String(); m != "" && m != "<synthetic>" {
		setOnce(&d.s.Model, m)
	}
	when := parseTime(rec.Get("timestamp").String())
	side := sidechain(rec)
	rec.Get("message.content").ForEach(func(_, b gjson.Result) bool {
		switch b.Get("type").String() {
		case "text":
			d.text = b.Get("text").String()
		case "tool_use":
			d.toolUse(b, n, when, side)
		}
		return true
	})
	if d.msgCall != nil {
		// Each record of a split response repeats the usage so far.
		if t := int(rec.Get("message.usage.output_tokens").Int()); t > d.msgCall.Tokens {
			d.msgCall.Tokens = t
		}
	}
}

func (d *claudeDecoder) toolUse(b gjson.Result, n int, when time.Time, side string) {
	id := b.Get("id").String()
	if id != "" && d.byID[id] != nil {
		return // a replayed copy of a call already read
	}
	c := &Call{
		Msg:       d.msg,
		ID:        id,
		Tool:      b.Get("name").String(),
		Start:     when,
		Text:      abridgeText(d.text),
		Sidechain: side,
		Status:    "no-result",
		Pos:       Pos{File: d.s.Path, Line: n},
	}
	c.Kind = KindOf(c.Tool)
	setInput(c, b.Get("input"))
	d.text = ""
	d.s.add(c)
	if id != "" {
		d.byID[id] = c
	}
	if d.msgCall == nil {
		d.msgCall = c
	}
}

func (d *claudeDecoder) user(rec gjson.Result, n int) {
	d.msg++
	d.msgID = ""
	d.text = ""
	content := rec.Get("message.content")
	if content.Type == gjson.String {
		if !rec.Get("isMeta").Bool() {
			setOnce(&d.titles[3], promptTitle(content.String()))
		}
		return
	}
	results := content.Get(`#(type=="tool_result")#`).Array()
	for _, b := range results {
		id := b.Get("tool_use_id").String()
		c := d.byID[id]
		if c == nil {
			d.s.skip(n, "tool_result for unknown tool_use "+strconv.Quote(id))
			continue
		}
		if c.Status != "no-result" {
			continue // a replayed copy of a result already read
		}
		var extra gjson.Result
		if len(results) == 1 {
			extra = rec.Get("toolUseResult")
		}
		d.result(c, b, extra, parseTime(rec.Get("timestamp").String()))
	}
	if len(results) == 0 && !rec.Get("isMeta").Bool() {
		setOnce(&d.titles[3], promptTitle(content.Get(`#(type=="text").text`).String()))
	}
}

// result fills in c from its tool_result block b and the record's
// toolUseResult, which is a string on failure and an object on success.
func (d *claudeDecoder) result(c *Call, b, extra gjson.Result, when time.Time) {
	c.Status = ""
	c.End = when
	c.IsError = b.Get("is_error").Bool()
	out := blockText(b.Get("content"))
	if m := exitCodeRE.FindStringSubmatch(out); m != nil {
		if code, err := strconv.Atoi(m[1]); err == nil {
			c.Exit = &code
			out = out[len(m[0]):]
		}
	}
	c.Output = abridge(out)
	if extra.IsObject() {
		if extra.Get("interrupted").Bool() {
			c.Status = "interrupted"
		}
		c.Note = extra.Get("returnCodeInterpretation").String()
	}
}

// finish settles the title. Calls that never got a result keep the status
// "no-result".
func (d *claudeDecoder) finish() {
	for _, t := range d.titles {
		if t != "" {
			d.s.Title = t
			break
		}
	}
}

// add appends c to the session's calls, numbering it.
func (s *Session) add(c *Call) {
	c.Ordinal = len(s.Calls) + 1
	if c.ID == "" {
		c.ID = "#" + strconv.Itoa(c.Ordinal)
	}
	s.Calls = append(s.Calls, c)
}

func sidechain(rec gjson.Result) string {
	if !rec.Get("isSidechain").Bool() {
		return ""
	}
	if id := rec.Get("agentId").String(); id != "" {
		return id
	}
	return "sidechain"
}

// blockText returns the text of a tool_result's content, which is either a
// string or a list of blocks.
func blockText(content gjson.Result) string {
	if !content.IsArray() {
		return content.String()
	}
	var b strings.Builder
	content.ForEach(func(_, blk gjson.Result) bool {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch blk.Get("type").String() {
		case "text":
			b.WriteString(blk.Get("text").String())
		case "image":
			b.WriteString("[image]")
		default:
			b.WriteString("[" + blk.Get("type").String() + "]")
		}
		return true
	})
	return b.String()
}

// promptTitle turns a user prompt into a title: its first line, unless the
// prompt is text Claude Code injects (command output, caveats).
func promptTitle(s string) string {
	s = strings.TrimSpace(s)
	if s == "" || strings.HasPrefix(s, "<") || strings.HasPrefix(s, "Caveat:") ||
		strings.HasPrefix(s, "[Request interrupted") {
		return ""
	}
	return firstLine(s, 100)
}

func parseTime(s string) time.Time {
	if s == "" {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t.UTC()
}

func setOnce(dst *string, v string) {
	if *dst == "" {
		*dst = v
	}
}
