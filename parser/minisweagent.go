package parser

import (
	"bytes"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// mini-swe-agent saves a run as one pretty-printed JSON object,
// <instance>.traj.json: {"info": {"mini_version", "config", "exit_status",
// "submission", …}, "messages": [...], "trajectory_format"}. The messages
// are the chat sent to the model. In the text modes an assistant message
// holds one command, in a ```bash block (mini-swe-agent 1) or in a
// ```mswea_bash_command block or <mswea_bash_command> tag (mini-swe-agent
// 2, which also lists it in extra.actions), and the next user message is
// its result; a reply with no block or several runs nothing. In the
// tool-call mode assistant messages carry OpenAI tool_calls answered by
// role "tool" messages. A result reads "<returncode>N</returncode>" and
// then the output in <output> (or <output_head>, <elided_chars> and
// <output_tail> when long), after an <exception> when running the command
// raised one. A command that ran too long is answered by "The last command
// <command>…</command> timed out and has been killed", one the interactive
// user refused by "Command not executed". The final submission is a role
// "exit" message in version 2 and a plain user message in version 1. A
// call's message index is the index of its assistant message in
// "messages".

func matchMiniSWEAgent(head []byte) bool {
	if jsonStart(head) != '{' {
		return false
	}
	var f rawjson.Fields
	rawjson.Peek(bytesString(head)).Pick(miniHeadNames, &f)
	info := f.Get(mhInfo)
	if strings.HasPrefix(f.Get(mhTrajectoryFormat).Text(), "mini-swe-agent") || info.Get("mini_version").Exists() {
		return true
	}
	if info.Kind() != rawjson.Object && f.Get(mhMessages).Kind() != rawjson.Array {
		return false
	}
	// "info" holds the whole configuration before mini_version, which may
	// put it past the head. A needle that starts with a quote is slow to
	// find in JSON, which is full of them: look for a rarer part first.
	if !bytes.Contains(head, []byte("mini_version")) && !bytes.Contains(head, []byte("minisweagent.")) {
		return false
	}
	return bytes.Contains(head, []byte(`"mini_version":`)) ||
		bytes.Contains(head, []byte(`"agent_type": "minisweagent.`)) ||
		bytes.Contains(head, []byte(`"agent_type":"minisweagent.`))
}

// The members of a trajectory's head that matchMiniSWEAgent reads, by
// their index in miniHeadNames.
const (
	mhTrajectoryFormat = iota
	mhInfo
	mhMessages
)

var miniHeadNames = rawjson.NewNames("trajectory_format", "info", "messages")

// miniActionRE finds the command blocks of the text modes; mini-swe-agent
// runs a reply's command only when there is exactly one.
var miniActionRE = regexp.MustCompile("(?s)```(?:bash|mswea_bash_command)[ \t]*\r?\n(.*?)\r?\n```|<mswea_bash_command>(.*?)</mswea_bash_command>")

type miniDecoder struct {
	s       *Session
	lines   *lineCounter
	pending []*Call          // calls of the last assistant message without a result
	byID    map[string]*Call // pending calls by tool call id
}

func decodeMiniSWEAgent(r io.Reader, name string) (*Session, error) {
	d := &miniDecoder{s: &Session{Path: name, Format: "mini-swe-agent", Calls: []*Call{}}}
	root, lines, release, err := readJSONDoc(r, d.s)
	defer release()
	d.lines = lines
	if root.Kind() != rawjson.Object {
		if len(d.s.Skipped) == 0 {
			d.s.skip(1, "not a JSON object: expected a mini-swe-agent trajectory")
		}
		return d.s, err
	}
	info := root.Get("info")
	d.s.ID = root.Get("instance_id").Text()
	d.s.Agent = info.Get("mini_version").Text()
	d.s.Model = info.Path("config", "model", "model_name").Text()
	d.s.Cwd = info.Path("config", "environment", "cwd").Text()
	i := -1
	for m := range root.Get("messages").Values() {
		i++
		if !m.Valid() {
			break // the cut-off end of a broken file
		}
		d.message(m, i)
	}
	sortSkipped(d.s)
	return d.s, err
}

func (d *miniDecoder) message(m rawjson.Value, i int) {
	when := epochSeconds(m.Path("extra", "timestamp"))
	d.s.dated(when)
	content := blockText(m.Get("content"))
	switch m.Get("role").Text() {
	case "assistant":
		d.assistant(m, i, content, when)
	case "tool":
		id := m.Get("tool_call_id").Text()
		c := d.byID[id]
		if c == nil || c.Status != StatusNoResult {
			c = d.next()
		}
		if c == nil {
			d.s.skip(d.lines.at(m.Offset()), "tool result for unknown tool call "+strconv.Quote(id))
			return
		}
		d.result(c, m, content, when)
	case "user", "exit":
		if c := d.next(); c != nil {
			d.result(c, m, content, when)
		} else if len(d.s.Calls) == 0 && d.s.Title == "" {
			d.s.Title = taskTitle(content)
		}
	}
}

// next returns the first pending call without a result, or nil.
func (d *miniDecoder) next() *Call {
	for _, c := range d.pending {
		if c.Status == StatusNoResult {
			return c
		}
	}
	return nil
}

func (d *miniDecoder) assistant(m rawjson.Value, i int, content string, when time.Time) {
	d.pending = d.pending[:0]
	d.byID = make(map[string]*Call)
	setOnce(&d.s.Model, m.Path("extra", "response", "model").Text())
	line := d.lines.at(m.Offset())
	text := content
	newCall := func(id, tool string, line int) *Call {
		c := &Call{Msg: i, ID: id, Tool: tool, Kind: KindOf(tool), Start: when, Status: StatusNoResult,
			Pos: Pos{File: d.s.Path, Line: line}}
		c.Text = abridgeText(text)
		text = ""
		d.pending = append(d.pending, c)
		if id != "" {
			d.byID[id] = c
		}
		return c
	}
	if tcs := m.Get("tool_calls"); hasElements(tcs) {
		for tc := range tcs.Elements() {
			c := newCall(tc.Get("id").Text(), tc.Path("function", "name").Text(), d.lines.at(tc.Offset()))
			setArguments(c, tc.Path("function", "arguments"))
		}
	} else if acts := m.Path("extra", "actions"); hasElements(acts) {
		text = textBeforeBlock(content)
		for a := range acts.Elements() {
			c := newCall(a.Get("tool_call_id").Text(), "bash", line)
			c.Command = a.Get("command").Text()
			if c.Command == "" {
				c.Command = a.Get("action").Text()
			}
		}
	} else if blocks := miniActionRE.FindAllStringSubmatch(content, 2); len(blocks) == 1 {
		text = textBeforeBlock(content)
		c := newCall("", "bash", line)
		c.Command = strings.TrimSpace(blocks[0][1] + blocks[0][2])
	}
	if len(d.pending) > 0 {
		d.pending[0].Tokens = int(m.Path("extra", "response", "usage", "completion_tokens").Int())
	}
	for _, c := range d.pending {
		d.s.add(c)
	}
}

func (d *miniDecoder) result(c *Call, m rawjson.Value, content string, when time.Time) {
	c.Status = ""
	c.End = when
	readObservation(c, content)
	if c.Exit == nil {
		if rc := m.Path("extra", "returncode"); rc.Kind() == rawjson.Number {
			code := int(rc.Int())
			c.Exit = &code
		}
	}
	if exc := m.Path("extra", "exception_info").Text(); exc != "" && c.Status == "" && timeoutRE.MatchString(exc) {
		c.Status = StatusInterrupted
	}
}

var (
	returncodeRE = regexp.MustCompile(`<returncode>\s*(-?\d+)\s*</returncode>`)
	// timeoutRE matches the ways mini-swe-agent says a command was killed
	// for running too long.
	timeoutRE = regexp.MustCompile(`(?i)timed out|TimeoutExpired`)
)

// readObservation sets c's exit code, output and status from the text
// mini-swe-agent answers a command with. Text without a <returncode> is
// kept whole; a timeout notice marks the call interrupted, and the notice
// of a command the user refused marks it rejected.
func readObservation(c *Call, text string) {
	trimmed := strings.TrimSpace(text)
	switch {
	case strings.HasPrefix(trimmed, "The last command <command>") && strings.Contains(text, "timed out"):
		c.Status = StatusInterrupted
		c.Output = abridge(text)
		return
	case strings.HasPrefix(trimmed, "Command not executed"):
		// The interactive agent's user said no.
		c.Status = StatusRejected
		c.IsError = true
		c.Output = abridge(text)
		return
	}
	loc := returncodeRE.FindStringSubmatchIndex(text)
	if loc == nil {
		c.Output = abridge(text)
		return
	}
	if code, err := strconv.Atoi(text[loc[2]:loc[3]]); err == nil {
		c.Exit = &code
	}
	exc, _ := tagText(text[:loc[0]], "exception")
	rest := text[loc[1]:]
	out, ok := tagText(rest, "output")
	if !ok {
		if head, ok := tagText(rest, "output_head"); ok {
			elided, _ := tagText(rest, "elided_chars")
			tail, _ := tagText(rest, "output_tail")
			out = head + "\n[… " + strings.TrimSpace(elided) + " …]\n" + tail
		} else {
			out = strings.TrimSpace(rest)
		}
	}
	if exc = strings.TrimSpace(exc); exc != "" {
		out = exc + "\n" + out
		if timeoutRE.MatchString(exc) {
			c.Status = StatusInterrupted
		}
	}
	c.Output = abridge(out)
}

// tagText returns the text between <tag> and the last </tag> in s, without
// the newline that follows the opening tag and the one before the closing.
func tagText(s, tag string) (string, bool) {
	open, end := "<"+tag+">", "</"+tag+">"
	i := strings.Index(s, open)
	if i < 0 {
		return "", false
	}
	s = s[i+len(open):]
	if j := strings.LastIndex(s, end); j >= 0 {
		s = s[:j]
	}
	s = strings.TrimPrefix(strings.TrimPrefix(s, "\r"), "\n")
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	return s, true
}

// textBeforeBlock returns the reasoning a text-mode reply gives before its
// command block.
func textBeforeBlock(content string) string {
	if loc := miniActionRE.FindStringIndex(content); loc != nil {
		content = content[:loc[0]]
	}
	content = strings.TrimSpace(content)
	return strings.TrimSpace(strings.TrimPrefix(content, "THOUGHT:"))
}

// taskTitle returns the first line of a task prompt, passing over the tags
// and the lead-in line that task templates wrap around the task.
func taskTitle(prompt string) string {
	if _, after, ok := strings.Cut(prompt, "<pr_description>"); ok {
		prompt = after
	}
	for line := range strings.SplitSeq(prompt, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "<") || line == "Consider the following PR description:" {
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Please solve this issue:"); ok && strings.TrimSpace(rest) != "" {
			line = strings.TrimSpace(rest)
		}
		return termtext.Cut(line, 100)
	}
	return ""
}

// epochSeconds reads a time given in seconds since 1970, with a fraction.
func epochSeconds(v rawjson.Value) time.Time {
	if v.Kind() != rawjson.Number || v.Float() <= 0 || v.Float() > 1e11 {
		return time.Time{}
	}
	sec, frac := math.Modf(v.Float())
	return time.Unix(int64(sec), int64(math.Round(frac*1e6))*1e3).UTC()
}

// hasElements reports whether v is an array with an element.
func hasElements(v rawjson.Value) bool {
	for range v.Elements() {
		return true
	}
	return false
}
