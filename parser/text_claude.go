package parser

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
)

// A claudeConsole reads a copy of Claude Code's terminal.
type claudeConsole struct {
	*textReader
	dot     string // the bullet, ⏺ or ●
	started bool   // the result of the call being read has begun

	head     textBuf // the call header being read
	headTool string
	headLine int
	cont     []int // the lines of out that continue a block, not start one

	collapsed int // outputs the console collapsed to a few lines
}

// newClaudeConsole returns the reader of a console whose head tells the
// bullet Claude Code used.
func newClaudeConsole(r *textReader, head []byte) *claudeConsole {
	dot := "⏺"
	if !bytes.Contains(head, []byte("⏺")) && bytes.Contains(head, []byte("●")) {
		dot = "●"
	}
	return &claudeConsole{textReader: r, dot: dot}
}

var (
	// textClaudeCallRE matches the start of Claude Code's call header,
	// "⏺ Bash(", with two-word names ("Web Search(") and MCP tools
	// ("ctx:query (MCP)("); the arguments follow to the end of the line.
	textClaudeCallRE = regexp.MustCompile(`^(?:⏺|●) ([A-Z][A-Za-z0-9_]*(?: [A-Z][A-Za-z0-9_]*)?|[A-Za-z0-9_.-]+(?::| - )[A-Za-z0-9_.-]+ \(MCP\)|mcp__[A-Za-z0-9_-]+)\(`)
	// textClaudeTodosRE matches the todo tools, shown without arguments.
	textClaudeTodosRE = regexp.MustCompile(`^(?:⏺|●) ((?:Update|Read) Todos)\s*$`)
	textClaudeCwdRE   = regexp.MustCompile(`cwd: (\S.*?)\s*│?\s*$`)
	textClaudeHookRE  = regexp.MustCompile(`^(?:PreToolUse|PostToolUse|Stop|SubagentStop|UserPromptSubmit)(?::\S+)? \[.*\] (?:completed|failed)`)
	// textProgressRE matches the state the console shows while a call
	// runs: "Waiting…", "Running…", "Initializing…".
	textProgressRE = regexp.MustCompile(`^[A-Z][a-z]+(?: [a-z]+)?…$`)
	// textCollapsedRE matches the line the console puts for the lines of
	// an output it does not show.
	textCollapsedRE = regexp.MustCompile(`^… \+\d+ lines? \(`)
	// textPytestRE matches the failing line pytest marks with "> ", which a
	// copy can put at the start of a line inside an output.
	textPytestRE = regexp.MustCompile(`^>\s{3,}`)
)

// textClaudeHook reports whether a line is a hook's report: most lines
// are ruled out by their first letter, which textClaudeHookRE needs.
func textClaudeHook(line string) bool {
	return line != "" && strings.IndexByte("PSU", line[0]) >= 0 && textClaudeHookRE.MatchString(line)
}

// textCollapsed reports whether a line, its indent trimmed, stands for
// the lines of an output the console does not show.
func textCollapsed(t string) bool {
	return strings.HasPrefix(t, "… +") && textCollapsedRE.MatchString(t)
}

// line reads a line of Claude Code's console. Items start at the
// left edge: "⏺" for the assistant's text and calls, ">" for prompts,
// "✻" for thinking, "╭" for the welcome box; "⎿" starts a block of a
// call's result, and other lines go on with what was started.
func (d *claudeConsole) line(line string, n int) {
	t := strings.TrimLeft(line, " ")
	switch {
	case strings.HasPrefix(line, d.dot):
		d.end()
		d.assistant()
		if m := textClaudeCallRE.FindStringSubmatchIndex(line); m != nil {
			d.header(strings.TrimSuffix(line[m[2]:m[3]], " (MCP)"), line[m[1]:], n)
		} else if m := textClaudeTodosRE.FindStringSubmatch(line); m != nil {
			d.header(m[1], "", n)
		} else {
			d.text.reset()
			d.text.add(strings.TrimSpace(strings.TrimPrefix(line, d.dot)), 0)
			d.mode = textSays
		}
	case (line == ">" || strings.HasPrefix(line, "> ")) && !(d.mode == textOutput && textPytestRE.MatchString(line)):
		d.end()
		d.prompt(strings.TrimPrefix(line[1:], " "))
		d.mode = textPrompt
	case strings.HasPrefix(line, "✻"):
		d.end()
		d.assistant()
		d.mode = textSkip
	case strings.HasPrefix(line, "╭"):
		d.end()
		d.mode = textBox
	case d.mode == textBox:
		if strings.HasPrefix(line, "╰") {
			d.mode = textSkip
		} else if m := textClaudeCwdRE.FindStringSubmatch(line); m != nil {
			setOnce(&d.s.Cwd, m[1])
		}
	case strings.HasPrefix(t, "⎿"):
		d.result(t, n)
	case textClaudeHook(line):
		// A hook's report, not the tool's output.
	default:
		switch d.mode {
		case textHeader:
			d.head.add(line, d.blanks)
		case textOutput:
			d.out.add(line, d.blanks)
			d.cont = append(d.cont, len(d.out.lines)-1)
		case textSays:
			d.text.add(strings.TrimPrefix(line, "  "), d.blanks)
		}
	}
}

// header starts a call header, which goes on until its result.
func (d *claudeConsole) header(tool, args string, n int) {
	d.headTool = tool
	d.headLine = n
	d.head.reset()
	d.head.add(args, 0)
	d.mode = textHeader
}

// makeCall makes the call whose header has been read.
func (d *claudeConsole) makeCall() {
	lines := d.head.lines
	// Continuation lines are indented to the header; the command's own
	// indentation is what is left.
	indent := 6
	for _, l := range lines[min(1, len(lines)):] {
		if strings.TrimSpace(l) != "" {
			indent = min(indent, len(l)-len(strings.TrimLeft(l, " ")))
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	args := strings.TrimRight(d.head.String(), " \t")
	if a, ok := strings.CutSuffix(args, ")…"); ok {
		args = a + ")" // older consoles end every header so: `Bash(make test)…`
	}
	args = strings.TrimSuffix(args, ")")
	d.head.reset()
	c := d.newCall(d.headTool, d.headLine)
	textSetArgs(c, args)
	d.s.add(c)
	d.call = c
	d.mode = textOutput
}

// result reads a "⎿" line: a block of the current call's result.
func (d *claudeConsole) result(t string, n int) {
	content := strings.TrimPrefix(t, "⎿")
	for i := 0; i < 2 && strings.HasPrefix(content, " "); i++ {
		content = content[1:]
	}
	content = strings.TrimRight(content, " ")
	if d.mode == textHeader {
		d.makeCall()
	}
	if d.call == nil || d.mode != textOutput {
		d.mode = textSkip
		return
	}
	switch {
	case textProgressRE.MatchString(content):
		return
	case strings.HasPrefix(content, "No (tell Claude what to do differently)"):
		// A refusal can follow a subagent's progress.
		d.call.Status = StatusRejected
	case strings.HasPrefix(content, "Interrupted by user"):
		if !d.started {
			d.user()
			d.call.Status = StatusInterrupted
			d.out.add(content, 0)
		}
		d.end()
		d.mode = textSkip
		return
	}
	if !d.started {
		d.started = true
		d.user()
	}
	d.out.add(content, d.blanks)
}

// end ends what the console was showing: a call header or output.
func (d *claudeConsole) end() {
	if d.mode == textHeader {
		d.makeCall()
	}
	if d.call != nil {
		d.dedent()
		d.started = false
	}
	d.endCall(d.outcome)
	d.mode = textNone
}

// dedent removes the indentation the console puts before the lines
// of an output after the first, which copies keep or lose: the most all
// those lines share, up to five spaces. The console's "… +N lines" marks
// lose theirs whole.
func (d *claudeConsole) dedent() {
	lines := d.out.lines
	indent := 5
	for _, i := range d.cont {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		if t != "" && !textCollapsed(t) {
			indent = min(indent, len(l)-len(t))
		}
	}
	for _, i := range d.cont {
		if t := strings.TrimLeft(lines[i], " "); textCollapsed(t) {
			lines[i] = t
		} else if len(lines[i])-len(t) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	d.cont = d.cont[:0]
}

// outcome reads the console's marks on a call's output: "Error: "
// before a failed call's output, the words of a refusal.
func (d *claudeConsole) outcome(c *Call, out string) string {
	if rest, ok := strings.CutPrefix(out, "Error: "); ok || out == "Error" {
		c.IsError = true
		out = rest
	}
	if strings.HasPrefix(out, "No (tell Claude what to do differently)") ||
		strings.HasPrefix(out, "User rejected ") ||
		c.IsError && strings.HasPrefix(out, "The user doesn't want to ") {
		c.Status = StatusRejected
	}
	if strings.Contains(out, " lines (ctrl+r to expand)") || strings.Contains(out, " line (ctrl+r to expand)") {
		d.collapsed++
	}
	if out == "(No content)" {
		out = "" // the console's word for no output
	}
	return out
}

// finish ends what the console was showing and notes the outputs it
// collapsed.
func (d *claudeConsole) finish() {
	d.end()
	if d.collapsed > 0 {
		d.s.Notes = append(d.s.Notes, strconv.Itoa(d.collapsed)+" outputs were shortened by the console (ctrl+r to expand); the lines it hid are not in the text")
	}
}
