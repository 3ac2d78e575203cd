package parser

import (
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// A miniConsole reads mini-swe-agent's terminal log.
type miniConsole struct {
	*textReader
	code     textBuf // the command block being read
	codeLine int
	pending  []*Call // calls of the last reply without a result
	first    bool    // the next line is the first of a user message
}

var (
	textMiniStepRE  = regexp.MustCompile(`^mini-swe-agent \(step \d+, \$[0-9.,]+\):$`)
	textMiniHelloRE = regexp.MustCompile(`This is mini-swe-agent version (\d[\w.+-]*?)\.?$`)
	textReturnRE    = regexp.MustCompile(`^<returncode>(-?\d{1,9})</returncode>`)
)

// line reads a line of mini-swe-agent's log: the headers of the
// system, user and assistant messages ("mini-swe-agent (step N, $x):"),
// a reply's command block, an observation, and the rule after it.
func (d *miniConsole) line(line string, n int) {
	t := strings.TrimSpace(line)
	if d.mode == textCode {
		if t == "```" {
			d.action()
		} else {
			d.code.add(line, d.blanks)
		}
		return
	}
	switch {
	case textMiniStepRE.MatchString(t):
		d.end()
		d.turn = false
		d.assistant()
		d.text.reset()
		d.pending = nil
		d.mode = textSays
	case t == "System:":
		d.end()
		d.msg++
		d.turn = false
		d.mode = textNone
	case t == "User:":
		d.end()
		d.user()
		d.first = true
		d.mode = textUser
	case textMiniHelloRE.MatchString(t):
		setOnce(&d.s.Agent, textMiniHelloRE.FindStringSubmatch(t)[1])
	case textIsRule(t):
		d.end()
		d.mode = textNone
	case textIsSpinner(t):
		// The wait for the model, redrawn in place.
	case d.mode == textSays:
		if strings.HasPrefix(t, "```bash") || strings.HasPrefix(t, "```mswea_bash_command") {
			d.mode = textCode
			d.codeLine = n
			d.code.reset()
			return
		}
		d.text.add(line, d.blanks)
	case d.mode == textUser && len(d.pending) == 1:
		// The result of the reply's command. What the agent's process
		// logs meanwhile (litellm's warnings) can come first.
		c := d.pending[0]
		if m := textReturnRE.FindStringSubmatch(t); m != nil {
			if code, err := strconv.Atoi(m[1]); err == nil {
				c.Exit = &code
			}
			c.Status = ""
			d.pending = nil
			d.call = c
			d.mode = textOutput
			if rest := strings.TrimSpace(t[len(m[0]):]); rest != "" {
				d.out.add(rest, 0)
			}
		} else if strings.HasPrefix(t, "The last command") && strings.Contains(t, "timed out") {
			c.Status = StatusInterrupted
			d.pending = nil
			d.call = c
			d.mode = textOutput
			d.out.add(line, 0)
		}
	case d.mode == textUser:
		if d.first && !d.titled {
			d.titled = true
			d.s.Title = promptTitle(line)
		}
		d.first = false
	case d.mode == textOutput:
		d.out.add(line, d.blanks)
	}
}

// action makes the call of the command block just closed. It has no
// result until a user message brings one.
func (d *miniConsole) action() {
	c := d.newCall("bash", d.codeLine)
	c.Command = d.code.String()
	c.Status = StatusNoResult
	d.code.reset()
	d.s.add(c)
	d.pending = append(d.pending, c)
	d.mode = textSays
}

// end ends a message: a command block cut short, or an observation.
func (d *miniConsole) end() {
	if d.mode == textCode {
		d.action()
	}
	c, out := d.takeCall()
	if c == nil {
		return
	}
	if rest, ok := strings.CutPrefix(out, "<output>"); ok {
		out = strings.TrimPrefix(rest, "\n")
	}
	out = strings.TrimSuffix(strings.TrimSuffix(out, "</output>"), "\n")
	c.Output = abridge(out)
}

// textIsRule reports a horizontal rule drawn with box characters, which
// mini-swe-agent prints after each observation.
func textIsRule(t string) bool {
	return utf8.RuneCountInString(t) >= 20 && strings.Trim(t, "─\uFFFD") == ""
}

// textIsSpinner reports a spinner's line: a Braille pattern and a word.
func textIsSpinner(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	return r >= 0x2800 && r <= 0x28ff && strings.HasPrefix(t[size:], " ")
}

// finish ends the message the input left open.
func (d *miniConsole) finish() { d.end() }
