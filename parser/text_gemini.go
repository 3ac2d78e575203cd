package parser

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/internal/termtext"
)

// A geminiConsole reads a copy of Gemini CLI's terminal.
type geminiConsole struct {
	*textReader
	box   []textBoxLine // the lines of the open panel
	inBox bool
}

var (
	// textGeminiHeadRE matches the first line inside a Gemini CLI panel,
	// its border removed: status icon, tool name, what the tool does.
	textGeminiHeadRE  = regexp.MustCompile(`^\s?([✔✓✖✗✘x?⊷o-])\s+([A-Z][A-Za-z0-9_]*)(?:\s+(.*))?$`)
	textGeminiAboutRE = regexp.MustCompile(`^\s*(CLI Version|Model)\s{2,}(\S+)`)
)

// A textBoxLine is a line inside a Gemini CLI panel, its border removed.
type textBoxLine struct {
	s      string
	n      int // line number
	blanks int // blank lines before it
}

// line reads a line of Gemini CLI's console: a panel's line, or
// model text ("✦"), a prompt (">"), a notice ("ℹ", "✕").
func (d *geminiConsole) line(line string, n int) {
	t := strings.TrimLeft(line, " ")
	if d.inBox {
		switch {
		case strings.HasPrefix(t, "╰"):
			d.panel()
			return
		case strings.HasPrefix(t, "│"):
			d.box = append(d.box, textBoxLine{s: textBoxInner(t), n: n, blanks: d.blanks})
			return
		}
		d.panel() // a panel the copy did not close
	}
	switch {
	case strings.HasPrefix(t, "╭") && len(line)-len(t) <= 1:
		d.inBox = true
		d.box = d.box[:0]
	case strings.HasPrefix(line, "✦"):
		d.assistant()
		d.text.reset()
		d.text.add(strings.TrimSpace(strings.TrimPrefix(line, "✦")), 0)
		d.mode = textSays
	case line == ">" || strings.HasPrefix(line, "> "):
		d.prompt(strings.TrimPrefix(line[1:], " "))
		d.mode = textPrompt
	case strings.HasPrefix(line, "ℹ") || strings.HasPrefix(line, "✕"):
		d.mode = textNone
	case d.mode == textSays:
		d.text.add(strings.TrimPrefix(line, "  "), d.blanks)
	}
}

// textBoxInner returns a line of a panel without its borders, or what a
// copy that cut the line left of the right border.
func textBoxInner(t string) string {
	s := strings.TrimPrefix(t, "│")
	for {
		u := strings.TrimRight(s, " ")
		u = strings.TrimSuffix(u, "│")
		u = strings.TrimSuffix(u, "\uFFFD")
		if u == s {
			return s
		}
		s = u
	}
}

// panel reads the panel just closed: a call, or a box of another
// kind such as /about.
func (d *geminiConsole) panel() {
	d.inBox = false
	lines := d.box
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i].s) == "" {
		i++
	}
	if i == len(lines) {
		return
	}
	m := textGeminiHeadRE.FindStringSubmatch(lines[i].s)
	if m == nil {
		for _, l := range lines {
			if a := textGeminiAboutRE.FindStringSubmatch(l.s); a != nil {
				if a[1] == "Model" {
					setOnce(&d.s.Model, a[2])
				} else {
					setOnce(&d.s.Agent, a[2])
				}
			}
		}
		return
	}
	merged := slices.ContainsFunc(lines[i+1:], func(l textBoxLine) bool { return textGeminiHeadRE.MatchString(l.s) })
	d.call(m, lines[i].n, lines[i+1:], merged)
	d.mode = textNone
}

// call reads the call of a panel: its head line, matched by m at line n,
// and the lines below it. A panel that holds several calls made together
// (merged) is read as its first call, its output holding the others'
// heads and outputs: what it printed is not told apart from theirs.
func (d *geminiConsole) call(m []string, n int, body []textBoxLine, merged bool) {
	icon, tool, rest := m[1], m[2], strings.TrimSpace(m[3])
	if tool == "Save" && strings.HasPrefix(rest, "Memory") {
		tool, rest = "Save Memory", strings.TrimSpace(strings.TrimPrefix(rest, "Memory"))
	}
	c := d.newCall(tool, n)
	if c.Kind == KindShell {
		cmd, desc, used := textGeminiCommand(rest, body)
		body = body[used:]
		c.Command = cmd
		if desc != "" {
			c.Args = map[string]string{"description": termtext.Cut(desc, maxArg)}
		}
	} else {
		textGeminiTarget(c, rest)
	}
	var out textBuf
	for _, l := range body {
		s := textDedent(l.s, 4)
		if out.empty() && strings.TrimSpace(s) == "" {
			continue
		}
		out.add(s, l.blanks)
	}
	switch icon {
	case "✖", "✗", "✘", "x":
		c.IsError = true
	case "-":
		c.Status = StatusRejected
	case "?", "⊷", "o":
		c.Status = StatusNoResult
	}
	c.Output = abridge(textExit(c, out.String()))
	switch {
	case c.IsError || c.Status != "" || c.Exit != nil:
	case merged:
	case c.Kind == KindShell:
		// ✔ says the tool ran the command, not how it ended: the copy
		// shows no exit status unless the output states it.
		c.Unrecorded = true
	case strings.HasPrefix(c.Output, "Error: "):
		c.IsError = true // the tool's own error, under ✔ in early versions
	}
	d.s.add(c)
	if c.Status != StatusNoResult {
		d.user()
	}
}

// textGeminiCommand returns a shell panel's command and description. A
// command with a quote still open goes on over the panel's next lines;
// used says how many.
func textGeminiCommand(first string, body []textBoxLine) (cmd, desc string, used int) {
	cmd, desc = textSplitDescription(first)
	if strings.HasSuffix(first, "…") || textQuotesClosed(cmd) {
		return cmd, desc, 0
	}
	all := first
	for i, l := range body[:min(len(body), 100)] {
		if len(all) > 64<<10 {
			break // no command is that long
		}
		all += "\n" + textDedent(l.s, 4)
		if c, dsc := textSplitDescription(all); textQuotesClosed(c) {
			return c, dsc, i + 1
		}
	}
	return cmd, desc, 0
}

// textSplitDescription splits "command (Description.)" at the opening
// parenthesis of a group that ends the text and follows a complete
// command. The panel cuts a long first line with "…", which can fall in the
// description: then the group is the last one opened and not closed.
func textSplitDescription(s string) (cmd, desc string) {
	open := -1 // the parenthesis that opens the description
	switch {
	case strings.HasSuffix(s, ")"):
		depth := 0
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				open = i
				break
			}
		}
	case strings.HasSuffix(s, "…"):
		last := strings.LastIndexByte(s, ')')
		if i := strings.Index(s[last+1:], " ("); i >= 0 {
			open = last + 1 + i + 1
		}
	}
	if open < 1 || s[open-1] != ' ' {
		return s, ""
	}
	r, _ := utf8.DecodeRuneInString(s[open+1:])
	if !unicode.IsUpper(r) || !textQuotesClosed(s[:open-1]) {
		return s, ""
	}
	desc = s[open+1:]
	if !strings.HasSuffix(s, "…") {
		desc = desc[:len(desc)-1]
	}
	return strings.TrimRight(s[:open-1], " "), desc
}

// textQuotesClosed reports that a shell command leaves no quote open and
// no parenthesis or brace unclosed.
func textQuotesClosed(s string) bool {
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	return quote == 0 && depth == 0
}

// textGeminiTarget sets the file or input of a panel's call other than the
// shell from what the panel's first line says.
func textGeminiTarget(c *Call, rest string) {
	switch c.Tool {
	case "WriteFile":
		if p, ok := strings.CutPrefix(rest, "Writing to "); ok {
			c.File = p
			return
		}
	case "Edit":
		if p, _, ok := strings.Cut(rest, ": "); ok {
			c.File = p
			return
		}
	case "ReadFile", "ReadFolder":
		if rest != "" {
			c.File = rest
			return
		}
	}
	if rest != "" {
		c.Args = map[string]string{"input": termtext.Cut(rest, maxArg)}
	}
}

// textDedent removes up to n leading spaces.
func textDedent(s string, n int) string {
	for i := 0; i < n && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	return s
}

// finish reads a panel the input left open.
func (d *geminiConsole) finish() {
	if d.inBox {
		d.panel()
	}
}
