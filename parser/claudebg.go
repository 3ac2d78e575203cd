package parser

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// Claude Code runs a shell command in the background when the agent asks
// for it (the Bash input run_in_background), when the command outlives its
// timeout, or when the user moves it there; the call's result then only
// says "Command running in background with ID: ID". The outcome comes
// later: through BashOutput and TaskOutput polls (the status, the exit
// code, the output so far), KillShell or TaskStop, a <task-notification>
// or a "Background Bash" system reminder in a user message, and a Read of
// the task's output file (…/tasks/ID.output). The decoder joins them to
// the call, as the Codex decoder folds write_stdin polls into their
// exec_command: the call gets the final status, exit code and end time,
// and its output is its own result, then the output read back, then the
// agent's summary of the outcome. The polls are not calls of their own; a
// Read of the output file stays a call.
//
// A background call is final, and handed to done, once its outcome is
// known and its output file has been read after it, or bgSettleCalls calls
// after its outcome, or bgRunCalls calls after it started with no outcome,
// when it keeps the status "running"; what comes later is not joined.
// The windows bound what a long session holds back while it streams.

// The join windows of a background call, in calls made after it.
const (
	bgSettleCalls = 20   // after its outcome, for a Read of its output file
	bgRunCalls    = 1000 // after it started, for its outcome
)

// A claudeBackground is a command Claude Code ran in the background, with
// what is known of its outcome so far.
type claudeBackground struct {
	c       *Call
	head    string // the call's own result, which says it went to the background
	body    string // the output read back, abridged
	bodyLen int    // the length of the output body holds, before abridging
	tail    string // the agent's summary of the outcome: the notification's, KillShell's
	start   int    // the number of calls made when it went to the background
	settled int    // the number of calls made when its outcome arrived
	final   bool   // its outcome has arrived
	done    bool   // handed on: nothing more is joined
}

// bgStartRE matches the result of a call that went to the background,
// with the task's id.
var bgStartRE = regexp.MustCompile(`^Command (?:running in background|was manually backgrounded by user) with ID: ([\w-]+)|^Command did not complete within .{1,80}? and was moved to the background \(ID: ([\w-]+)\)`)

// pollTools are the tools with which the agent asks after, or stops, a
// background command.
var pollTools = map[string]bool{
	"BashOutput": true, "TaskOutput": true, "KillShell": true, "KillBash": true, "TaskStop": true,
}

// pollIDKeys name the input that holds the task a poll is about.
var pollIDKeys = []string{"task_id", "bash_id", "shell_id"}

// count returns the number of calls the session has made so far.
func (d *claudeDecoder) count() int {
	if d.forget {
		return d.calls
	}
	return len(d.s.Calls)
}

// startBackground makes c, whose result out says it went to the
// background, wait for its outcome. id is the task id the record's
// toolUseResult gives, byUser whether it says the user moved it; without
// them, the result's text says. It reports whether c went to the
// background.
func (d *claudeDecoder) startBackground(c *Call, out, id string, byUser bool) bool {
	var m []string
	if strings.HasPrefix(out, "Command ") { // most outputs are not: no regexp for them
		m = bgStartRE.FindStringSubmatch(out)
	}
	if id == "" && m != nil {
		id = m[1] + m[2]
	}
	if id == "" {
		return false
	}
	switch {
	case byUser || m != nil && strings.Contains(m[0], "by user"):
		c.Background = BackgroundUser
	case c.Args["run_in_background"] == "true":
		c.Background = BackgroundAsked
	default:
		c.Background = BackgroundTimeout
	}
	c.Status = StatusRunning
	b := &claudeBackground{c: c, head: c.Output, start: d.count()}
	if d.bg == nil {
		d.bg = make(map[string]*claudeBackground)
	}
	d.bg[d.doc.Keep(id)] = b
	d.waiting = append(d.waiting, b)
	return true
}

// polled returns the background command the poll c asks after, or nil
// when c is no poll of a known one.
func (d *claudeDecoder) polled(c *Call) *claudeBackground {
	if len(d.bg) == 0 || !pollTools[c.Tool] {
		return nil
	}
	for _, k := range pollIDKeys {
		if b := d.bg[c.Args[k]]; b != nil {
			return b
		}
	}
	return nil
}

// taskOutputRE matches the path of a background task's output file.
var taskOutputRE = regexp.MustCompile(`(?:^|[/\\])tasks[/\\]([\w-]+)\.output$`)

// readsBack returns the background command whose output file the Read
// call c reads, or nil.
func (d *claudeDecoder) readsBack(c *Call) *claudeBackground {
	if len(d.waiting) == 0 || c.Kind != KindRead {
		return nil
	}
	m := taskOutputRE.FindStringSubmatch(c.File)
	if m == nil {
		return nil
	}
	if b := d.bg[m[1]]; b != nil && !b.done {
		return b
	}
	return nil
}

// bgNews is what a poll, a notification or a read says of a background
// command.
type bgNews struct {
	status  string // running, completed, failed, killed; "" when it does not say
	exit    *int
	output  string
	whole   bool   // output is all the command printed so far, not what is new
	summary string // a line that tells the outcome, as the agent saw it
}

// poll joins the result of a poll to b: f is its tool_result block, extra
// the record's toolUseResult.
func (d *claudeDecoder) poll(b *claudeBackground, f *claudeResult, extra rawjson.Value, when time.Time) {
	if b.done {
		return
	}
	d.hear(b, pollNews(blockText(f.content), extra, f.isError.Bool()), when)
}

// pollNews reads the result text of a poll, and its toolUseResult extra:
// TaskOutput's <retrieval_status>, <status>, <exit_code> and <output>
// (or extra's task), BashOutput's <status>, <exit_code>, <stdout> and
// <stderr>, KillShell's and TaskStop's message, or their error saying the
// shell no longer runs.
func pollNews(text string, extra rawjson.Value, isError bool) bgNews {
	var n bgNews
	if task := extra.Get("task"); task.Kind() == rawjson.Object {
		n.status = task.Get("status").Text()
		n.output, n.whole = task.Get("output").Text(), true
		if e := task.Get("exitCode"); e.Kind() == rawjson.Number {
			code := int(e.Int())
			n.exit = &code
		}
		return n
	}
	if m := notRunningRE.FindStringSubmatch(text); m != nil {
		n.status = m[1]
		return n
	}
	if isError {
		return n // no shell of that id, or the poll itself failed
	}
	if strings.HasPrefix(text, "{") {
		if msg := rawjson.Peek(text).Get("message").Text(); killedRE.MatchString(msg) {
			n.status, n.summary = "killed", msg
		}
		return n
	}
	n.status = shortTag(text, "status")
	n.exit = tagInt(text, "exit_code")
	if out, ok := tagText(text, "output"); ok {
		n.output, n.whole = out, true
		return n
	}
	stdout, _ := tagText(text, "stdout")
	stderr, _ := tagText(text, "stderr")
	n.output = joinLines(stdout, stderr)
	return n
}

var (
	// notRunningRE matches KillShell's error for a shell that had ended.
	notRunningRE = regexp.MustCompile(`is not running, so cannot be (?:killed|stopped) \(status: (\w+)\)`)
	// killedRE matches KillShell's and TaskStop's success.
	killedRE = regexp.MustCompile(`^Successfully (?:killed shell|stopped task)`)
)

// shortTag returns the trimmed text between <name> and the first </name>
// after it in s: a tag that holds a word, not output.
func shortTag(s, name string) string {
	_, rest, ok := strings.Cut(s, "<"+name+">")
	if !ok {
		return ""
	}
	t, _, ok := strings.Cut(rest, "</"+name+">")
	if !ok {
		return ""
	}
	return strings.TrimSpace(t)
}

// tagInt returns the integer between <name> and </name> in s, or nil.
func tagInt(s, name string) *int {
	code, err := strconv.Atoi(shortTag(s, name))
	if err != nil {
		return nil
	}
	return &code
}

var (
	// noticeRE matches a task notification, in a user message.
	noticeRE = regexp.MustCompile(`(?s)<task-notification>(.*?)</task-notification>`)
	// reminderBashRE matches the system reminder of a background shell's
	// status: "Background Bash ID (command: …) (status: S) (exit code: N)".
	reminderBashRE = regexp.MustCompile(`(?m)Background Bash ([\w-]+) \((?:command|description): .*?\) \(status: (\w+)\)(?: \(exit code: (-?\d+)\))?`)
	// exitCodeWordsRE matches the exit code a notification's summary gives.
	exitCodeWordsRE = regexp.MustCompile(`exit code (-?\d+)`)
)

// notices joins to their background commands the task notifications and
// status reminders of a user message's text.
func (d *claudeDecoder) notices(text string, when time.Time) {
	if strings.Contains(text, "<task-notification>") {
		for _, m := range noticeRE.FindAllStringSubmatch(text, -1) {
			d.notice(m[1], when)
		}
	}
	if strings.Contains(text, "Background Bash ") {
		for _, m := range reminderBashRE.FindAllStringSubmatch(text, -1) {
			if b := d.bg[m[1]]; b != nil && !b.done {
				n := bgNews{status: m[2]}
				if m[3] != "" {
					code, _ := strconv.Atoi(m[3])
					n.exit = &code
				}
				d.hear(b, n, when)
			}
		}
	}
}

// notice joins one task notification, the text between its tags, to its
// background command, found by its task id or its tool_use id.
func (d *claudeDecoder) notice(body string, when time.Time) {
	b := d.bg[shortTag(body, "task-id")]
	if b == nil {
		use := shortTag(body, "tool-use-id")
		for _, w := range d.waiting {
			if use != "" && w.c.ID == use {
				b = w
			}
		}
	}
	if b == nil || b.done {
		return
	}
	n := bgNews{status: shortTag(body, "status"), summary: shortTag(body, "summary")}
	if m := exitCodeWordsRE.FindStringSubmatch(n.summary); m != nil {
		code, _ := strconv.Atoi(m[1])
		n.exit = &code
	}
	d.hear(b, n, when)
}

// readBack joins the content of a Read of b's output file, the call r
// with the members f of its tool_result and the record's toolUseResult
// extra, to b. A read after the outcome is the last thing joined.
func (d *claudeDecoder) readBack(b *claudeBackground, r *Call, f *claudeResult, extra rawjson.Value) {
	if b.done || r.IsError {
		return
	}
	content, whole := readContent(blockText(f.content), extra)
	d.hear(b, bgNews{output: content, whole: whole}, time.Time{})
	if b.final {
		d.handOn(b)
	}
}

var (
	// readLineRE matches the line number Claude Code's Read puts before
	// each line of a file.
	readLineRE = regexp.MustCompile(`(?m)^ *\d+(?:→|\t)`)
	// systemReminderRE matches a system reminder the agent appended.
	systemReminderRE = regexp.MustCompile(`(?s)\s*<system-reminder>.*?</system-reminder>\s*`)
)

// readContent returns the file content a Read gave, from the record's
// toolUseResult extra ({"file": {"content", "startLine"}}) or else from
// its result text, and whether it is the file from its start.
func readContent(text string, extra rawjson.Value) (string, bool) {
	if file := extra.Get("file"); file.Kind() == rawjson.Object {
		return file.Get("content").Text(), file.Get("startLine").Int() <= 1
	}
	text = systemReminderRE.ReplaceAllString(text, "\n")
	text = readLineRE.ReplaceAllString(text, "")
	return strings.TrimSpace(text), true
}

// hear joins what n says to b.
func (d *claudeDecoder) hear(b *claudeBackground, n bgNews, when time.Time) {
	c := b.c
	n.output = strings.TrimRight(n.output, "\r\n")
	switch {
	case n.output == "":
	case n.whole && len(n.output) >= b.bodyLen:
		// A view of all the output so far: the latest and longest wins.
		b.body, b.bodyLen = d.doc.Keep(abridgeBytes(n.output)), len(n.output)
	case !n.whole:
		b.body, b.bodyLen = d.doc.Keep(abridgeBytes(joinLines(b.body, n.output))), b.bodyLen+len(n.output)
	}
	if n.status != "" && !b.final && !when.IsZero() && when.After(c.End) {
		c.End = when // it ran at least until then
	}
	switch n.status {
	case "completed", "failed", "killed", "stopped":
		if b.final {
			break // the first outcome stands
		}
		b.final, b.settled = true, d.count()
		if n.summary != "" {
			b.tail = d.doc.Keep(n.summary)
		}
		if n.status == "killed" || n.status == "stopped" {
			c.Status = StatusKilled
			break
		}
		c.Status = ""
		c.Exit = n.exit
		c.IsError = n.status == "failed" || n.exit != nil && *n.exit != 0
	}
	c.Output = abridgeBytes(joinLines(joinLines(b.head, b.body), b.tail))
}

// handOn makes b final: the decoder joins nothing more to it and hands
// its call to done.
func (d *claudeDecoder) handOn(b *claudeBackground) {
	if b.done {
		return
	}
	b.done = true
	c := b.c
	b.c, b.head, b.body, b.tail = nil, "", "", ""
	d.waiting = slices.DeleteFunc(d.waiting, func(w *claudeBackground) bool { return w == b })
	if d.done != nil {
		d.ready = append(d.ready, c) // handed out once the record is let go
	}
}

// expire hands on the background calls whose join windows have passed.
func (d *claudeDecoder) expire() {
	if len(d.waiting) == 0 {
		return
	}
	n := d.count()
	var late []*claudeBackground
	for _, b := range d.waiting {
		if b.final && n-b.settled > bgSettleCalls || !b.final && n-b.start > bgRunCalls {
			late = append(late, b)
		}
	}
	for _, b := range late {
		d.handOn(b)
	}
}
