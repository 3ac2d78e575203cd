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

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
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
	for line, complete := range headObjects(head) {
		r, ok := rawjson.Parse(bytesString(line))
		if !ok {
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
		return claudeTypes[r.Get("type").Text()] && !r.Get("payload").Exists() && (!malformed || claudeKeys(line))
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

	// doc is the record being read, in the line reader's buffer, which
	// the next line overwrites: what is kept of it goes through doc.Keep.
	doc   rawjson.Doc
	names map[string]string // tool names and the like, kept once
	done  func(*Call)       // called with each call once its result is read; may be nil
	ready []*Call           // calls the record read finished, for done once the line is let go
	cut   bool              // the record being read was cut short

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
		d.doc.Release() // the line's buffer may be let go
	}, d.handOut)
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
			if c.Status == StatusNoResult {
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
// claudeNames. A record is walked once for all of them, and for those of
// its message.
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
	// The spellings of `claude -p --output-format stream-json`, whose
	// records name a subagent's messages by the Task call that started it
	// and whose first record, type "system", holds the version.
	cfSessionIDSnake
	cfToolUseResultSnake
	cfParentToolUseID
	cfCodeVersion
	cfCount
)

var claudeNames = rawjson.NewNames("type", "sessionId", "cwd", "version", "timestamp", "message", "isSidechain",
	"agentId", "isMeta", "toolUseResult", "summary", "aiTitle", "customTitle",
	"session_id", "tool_use_result", "parent_tool_use_id", "claude_code_version").Nest(cfMessage, messageNames)

// The members of a record's message that the decoder reads, by their
// index in messageNames.
const (
	cmID = iota
	cmModel
	cmContent
	cmUsage
	cmCount
)

var messageNames = rawjson.NewNames("id", "model", "content", "usage")

// A claudeRecord holds the top-level members of a record and those of its
// message. They are found in the pass that validates the record.
type claudeRecord struct {
	top, msg rawjson.Fields
}

func (d *claudeDecoder) record(line []byte, n int) {
	var rec claudeRecord
	root, ok := d.doc.Record(bytesString(line), claudeNames, &rec.top, &rec.msg)
	if !d.s.objectRecord(n, line, root, ok) {
		if !ok {
			d.cutShort(line, n)
		}
		return
	}
	top := &rec.top
	switch typ := top.Get(cfType).Text(); typ {
	case "assistant", "user":
		d.envelope(&rec, n)
		if typ == "assistant" {
			d.assistant(&rec, n)
		} else {
			d.user(&rec, n)
		}
	case "summary":
		setOnce(&d.titles[2], d.doc.Keep(top.Get(cfSummary).Text()))
	case "ai-title":
		d.titles[1] = d.doc.Keep(top.Get(cfAITitle).Text())
	case "custom-title":
		d.titles[0] = d.doc.Keep(top.Get(cfCustomTitle).Text())
	case "system":
		d.setting(top)
	}
}

// cutShort reads a record cut short as far as it goes: the last line of
// a session whose agent stopped writing it, or a line a publisher's
// redaction cut in the middle of a string. The record stays reported as
// malformed. An assistant's record gives its tool calls; a user's, the
// results it holds. The content block the cut fell in is read only when
// what names its call is whole (see wholeBlock). A result cut in its text
// has lost the error flag that follows it: its "Exit code N" line still
// tells a shell command's failure, but another tool's error reads as a
// success.
func (d *claudeDecoder) cutShort(line []byte, n int) {
	s := bytesString(line)
	text, cut, ok := rawjson.Complete(s)
	if !ok {
		return
	}
	var rec claudeRecord
	role := d.cutRecord(text, &rec)
	if role == "" {
		return
	}
	var last rawjson.Value
	for b := range rec.msg.Get(cmContent).Elements() {
		last = b
	}
	if last.Exists() && last.Offset()+len(last.Raw()) > cut.At && !wholeBlock(last, cut) {
		// Read the record as if cut before the block.
		if text, _, ok = rawjson.Complete(s[:last.Offset()]); !ok || d.cutRecord(text, &rec) == "" {
			return
		}
	}
	d.envelope(&rec, n)
	if role == "assistant" {
		d.assistant(&rec, n)
	} else {
		d.cut = true
		d.user(&rec, n)
		d.cut = false
	}
}

// wholeBlock reports whether block, the content block a record's cut fell
// in, still names its call: a tool_use whose input is not empty and whose
// id, name, command, file or page the cut did not fall in; a tool_result
// whose id is whole; any other block.
func wholeBlock(block rawjson.Value, cut rawjson.Cut) bool {
	switch block.Get("type").Text() {
	case "tool_use":
		if callNames[cut.Key] {
			return false
		}
		for range block.Get("input").Members() {
			return true
		}
		return false
	case "tool_result":
		// Results that failed give their id after their content.
		return cut.Key != "tool_use_id" && block.Get("tool_use_id").Exists()
	}
	return true
}

// callNames are the members of a tool_use that name its call.
var callNames = map[string]bool{
	"id": true, "name": true, "type": true, "command": true, "file_path": true, "filePath": true,
	"path": true, "notebook_path": true, "absolute_path": true, "url": true, "pattern": true,
}

// cutRecord reads text, a record cut short and closed, into rec, and
// returns whose it is, "assistant" or "user"; "" for any other record.
// Its type may follow its message, and be cut.
func (d *claudeDecoder) cutRecord(text string, rec *claudeRecord) string {
	root, ok := d.doc.Record(text, claudeNames, &rec.top, &rec.msg)
	if !ok || root.Kind() != rawjson.Object {
		return ""
	}
	role := rec.top.Get(cfType).Text()
	if role == "" {
		role = rec.msg.Object().Get("role").Text()
	}
	if role != "assistant" && role != "user" {
		return ""
	}
	return role
}

// envelope takes the session facts every conversation record repeats, the
// record being at line n.
func (d *claudeDecoder) envelope(rec *claudeRecord, n int) {
	top := &rec.top
	d.setting(top)
	ts := top.Get(cfTimestamp).Text()
	t := parseTime(ts)
	if t.IsZero() && ts != "" {
		if d.badTime == 0 {
			d.badLine, d.badText = n, d.doc.Keep(ts)
		}
		d.badTime++
	}
	d.s.dated(t)
}

// setting takes the session's id, folder and version from the first record
// that gives each, in either spelling.
func (d *claudeDecoder) setting(top *rawjson.Fields) {
	if d.s.ID == "" {
		d.s.ID = d.doc.Keep(either(top, cfSessionID, cfSessionIDSnake).Text())
	}
	if d.s.Cwd == "" {
		d.s.Cwd = d.doc.Keep(top.Get(cfCwd).Text())
	}
	if d.s.Agent == "" {
		d.s.Agent = d.doc.Keep(either(top, cfVersion, cfCodeVersion).Text())
	}
}

// either returns the member of index i, or that of index j when i is absent.
func either(top *rawjson.Fields, i, j int) rawjson.Value {
	if v := top.Get(i); v.Exists() {
		return v
	}
	return top.Get(j)
}

func (d *claudeDecoder) assistant(rec *claudeRecord, n int) {
	m := &rec.msg
	id := m.Get(cmID).Text()
	if id == "" || id != d.msgID {
		d.msg++
		d.msgID = d.doc.Keep(id)
		d.msgCall = nil
	}
	if model := m.Get(cmModel).Text(); model != "" && model != "<synthetic>" && d.s.Model == "" {
		d.s.Model = d.doc.Keep(model)
	}
	when := parseTime(rec.top.Get(cfTimestamp).Text())
	side := d.sidechain(rec)
	var b rawjson.Fields
	for range m.Get(cmContent).PickEach(blockNames, &b) {
		switch b.Get(bkType).Text() {
		case "text":
			d.text = d.doc.Keep(b.Get(bkText).Text())
		case "tool_use":
			d.toolUse(&b, n, when, side)
		}
	}
	if d.msgCall != nil {
		// Each record of a split response repeats the usage so far.
		if t := int(m.Get(cmUsage).Get("output_tokens").Int()); t > d.msgCall.Tokens {
			d.msgCall.Tokens = t
		}
	}
}

// The members of an assistant's content block that the decoder reads, by
// their index in blockNames.
const (
	bkType = iota
	bkID
	bkName
	bkInput
	bkText
)

var blockNames = rawjson.NewNames("type", "id", "name", "input", "text")

func (d *claudeDecoder) toolUse(b *rawjson.Fields, n int, when time.Time, side string) {
	id := b.Get(bkID).Text()
	name, input := b.Get(bkName), b.Get(bkInput)
	if id != "" && d.first[id] != nil {
		// A replayed copy of a call already read, unless it differs.
		if f := d.first[id]; f.use != d.digest(name.Raw(), input.Raw()) {
			d.s.skip(n, fmt.Sprintf("tool_use %q has the id of the call at line %d but another name or input; skipped", id, f.useLine))
		}
		return
	}
	c := &Call{
		Msg:       d.msg,
		ID:        id,
		Tool:      d.name(name.Text()),
		Start:     when,
		Text:      strings.Clone(abridgeText(d.text)), // not a slice of a long text
		Sidechain: side,
		Status:    StatusNoResult,
		Pos:       Pos{File: d.s.Path, Line: n},
	}
	c.Kind = KindOf(c.Tool)
	setInput(c, input, d.doc.Keep, d.name)
	if id != "" {
		id = d.doc.Keep(id)
		c.ID = id
		d.first[id] = &claudeFirst{useLine: n, use: d.digest(name.Raw(), input.Raw())}
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

// isType reports whether a content block's type is typ, as the gjson
// query #(type=="typ") decides: a string equal to it, or, as gjson
// compares a number with a word, the number 0.
func isType(block rawjson.Value, typ string) bool {
	return block.Kind() == rawjson.Object && typeIs(block.Get("type"), typ)
}

// typeIs is isType of a block whose type is t.
func typeIs(t rawjson.Value, typ string) bool {
	return t.Kind() == rawjson.String && t.Text() == typ || t.Kind() == rawjson.Number && t.Float() == 0
}

// A claudeResult is what the decoder reads of a tool_result block.
type claudeResult struct {
	id, isError, content rawjson.Value
}

func (d *claudeDecoder) user(rec *claudeRecord, n int) {
	d.msg++
	d.msgID = ""
	d.text = ""
	content := rec.msg.Get(cmContent)
	when := parseTime(rec.top.Get(cfTimestamp).Text())
	isMeta := rec.top.Get(cfIsMeta).Bool()
	if content.Kind() == rawjson.String {
		if len(d.waiting) > 0 {
			d.notices(content.Text(), when)
		}
		if !isMeta {
			setOnce(&d.titles[3], d.doc.Keep(promptTitle(content.Text())))
		}
		return
	}
	var b rawjson.Fields
	var buf [4]claudeResult
	results := buf[:0]
	if content.Kind() == rawjson.Array {
		for block := range content.PickEach(resultNames, &b) {
			switch {
			case block.Kind() != rawjson.Object:
			case typeIs(b.Get(rsType), "tool_result"):
				results = append(results, claudeResult{b.Get(rsToolUseID), b.Get(rsIsError), b.Get(rsContent)})
			case len(d.waiting) > 0 && typeIs(b.Get(rsType), "text"):
				d.notices(b.Get(rsText).Text(), when)
			}
		}
	}
	for i := range results {
		f := &results[i]
		id := f.id.Text()
		first := d.first[id]
		if first == nil {
			d.s.skip(n, "tool_result for unknown tool_use "+strconv.Quote(id))
			continue
		}
		sum := d.digest(f.content.Raw(), f.isError.Raw())
		if first.resultLine != 0 {
			// A replayed copy of a result already read, unless it differs
			// (not from one cut short: the call is handed on already).
			if first.result != sum && !first.cutResult {
				d.s.skip(n, fmt.Sprintf("tool_result for %q differs from the one at line %d; skipped", id, first.resultLine))
			}
			continue
		}
		first.resultLine, first.result, first.cutResult = n, sum, d.cut
		var extra rawjson.Value
		if len(results) == 1 {
			extra = either(&rec.top, cfToolUseResult, cfToolUseResultSnake)
		}
		if bg, ok := d.polls[id]; ok {
			delete(d.polls, id)
			d.poll(bg, f, extra, when)
			continue
		}
		c := d.byID[id]
		if d.forget {
			delete(d.byID, id)
		}
		held := d.result(c, f, extra, when)
		if bg, ok := d.reads[id]; ok {
			delete(d.reads, id)
			d.readBack(bg, c, f, extra)
		}
		if d.done != nil && !held {
			d.ready = append(d.ready, c)
		}
	}
	if len(results) == 0 && !isMeta {
		var text string
		for block := range content.Elements() {
			if isType(block, "text") {
				text = block.Get("text").Text()
				break
			}
		}
		setOnce(&d.titles[3], d.doc.Keep(promptTitle(text)))
	}
}

// The members of a user's content block that the decoder reads, by their
// index in resultNames: a tool_result's, after its type, and a text
// block's text.
const (
	rsType = iota
	rsToolUseID
	rsIsError
	rsContent
	rsText
)

var resultNames = rawjson.NewNames("type", "tool_use_id", "is_error", "content", "text")

// The members of a toolUseResult that the decoder reads, by their index in
// toolUseResultNames.
const (
	tuInterrupted = iota
	tuReturnCodeInterpretation
	tuBackgroundTaskID
	tuBackgroundedByUser
)

var toolUseResultNames = rawjson.NewNames("interrupted", "returnCodeInterpretation", "backgroundTaskId", "backgroundedByUser")

// result fills in c from its tool_result block f and the record's
// toolUseResult, which is a string on failure and an object on success.
// It reports whether c went to the background, where it waits for its
// outcome.
func (d *claudeDecoder) result(c *Call, f *claudeResult, extra rawjson.Value, when time.Time) bool {
	c.Status = ""
	c.End = when
	c.IsError = f.isError.Bool()
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
	if f.content.Kind() == rawjson.String {
		c.Output = d.doc.Keep(abridgeString(f.content, exit))
	} else {
		out := blockText(f.content)
		c.Output = d.doc.Keep(abridgeBytes(out[exit(out):]))
	}
	if code != nil {
		c.Exit = code
	}
	var e rawjson.Fields
	if extra.Kind() == rawjson.Object {
		extra.Pick(toolUseResultNames, &e)
		if e.Get(tuInterrupted).Bool() {
			c.Status = StatusInterrupted
		}
		c.Note = d.doc.Keep(e.Get(tuReturnCodeInterpretation).Text())
	}
	if c.Kind != KindShell || c.IsError || c.Status != "" {
		return false
	}
	return d.startBackground(c, c.Output, e.Get(tuBackgroundTaskID).Text(), e.Get(tuBackgroundedByUser).Bool())
}

// finish settles the title and notes unreadable timestamps. Calls that
// never got a result keep the status "no-result".
func (d *claudeDecoder) finish() {
	switch {
	case d.badTime == 1:
		d.s.Notes = append(d.s.Notes, fmt.Sprintf("timestamp %q at line %d is not an RFC 3339 date and time; that record has no time",
			termtext.Cut(d.badText, 40), d.badLine))
	case d.badTime > 1:
		d.s.Notes = append(d.s.Notes, fmt.Sprintf("%d timestamps are not RFC 3339 dates and times, the first %q at line %d; those records have no time",
			d.badTime, termtext.Cut(d.badText, 40), d.badLine))
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
	cutResult           bool // the result read was cut short: a whole copy differs
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
// conversation. A stream-json record names it by the Task call that
// started it.
func (d *claudeDecoder) sidechain(rec *claudeRecord) string {
	if !rec.top.Get(cfIsSidechain).Bool() {
		if id := rec.top.Get(cfParentToolUseID).Text(); id != "" {
			return d.name(id)
		}
		return ""
	}
	if id := rec.top.Get(cfAgentID).Text(); id != "" {
		return d.name(id)
	}
	return "sidechain"
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
