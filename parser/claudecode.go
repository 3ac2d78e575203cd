package parser

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"io"
	"maps"
	"regexp"
	"slices"
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
// over. So is a malformed record that ends within head, which the decoder
// reports; the record after it must then carry a key only Claude Code
// writes.
func matchClaude(head []byte) bool {
	malformed := false
	for line := range bytes.Lines(head) {
		complete := bytes.HasSuffix(line, []byte("\n"))
		line = bytes.TrimSpace(line)
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		if !validJSON(line) {
			// Cut off by the end of head, or malformed: look for keys
			// only Claude Code writes near the start of a record.
			if claudeKeys(line) {
				return true
			}
			if !complete {
				return false
			}
			malformed = true
			continue
		}
		r := gjson.ParseBytes(line)
		return claudeTypes[r.Get("type").String()] && !r.Get("payload").Exists() && (!malformed || claudeKeys(line))
	}
	return false
}

// claudeKeys reports whether a record holds a key only Claude Code writes.
func claudeKeys(rec []byte) bool {
	return bytes.Contains(rec, []byte(`"parentUuid"`)) ||
		bytes.Contains(rec, []byte(`"isSidechain"`)) ||
		bytes.Contains(rec, []byte(`"leafUuid"`)) ||
		bytes.Contains(rec, []byte(`"file-history-snapshot"`))
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

	// first holds, by tool_use id, where its call and its result were read
	// and digests of them, to tell a replayed copy from a different record
	// that reuses the id.
	first   map[string]*claudeFirst
	seed    maphash.Seed
	badTime int    // timestamps that are not RFC 3339
	badLine int    // the line of the first of them
	badText string // and its text

	// line is the record being read, in the line reader's buffer, which
	// the next line overwrites: what is kept of it goes through keep.
	line  string
	names map[string]string // tool names and the like, kept once
	done  func(*Call)       // called with each call once its result is read; may be nil
	ready []*Call           // calls the record read finished, for done once the line is let go

	// With forget, the session keeps no call: byID holds the calls still
	// waiting for their result, noID those that cannot get one, and calls
	// counts them all.
	forget bool
	noID   []*Call
	calls  int

	// Background commands (see claudebg.go): by task id, those not yet
	// handed on, and by tool_use id the polls and the Reads of output
	// files whose results are joined to them.
	bg      map[string]*claudeBackground
	waiting []*claudeBackground
	polls   map[string]*claudeBackground
	reads   map[string]*claudeBackground
}

func decodeClaude(r io.Reader, name string) (*Session, error) {
	return decodeClaudeEach(r, name, nil, false)
}

// decodeClaudeEach is decodeClaude calling done with each call once its
// result is read, and with the calls that got none at the end, in order.
// With forget, the session it returns holds no call.
func decodeClaudeEach(r io.Reader, name string, done func(*Call), forget bool) (*Session, error) {
	d := &claudeDecoder{
		done:   done,
		s:      &Session{Path: name, Format: "claude-code", Calls: []*Call{}},
		byID:   make(map[string]*Call),
		first:  make(map[string]*claudeFirst),
		seed:   maphash.MakeSeed(),
		msg:    -1,
		names:  make(map[string]string),
		forget: forget,
	}
	err := forEachLineThen(r, d.s, func(line []byte, n int) {
		d.record(line, n)
		d.line = "" // the line's buffer may be let go
	}, d.handOut)
	d.line = ""
	d.finish()
	if done != nil {
		d.handOut()
		for _, c := range d.unanswered() {
			done(c)
		}
	}
	return d.s, err
}

// handOut calls done with the calls the last record finished, after the
// line reader let the record go: done may wait for the caller, which a
// reader holding a big record must not (see bigRecord).
func (d *claudeDecoder) handOut() {
	for _, c := range d.ready {
		d.done(c)
	}
	clear(d.ready)
	d.ready = d.ready[:0]
}

// unanswered returns the calls that got no result and the background
// calls not yet handed on, in order, and makes the latter final.
func (d *claudeDecoder) unanswered() []*Call {
	var calls []*Call
	if d.forget {
		calls = append(d.noID, slices.Collect(maps.Values(d.byID))...)
	} else {
		for _, c := range d.s.Calls {
			if c.Status == "no-result" {
				calls = append(calls, c)
			}
		}
	}
	for _, b := range d.waiting {
		b.done = true
		calls = append(calls, b.c)
	}
	d.waiting = nil
	slices.SortFunc(calls, func(x, y *Call) int { return cmp.Compare(x.Ordinal, y.Ordinal) })
	return calls
}

// add numbers a call and appends it to the session, or with forget
// counts it. Background calls whose join window it closes are handed on.
func (d *claudeDecoder) add(c *Call) {
	if !d.forget {
		d.s.add(c)
	} else {
		d.calls++
		c.Ordinal = d.calls
		if c.ID == "" {
			c.ID = "#" + strconv.Itoa(c.Ordinal)
			d.noID = append(d.noID, c)
		}
	}
	d.expire()
}

// keep returns s copied out of the record being read when it is part of
// it, so that it outlives the line and holds no more than itself.
func (d *claudeDecoder) keep(s string) string {
	if within(s, d.line) {
		return strings.Clone(s)
	}
	return s
}

// name returns s kept once for the session: tool names, argument keys
// and agent ids repeat on every call.
func (d *claudeDecoder) name(s string) string {
	if n, ok := d.names[s]; ok {
		return n
	}
	n := strings.Clone(s)
	d.names[n] = n
	return n
}

// The top-level members of a record the decoder reads, by their index in
// claudeFields. A record is walked once for all of them.
const (
	cfType = iota
	cfSessionID
	cfCwd
	cfVersion
	cfTimestamp
	cfMessage
	cfIsSidechain
	cfAgentID
	cfIsMeta
	cfToolUseResult
	cfSummary
	cfAITitle
	cfCustomTitle
	cfCount
)

var claudeFields = []string{"type", "sessionId", "cwd", "version", "timestamp", "message", "isSidechain",
	"agentId", "isMeta", "toolUseResult", "summary", "aiTitle", "customTitle"}

// The members of a record's message that the decoder reads, by their
// index in messageFields.
const (
	cmID = iota
	cmModel
	cmContent
	cmUsage
	cmCount
)

var messageFields = []string{"id", "model", "content", "usage"}

// A claudeRecord holds the raw top-level members of a record and those of
// its message, "" for those it lacks. They are found in the pass that
// validates the record.
type claudeRecord struct {
	top [cfCount]string
	msg [cmCount]string
}

// get reads a top-level member as gjson.Get would give it.
func (r *claudeRecord) get(f int) gjson.Result { return value(r.top[f]) }

func (d *claudeDecoder) record(line []byte, n int) {
	d.line = bytesString(line)
	var rec claudeRecord
	var inner [cfCount]*fieldSet
	inner[cfMessage] = &fieldSet{names: messageFields, vals: rec.msg[:]}
	if !validFields(d.line, &fieldSet{names: claudeFields, vals: rec.top[:], inner: inner[:]}) {
		d.s.skipInvalid(n, line)
		return
	}
	if d.line[skipSpace(d.line, 0)] != '{' {
		d.s.skip(n, "record is not a JSON object")
		return
	}
	switch typ := rec.get(cfType).String(); typ {
	case "assistant", "user":
		d.envelope(&rec, n)
		if typ == "assistant" {
			d.assistant(&rec, n)
		} else {
			d.user(&rec, n)
		}
	case "summary":
		setOnce(&d.titles[2], d.keep(rec.get(cfSummary).String()))
	case "ai-title":
		d.titles[1] = d.keep(rec.get(cfAITitle).String())
	case "custom-title":
		d.titles[0] = d.keep(rec.get(cfCustomTitle).String())
	}
}

// envelope takes the session facts every conversation record repeats, the
// record being at line n.
func (d *claudeDecoder) envelope(rec *claudeRecord, n int) {
	if d.s.ID == "" {
		d.s.ID = d.keep(rec.get(cfSessionID).String())
	}
	if d.s.Cwd == "" {
		d.s.Cwd = d.keep(rec.get(cfCwd).String())
	}
	if d.s.Agent == "" {
		d.s.Agent = d.keep(rec.get(cfVersion).String())
	}
	ts := rec.get(cfTimestamp).String()
	t := parseTime(ts)
	if t.IsZero() && ts != "" {
		if d.badTime == 0 {
			d.badLine, d.badText = n, d.keep(ts)
		}
		d.badTime++
	}
	if !t.IsZero() {
		if d.s.Start.IsZero() {
			d.s.Start = t
		}
		if t.After(d.s.End) {
			d.s.End = t
		}
	}
}

func (d *claudeDecoder) assistant(rec *claudeRecord, n int) {
	m := &rec.msg
	id := value(m[cmID]).String()
	if id == "" || id != d.msgID {
		d.msg++
		d.msgID = d.keep(id)
		d.msgCall = nil
	}
	if model := value(m[cmModel]).String(); model != "" && model != "<synthetic>" && d.s.Model == "" {
		d.s.Model = d.keep(model)
	}
	when := parseTime(rec.get(cfTimestamp).String())
	side := d.sidechain(rec)
	var b [5]string
	eachValueFields(m[cmContent], blockFields, b[:], func(string) bool {
		switch value(b[0]).String() {
		case "text":
			d.text = d.keep(value(b[4]).String())
		case "tool_use":
			d.toolUse(&b, n, when, side)
		}
		return true
	})
	if d.msgCall != nil {
		// Each record of a split response repeats the usage so far.
		if t := int(value(field(m[cmUsage], "output_tokens")).Int()); t > d.msgCall.Tokens {
			d.msgCall.Tokens = t
		}
	}
}

// The members of an assistant's content block that the decoder reads.
var blockFields = []string{"type", "id", "name", "input", "text"}

func (d *claudeDecoder) toolUse(b *[5]string, n int, when time.Time, side string) {
	id := value(b[1]).String()
	if id != "" && d.first[id] != nil {
		// A replayed copy of a call already read, unless it differs.
		if f := d.first[id]; f.use != d.digest(b[2], b[3]) {
			d.s.skip(n, fmt.Sprintf("tool_use %q has the id of the call at line %d but another name or input; skipped", id, f.useLine))
		}
		return
	}
	c := &Call{
		Msg:       d.msg,
		ID:        id,
		Tool:      d.name(value(b[2]).String()),
		Start:     when,
		Text:      strings.Clone(abridgeText(d.text)), // not a slice of a long text
		Sidechain: side,
		Status:    "no-result",
		Pos:       Pos{File: d.s.Path, Line: n},
	}
	c.Kind = KindOf(c.Tool)
	setInputRaw(c, b[3], d.keep, d.name)
	if id != "" {
		id = d.keep(id)
		c.ID = id
		d.first[id] = &claudeFirst{useLine: n, use: d.digest(b[2], b[3])}
		if bg := d.polled(c); bg != nil {
			// A poll of a background command is folded into it.
			if d.polls == nil {
				d.polls = make(map[string]*claudeBackground)
			}
			d.polls[id] = bg
			return
		}
	}
	d.text = ""
	d.add(c)
	if id != "" {
		d.byID[id] = c
		if bg := d.readsBack(c); bg != nil {
			if d.reads == nil {
				d.reads = make(map[string]*claudeBackground)
			}
			d.reads[id] = bg
		}
	}
	if d.msgCall == nil {
		d.msgCall = c
	}
}

// isType reports whether a raw content block's type is typ, as the gjson
// query #(type=="typ") decides: a string equal to it, or, as gjson
// compares a number with a word, the number 0.
func isType(block, typ string) bool {
	return block != "" && block[0] == '{' && typeIs(field(block, "type"), typ)
}

// typeIs is isType of a block whose raw type is raw.
func typeIs(raw, typ string) bool {
	t := value(raw)
	return t.Type == gjson.String && t.Str == typ || t.Type == gjson.Number && t.Num == 0
}

func (d *claudeDecoder) user(rec *claudeRecord, n int) {
	d.msg++
	d.msgID = ""
	d.text = ""
	raw := rec.msg[cmContent]
	when := parseTime(rec.get(cfTimestamp).String())
	if content := value(raw); content.Type == gjson.String {
		if len(d.waiting) > 0 {
			d.notices(content.String(), when)
		}
		if !rec.get(cfIsMeta).Bool() {
			setOnce(&d.titles[3], d.keep(promptTitle(content.String())))
		}
		return
	}
	var b [5]string
	var buf [4][3]string
	results := buf[:0]
	eachElementFields(raw, resultFields, b[:], func(block string) bool {
		switch {
		case block[0] != '{':
		case typeIs(b[0], "tool_result"):
			results = append(results, [3]string{b[1], b[2], b[3]})
		case len(d.waiting) > 0 && typeIs(b[0], "text"):
			d.notices(value(b[4]).String(), when)
		}
		return true
	})
	for _, f := range results {
		id := value(f[0]).String()
		first := d.first[id]
		if first == nil {
			d.s.skip(n, "tool_result for unknown tool_use "+strconv.Quote(id))
			continue
		}
		sum := d.digest(f[2], f[1])
		if first.resultLine != 0 {
			// A replayed copy of a result already read, unless it differs.
			if first.result != sum {
				d.s.skip(n, fmt.Sprintf("tool_result for %q differs from the one at line %d; skipped", id, first.resultLine))
			}
			continue
		}
		first.resultLine, first.result = n, sum
		var extra string
		if len(results) == 1 {
			extra = rec.top[cfToolUseResult]
		}
		if bg, ok := d.polls[id]; ok {
			delete(d.polls, id)
			d.poll(bg, &f, extra, when)
			continue
		}
		c := d.byID[id]
		if d.forget {
			delete(d.byID, id)
		}
		held := d.result(c, &f, extra, when)
		if bg, ok := d.reads[id]; ok {
			delete(d.reads, id)
			d.readBack(bg, c, &f, extra)
		}
		if d.done != nil && !held {
			d.ready = append(d.ready, c)
		}
	}
	if len(results) == 0 && !rec.get(cfIsMeta).Bool() {
		var text string
		eachElement(raw, func(block string) bool {
			if isType(block, "text") {
				text = value(field(block, "text")).String()
				return false
			}
			return true
		})
		setOnce(&d.titles[3], d.keep(promptTitle(text)))
	}
}

// The members of a user's content block that the decoder reads: a
// tool_result's, after its type, and a text block's text.
var resultFields = []string{"type", "tool_use_id", "is_error", "content", "text"}

// The members of a toolUseResult that the decoder reads.
var extraFields = []string{"interrupted", "returnCodeInterpretation", "backgroundTaskId", "backgroundedByUser"}

// result fills in c from the members f of its tool_result block and the
// record's raw toolUseResult, which is a string on failure and an object
// on success. It reports whether c went to the background, where it waits
// for its outcome.
func (d *claudeDecoder) result(c *Call, f *[3]string, extra string, when time.Time) bool {
	c.Status = ""
	c.End = when
	c.IsError = value(f[1]).Bool()
	// The "Exit code N" line the output starts with gives the exit code,
	// and is dropped.
	var code *int
	exit := func(out string) int {
		code = nil
		if m := exitCodeRE.FindStringSubmatch(out); m != nil {
			if n, err := strconv.Atoi(m[1]); err == nil {
				code = &n
				return len(m[0])
			}
		}
		return 0
	}
	if raw := f[2]; len(raw) >= 2 && raw[0] == '"' {
		c.Output = d.keep(abridgeRaw(raw, exit))
	} else {
		out := blockTextRaw(raw)
		c.Output = d.keep(abridgeBytes(out[exit(out):]))
	}
	if code != nil {
		c.Exit = code
	}
	var e [4]string
	if i := skipSpace(extra, 0); i < len(extra) && extra[i] == '{' {
		fields(extra, extraFields, e[:])
		if value(e[0]).Bool() {
			c.Status = "interrupted"
		}
		c.Note = d.keep(value(e[1]).String())
	}
	if c.Kind != Shell || c.IsError || c.Status != "" {
		return false
	}
	return d.startBackground(c, c.Output, value(e[2]).String(), value(e[3]).Bool())
}

// finish settles the title and notes unreadable timestamps. Calls that
// never got a result keep the status "no-result".
func (d *claudeDecoder) finish() {
	switch {
	case d.badTime == 1:
		d.s.Notes = append(d.s.Notes, fmt.Sprintf("timestamp %q at line %d is not an RFC 3339 date and time; that record has no time",
			cut(d.badText, 40), d.badLine))
	case d.badTime > 1:
		d.s.Notes = append(d.s.Notes, fmt.Sprintf("%d timestamps are not RFC 3339 dates and times, the first %q at line %d; those records have no time",
			d.badTime, cut(d.badText, 40), d.badLine))
	}
	for _, t := range d.titles {
		if t != "" {
			d.s.Title = t
			break
		}
	}
}

// A claudeFirst is where the first tool_use and tool_result of an id were
// read, with digests of what they hold.
type claudeFirst struct {
	useLine, resultLine int
	use, result         uint64
}

// digest sums the raw JSON of a record's fields.
func (d *claudeDecoder) digest(raws ...string) uint64 {
	var h maphash.Hash
	h.SetSeed(d.seed)
	for _, r := range raws {
		h.WriteString(r)
		h.WriteByte(0)
	}
	return h.Sum64()
}

// add appends c to the session's calls, numbering it.
func (s *Session) add(c *Call) {
	c.Ordinal = len(s.Calls) + 1
	if c.ID == "" {
		c.ID = "#" + strconv.Itoa(c.Ordinal)
	}
	s.Calls = append(s.Calls, c)
}

// sidechain names the subagent that wrote a record; "" for the main
// conversation.
func (d *claudeDecoder) sidechain(rec *claudeRecord) string {
	if !rec.get(cfIsSidechain).Bool() {
		return ""
	}
	if id := rec.get(cfAgentID).String(); id != "" {
		return d.name(id)
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

// blockTextRaw is blockText of a raw content value.
func blockTextRaw(raw string) string {
	if i := skipSpace(raw, 0); i == len(raw) || raw[i] != '[' {
		return value(raw).String()
	}
	var b strings.Builder
	eachElement(raw, func(blk string) bool {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch typ := value(field(blk, "type")).String(); typ {
		case "text":
			b.WriteString(value(field(blk, "text")).String())
		case "image":
			b.WriteString("[image]")
		default:
			b.WriteString("[" + typ + "]")
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
