package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// SWE-agent writes a run as one pretty-printed JSON object, <instance>.traj:
// {"environment", "trajectory": [step…], "history": [message…], "info",
// "replay_config"}. Each trajectory step is one call: its "action" is either
// a shell command or one of SWE-agent's own commands (open, edit, create,
// str_replace_editor view|create|str_replace…, find_file, submit…), and its
// "observation" is the output the model saw. Function-calling runs render
// their tool calls into the same action text; their ids are taken from the
// assistant messages of "history", which is otherwise read only for the
// title. The format records no exit codes, no error flags and no times:
// the refusals of SWE-agent's own commands ("Your proposed edit has
// introduced new syntax error(s)", "No replacement was performed", …) are
// marked as errors, and shell commands as Unrecorded, their output the only
// evidence of how they ended. A call's message index is the index of its
// step in "trajectory".

func matchSWEAgent(head []byte) bool {
	if jsonStart(head) != '{' {
		return false
	}
	doc := rawjson.Peek(bytesString(head))
	traj := doc.Get("trajectory")
	if traj.Kind() != rawjson.Array {
		return false
	}
	if strings.TrimSpace(traj.Raw()) == "[]" {
		// A run that stopped before its first step.
		return doc.Get("info").Kind() == rawjson.Object || doc.Get("history").Kind() == rawjson.Array
	}
	switch firstKey(strings.TrimSpace(traj.Raw())[1:]) {
	case "action", "observation", "response", "thought", "state", "execution_time", "query":
		return true
	}
	return false
}

// sweCommands are the commands SWE-agent's tool bundles add to the shell.
// An action starting with any other word is a shell command.
var sweCommands = map[string]bool{
	"open": true, "goto": true, "scroll_up": true, "scroll_down": true, "create": true,
	"edit": true, "insert": true, "append": true, "find_file": true, "search_dir": true,
	"search_file": true, "submit": true, "str_replace_editor": true, "filemap": true,
	"view_image": true, "forfeit": true, "exit_forfeit": true, "skip": true,
	"exit_cost": true, "exit_context": true, "exit_error": true, "exit_format": true,
	"exit_api": true,
}

// sweErrorRE matches the messages with which SWE-agent's own commands refuse
// an action (the CTF bundle's submit answers "Wrong flag!"): the run
// records no other failure flag.
var sweErrorRE = regexp.MustCompile(`^(?:Your proposed edit has introduced new syntax error|Usage: |Error: |ERROR: |No file open|File .* not found|Directory .* not found|No replacement was performed|The path \S+ does not exist|Invalid ` + "`" + `|Wrong flag!)`)

func decodeSWEAgent(r io.Reader, name string) (*Session, error) {
	s := &Session{Path: name, Format: "swe-agent", Calls: []*Call{}}
	root, lines, release, err := readJSONDoc(r, s)
	defer release()
	if root.Kind() != rawjson.Object {
		if len(s.Skipped) == 0 {
			s.skip(1, "not a JSON object: expected a SWE-agent trajectory")
		}
		return s, err
	}
	s.Agent = root.Get("info").Get("swe_agent_version").Text()
	rc := jsonInString(root.Get("replay_config"))
	s.ID = rc.Path("problem_statement", "id").Text()
	s.Model = rc.Path("agent", "model", "name").Text()
	setOnce(&s.Model, rc.Path("agent", "model", "model_name").Text())
	history := root.Get("history")
	s.Title = sweTitle(history, rc)
	ids := newSWECallIDs(history)

	i := -1
	for step := range root.Get("trajectory").Values() {
		i++
		if !step.Valid() {
			break // the cut-off end of a broken file
		}
		state := jsonInString(step.Get("state")) // older runs store it as JSON text
		setOnce(&s.Cwd, state.Get("working_dir").Text())
		action := strings.TrimSpace(step.Get("action").Text())
		if action == "" {
			continue // a step whose reply held no command
		}
		text := step.Get("thought").Text()
		if strings.TrimSpace(text) == "" {
			text = step.Get("response").Text()
		}
		c := &Call{
			Msg:    i,
			Output: abridge(step.Get("observation").Text()),
			Text:   abridgeText(text),
			Pos:    Pos{File: s.Path, Line: lines.at(step.Offset())},
		}
		openFile := state.Get("open_file").Text()
		if openFile == "n/a" {
			openFile = ""
		}
		c.ID = ids.next(action)
		sweAction(c, action, openFile)
		switch {
		case c.Kind == KindShell:
			c.Unrecorded = true
		case sweErrorRE.MatchString(strings.TrimSpace(c.Output)):
			c.IsError = true
		}
		s.add(c)
	}
	sortSkipped(s)
	return s, err
}

// jsonInString returns the JSON value v holds as text, when v is a string
// that holds one; else v.
func jsonInString(v rawjson.Value) rawjson.Value {
	if v.Kind() == rawjson.String {
		if in, ok := rawjson.Parse(v.Text()); ok {
			return in
		}
	}
	return v
}

// sweCallIDs hands out the tool call ids of a function-calling run: its
// history holds the assistant messages, with their action text and
// tool_calls, in the order of the trajectory steps.
type sweCallIDs struct {
	actions []string // action text of each assistant message, trimmed
	ids     []string // id of its first tool call, or ""
	after   int      // index of the message after the last one matched
	used    map[string]bool
}

func newSWECallIDs(history rawjson.Value) *sweCallIDs {
	t := &sweCallIDs{used: make(map[string]bool)}
	for m := range history.Values() {
		if m.Get("role").Text() == "assistant" && !m.Get("is_demo").Bool() {
			t.actions = append(t.actions, strings.TrimSpace(m.Get("action").Text()))
			t.ids = append(t.ids, m.Path("tool_calls", "0", "id").Text())
		}
	}
	return t
}

// next returns the id of the tool call behind the next step, whose trimmed
// action text is action, or "" when the history shows none. Replayed
// demonstrations reuse ids; only the first use of an id is taken.
func (t *sweCallIDs) next(action string) string {
	for j := t.after; j < len(t.actions); j++ {
		if t.actions[j] != action {
			continue
		}
		t.after = j + 1
		id := t.ids[j]
		if id == "" || t.used[id] {
			return ""
		}
		t.used[id] = true
		return id
	}
	return ""
}

// sweAction fills in c's tool, kind, command and file from a step's action.
// openFile is the file SWE-agent's editor had open, which edit, insert,
// goto and the scroll commands work on.
func sweAction(c *Call, action, openFile string) {
	f := commandFields(action, 3)
	if len(f) == 0 || !sweCommands[f[0]] {
		c.Tool, c.Kind, c.Command = "bash", KindShell, action
		return
	}
	c.Tool = f[0]
	c.Kind = KindOf(c.Tool)
	arg := func(n int) string {
		if n < len(f) {
			return f[n]
		}
		return ""
	}
	switch c.Tool {
	case "open", "create", "filemap", "view_image":
		c.File = arg(1)
	case "edit", "insert", "append", "goto", "scroll_up", "scroll_down":
		c.File = openFile
	case "search_file":
		c.File = arg(2)
		if c.File == "" {
			c.File = openFile
		}
	case "str_replace_editor":
		sub := arg(1)
		c.File = arg(2)
		switch sub {
		case "view":
			c.Kind = KindRead
		case "create":
			c.Kind = KindWrite
		}
		c.Args = map[string]string{"command": sub}
	}
	if c.Args == nil {
		c.Args = make(map[string]string)
	}
	c.Args["action"] = termtext.Cut(action, maxArg)
}

// sweTitle returns the first line of the issue the run worked on.
func sweTitle(history, rc rawjson.Value) string {
	title := ""
	for m := range history.Values() {
		if m.Get("role").Text() != "user" || m.Get("is_demo").Bool() {
			continue
		}
		text := blockText(m.Get("content"))
		if _, issue, ok := strings.Cut(text, "ISSUE:\n"); ok {
			title = firstLine(issue, 100)
		}
		if title != "" {
			break
		}
	}
	if title == "" {
		title = firstLine(rc.Path("problem_statement", "text").Text(), 100)
	}
	return title
}

// commandFields returns the first n words of a command's first line.
// Single and double quotes group words and are removed; this is enough for
// the file arguments of agent commands, not a shell parser.
func commandFields(s string, n int) []string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	var out []string
	for len(out) < n {
		s = strings.TrimLeft(s, " \t")
		if s == "" {
			return out
		}
		var w strings.Builder
		i := 0
		quote := byte(0)
	word:
		for ; i < len(s); i++ {
			ch := s[i]
			switch {
			case quote != 0 && ch == quote:
				quote = 0
			case quote != 0:
				w.WriteByte(ch)
			case ch == '\'' || ch == '"':
				quote = ch
			case ch == ' ' || ch == '\t':
				break word
			default:
				w.WriteByte(ch)
			}
		}
		out = append(out, w.String())
		s = s[i:]
	}
	return out
}

// readJSONDoc reads a whole JSON document and returns its value. Invalid
// JSON, such as a file cut off while it was written, is reported in
// s.Skipped at the line of the error, and read up to there: its last
// values may be incomplete, and are not Valid. A read error comes back
// wrapped, with the data read before it; a document longer than
// maxDocument gives no data and a LimitError, as does a LimitError from r.
// release gives back the token of bigRecords the document may hold, once
// the decoder is done with it. The values share the document's memory,
// which is not reused.
func readJSONDoc(r io.Reader, s *Session) (root rawjson.Value, lines *lineCounter, release func(), err error) {
	var b bytes.Buffer
	release, err = readDocument(&b, r)
	data := b.Bytes()
	if errors.As(err, new(*LimitError)) {
		data = nil // not worth reading what came before
	}
	if err != nil {
		err = fmt.Errorf("read %s: %w", s.Path, err)
	}
	lines = &lineCounter{data: data, line: 1}
	text := bytesString(data)
	doc, ok := rawjson.Index(text)
	if !ok {
		if len(data) > 0 {
			msg, off := jsonError(data)
			line := 0
			if off >= 0 {
				line = lines.at(int(off))
			}
			s.skip(line, msg+"; calls before it are still read")
		}
		// Pass over any control character before the value, as gjson,
		// which read these documents before, did.
		start := 0
		for start < len(text) && text[start] <= ' ' {
			start++
		}
		doc = rawjson.NewDoc(text[:start+rawjson.Prefix(text[start:])])
	}
	return doc.Root(), lines, release, err
}

// sortSkipped puts a whole-document decoder's skipped records in input
// order: the document's syntax error is found first but may lie after
// records reported later.
func sortSkipped(s *Session) {
	sort.SliceStable(s.Skipped, func(i, j int) bool { return s.Skipped[i].Pos.Line < s.Skipped[j].Pos.Line })
}

// jsonStart returns the first byte of data that is not white space, or 0.
func jsonStart(data []byte) byte {
	for _, b := range data {
		switch b {
		case ' ', '\t', '\r', '\n':
		default:
			return b
		}
	}
	return 0
}

// firstKey returns the first key of the JSON object that raw starts with,
// after white space, even when the object is cut off after the key.
func firstKey(raw string) string {
	raw = strings.TrimLeft(raw, " \t\r\n")
	if !strings.HasPrefix(raw, "{") {
		return ""
	}
	raw = strings.TrimLeft(raw[1:], " \t\r\n")
	if !strings.HasPrefix(raw, `"`) {
		return ""
	}
	key, _, ok := strings.Cut(raw[1:], `"`)
	if !ok {
		return ""
	}
	return key
}
