package parser

import (
	"regexp"
	"strconv"
	"strings"
)

// A transcriptReader reads a printed transcript: "[assistant] text [bash]
// command", the command's output on the lines after it.
type transcriptReader struct {
	*textReader
	held  *textHeld // a message marker on its own line
	first bool      // the next line is the first of a user message
}

var (
	// textRoleRE matches a transcript's role marker at the start of a line,
	// after an optional message marker: "[msg 12] [assistant]".
	textRoleRE = regexp.MustCompile(`^\s*(?:\[msg\s+(\d{1,9})\]\s*|msg\s+(\d{1,9})\s*[:.]?\s*)?\[(assistant|user|system)\]:?`)
	// textMsgRE matches a message marker alone on its line.
	textMsgRE = regexp.MustCompile(`^\s*(?:\[msg\s+(\d{1,9})\]|msg\s+(\d{1,9}))\s*$`)
	// textToolRE matches a transcript's tool marker.
	textToolRE = regexp.MustCompile(`\[([a-z][a-z0-9_.-]+)\]`)
)

// textHeld is a message marker alone on its line, held until the next line
// shows whether it names a message.
type textHeld struct {
	line      string
	n, blanks int
	msg       int
}

// line reads a line of a transcript: a role marker, a message
// marker held until the next line, or a line of the current message.
func (d *transcriptReader) line(line string, n int) {
	held := d.held
	d.held = nil
	if loc := textRoleRE.FindStringSubmatchIndex(line); loc != nil {
		msg := -1
		if held != nil {
			msg = held.msg
		}
		for _, k := range []int{2, 4} {
			if loc[k] >= 0 {
				msg, _ = strconv.Atoi(line[loc[k]:loc[k+1]])
			}
		}
		d.role(line[loc[6]:loc[7]], strings.TrimSpace(line[loc[1]:]), msg, n)
		return
	}
	if held != nil {
		d.body(held.line, held.n, held.blanks)
	}
	if m := textMsgRE.FindStringSubmatch(line); m != nil {
		msg, _ := strconv.Atoi(m[1] + m[2])
		d.held = &textHeld{line: line, n: n, blanks: d.blanks, msg: msg}
		return
	}
	d.body(line, n, d.blanks)
}

// role starts a message; msg is its index, or -1 to count it.
func (d *transcriptReader) role(role, rest string, msg, n int) {
	d.endCall(nil)
	if msg >= 0 {
		d.msg = msg
	} else {
		d.msg++
	}
	d.text.reset()
	switch role {
	case "assistant":
		d.turn = true
		d.mode = textSays
		d.says(rest, n)
	case "user":
		d.turn = false
		d.mode = textPrompt
		d.first = true
		if rest != "" {
			d.body(rest, n, 0)
		}
	default:
		d.turn = false
		d.mode = textNone
	}
}

// says reads the rest of an assistant's marker line: text, then
// any calls, each up to the next tool marker.
func (d *transcriptReader) says(s string, n int) {
	marks := textKnownTools(s)
	if len(marks) == 0 {
		if s != "" {
			d.text.add(s, 0)
		}
		return
	}
	if t := strings.TrimSpace(s[:marks[0][0]]); t != "" {
		d.text.add(t, 0)
	}
	for i, m := range marks {
		end := len(s)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		d.endCall(nil)
		d.startCall(s[m[2]:m[3]], s[m[1]:end], n)
	}
}

// body reads a line inside a message: a user's prompt, an
// assistant's text, a tool marker, or a call's output.
func (d *transcriptReader) body(line string, n, blanks int) {
	switch d.mode {
	case textPrompt:
		if d.first {
			d.first = false
			if !d.titled {
				d.titled = true
				d.s.Title = promptTitle(line)
			}
		}
	case textSays, textOutput:
		if name, rest, ok := textLineTool(line); ok {
			switch name {
			case "output", "result", "tool_result", "stdout", "stderr":
				if d.call != nil {
					if rest = strings.TrimSpace(rest); rest != "" {
						d.out.add(rest, blanks)
					}
					return
				}
			default:
				d.endCall(nil)
				d.startCall(name, rest, n)
				return
			}
		}
		if d.call != nil {
			d.out.add(line, blanks)
		} else {
			d.text.add(line, blanks)
		}
	}
}

// startCall starts the call a tool marker made at line n.
func (d *transcriptReader) startCall(name, args string, n int) {
	c := d.newCall(name, n)
	textSetArgs(c, args)
	d.s.add(c)
	d.call = c
	d.mode = textOutput
}

// textLineTool returns the tool marker a line starts with, "[bash] ls",
// and the rest of the line.
func textLineTool(line string) (name, rest string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	m := textToolRE.FindStringSubmatchIndex(t)
	if m == nil || m[0] != 0 {
		return "", "", false
	}
	rest = t[m[1]:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false
	}
	return t[m[2]:m[3]], rest, true
}

// textKnownTools returns the positions of the tool markers in s that name
// a tool some agent has, as regexp submatch indexes.
func textKnownTools(s string) [][]int {
	var marks [][]int
	for _, m := range textToolRE.FindAllStringSubmatchIndex(s, -1) {
		if textKnownTool(s[m[2]:m[3]]) {
			marks = append(marks, m)
		}
	}
	return marks
}

// textKnownTool reports that some agent has a tool of that lower-case name.
func textKnownTool(name string) bool {
	_, ok := toolKinds[name]
	return ok
}

// finish ends the call and the message marker the input left open.
func (d *transcriptReader) finish() {
	if h := d.held; h != nil {
		d.held = nil
		d.body(h.line, h.n, h.blanks)
	}
	d.endCall(nil)
}
