package parser

import (
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// Many harnesses save a conversation as the OpenAI chat-completions message
// list they sent: a JSON array of {"role", "content"} messages, or an
// object holding it as "messages". Assistant messages carry
// tool_calls[]{id, function{name, arguments}}, with the arguments as a JSON
// string, and role "tool" messages answer them by tool_call_id. The legacy
// form is one function_call{name, arguments} answered by a role "function"
// message. There is no exit code or error flag: an exit code is read from
// the result text ("Exit code: N", "exit status N", "<returncode>N</returncode>").
// A call's message index is the index of its assistant message in the list.

// openAIRoles are the roles of chat-completions messages.
var openAIRoles = map[string]bool{
	"system": true, "developer": true, "user": true, "assistant": true, "tool": true, "function": true,
}

// matchOpenAIMessages accepts a list of chat messages, bare or as
// "messages", that holds a tool call or a tool result within the head.
func matchOpenAIMessages(head []byte) bool {
	var msgs rawjson.Value
	switch jsonStart(head) {
	case '[':
		msgs = rawjson.Peek(bytesString(head))
	case '{':
		if matchMiniSWEAgent(head) {
			return false // a list of the same messages, with more to read
		}
		msgs = rawjson.Peek(bytesString(head)).Get("messages")
	default:
		return false
	}
	if msgs.Kind() != rawjson.Array {
		return false
	}
	for m := range msgs.Elements() {
		role := m.Get("role").Text()
		if m.Kind() != rawjson.Object || !openAIRoles[role] {
			return false
		}
		if m.Get("tool_calls").Kind() == rawjson.Array || m.Get("function_call").Kind() == rawjson.Object ||
			m.Get("tool_call_id").Exists() || role == "function" {
			return true
		}
	}
	return false
}

func decodeOpenAIMessages(r io.Reader, name string) (*Session, error) {
	s := &Session{Path: name, Format: "openai-messages", Calls: []*Call{}}
	root, lines, release, err := readJSONDoc(r, s)
	defer release()
	msgs := root
	if root.Kind() == rawjson.Object {
		msgs = root.Get("messages")
		s.ID = root.Get("id").Text()
		s.Model = root.Get("model").Text()
	}
	if msgs.Kind() != rawjson.Array {
		if len(s.Skipped) == 0 {
			s.skip(1, `no message list: expected a JSON array of chat messages or an object with "messages"`)
		}
		return s, err
	}
	byID := make(map[string]*Call)
	var pending []*Call // calls, in order, for results that give no id
	i := -1
	for m := range msgs.Elements() {
		i++
		if !m.Valid() {
			break // the cut-off end of a broken file
		}
		content := blockText(m.Get("content"))
		switch role := m.Get("role").Text(); role {
		case "assistant":
			setOnce(&s.Model, m.Get("model").Text())
			text := content
			add := func(id string, fn rawjson.Value, line int) {
				c := &Call{Msg: i, ID: id, Tool: fn.Get("name").Text(), Status: StatusNoResult,
					Text: abridgeText(text), Pos: Pos{File: s.Path, Line: line}}
				c.Kind = KindOf(c.Tool)
				setArguments(c, fn.Get("arguments"))
				text = ""
				s.add(c)
				if id != "" && byID[id] == nil {
					byID[id] = c
				}
				pending = append(pending, c)
			}
			for tc := range m.Get("tool_calls").Values() {
				if tc.Kind() == rawjson.Object {
					add(tc.Get("id").Text(), tc.Get("function"), lines.at(tc.Offset()))
				}
			}
			if fc := m.Get("function_call"); fc.Kind() == rawjson.Object {
				add("", fc, lines.at(fc.Offset()))
			}
		case "tool", "function":
			var c *Call
			if id := m.Get("tool_call_id").Text(); id != "" {
				c = byID[id]
				delete(byID, id)
			} else {
				pending = slices.DeleteFunc(pending, func(p *Call) bool { return p.Status != StatusNoResult })
				name := m.Get("name").Text()
				for _, p := range pending {
					if p.Status == StatusNoResult && (name == "" || p.Tool == name) {
						c = p
						break
					}
				}
			}
			if c == nil || c.Status != StatusNoResult {
				s.skip(lines.at(m.Offset()), "tool result for unknown tool call "+strconv.Quote(m.Get("tool_call_id").Text()))
				continue
			}
			c.Status = ""
			readResultText(c, content)
		case "user":
			if s.Title == "" && len(s.Calls) == 0 {
				s.Title = taskTitle(content)
			}
		}
	}
	sortSkipped(s)
	return s, err
}

// setArguments fills in c's input from a tool call's arguments: a JSON
// object encoded as a string, or, in some logs, the object itself. Shell
// tools take their command from "command" (a string or an argv array) or
// "cmd". Arguments that are not a JSON object are taken as a shell tool's
// command, and kept in Args["arguments"] for other tools.
func setArguments(c *Call, args rawjson.Value) {
	in := args
	if args.Kind() == rawjson.String {
		raw := strings.TrimSpace(args.Text())
		if raw == "" {
			return
		}
		v, ok := rawjson.Parse(raw)
		if !ok || v.Kind() != rawjson.Object {
			if c.Kind == KindShell {
				c.Command = raw
			} else {
				c.Args = map[string]string{"arguments": termtext.Cut(raw, maxArg)}
			}
			return
		}
		in = v
	}
	setInput(c, in, nil, nil)
	if c.Kind != KindShell || c.Command != "" {
		return
	}
	for _, key := range []string{"command", "cmd"} {
		v := in.Get(key)
		switch v.Kind() {
		case rawjson.String:
			c.Command = v.Text()
		case rawjson.Array:
			c.Command = argvCommand(v)
		default:
			continue
		}
		delete(c.Args, key)
		return
	}
}

// argvCommand turns a command given as an argument vector into one line,
// unwrapping ["bash", "-lc", "<script>"].
func argvCommand(v rawjson.Value) string {
	var argv []string
	for a := range v.Elements() {
		argv = append(argv, a.Text())
	}
	if len(argv) == 3 && (argv[1] == "-c" || argv[1] == "-lc") {
		switch argv[0] {
		case "bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh":
			return argv[2]
		}
	}
	return strings.Join(argv, " ")
}

// exitLineRE matches a line that reports an exit code, as harnesses put
// first or last in a tool result.
var exitLineRE = regexp.MustCompile(`(?i)^[\[(]?\s*(?:process |command )?(?:exit(?:ed)?(?: with)? (?:code|status)|return ?code)\s*[:=]?\s*(-?\d+)\b[^\n]*$`)

// readResultText sets c's output and exit code from a tool result's text:
// mini-swe-agent's <returncode> tags, or a first or last line such as
// "Exit code: 1", which is then left out of the output.
func readResultText(c *Call, text string) {
	if returncodeRE.MatchString(text) {
		readObservation(c, text)
		return
	}
	lines := strings.Split(strings.TrimRight(text, "\r\n"), "\n")
	for _, n := range []int{0, len(lines) - 1} {
		m := exitLineRE.FindStringSubmatch(strings.TrimSpace(lines[n]))
		if m == nil {
			continue
		}
		code, err := strconv.Atoi(m[1])
		if err != nil {
			continue
		}
		c.Exit = &code
		text = strings.Join(append(lines[:n:n], lines[n+1:]...), "\n")
		break
	}
	c.Output = abridge(text)
}
