package synth

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
	"time"
)

// Gemini CLI's tool names for the canonical tools, and the names it shows.
var geminiTools = map[string]struct{ name, display string }{
	"bash":  {"run_shell_command", "Shell"},
	"read":  {"read_file", "ReadFile"},
	"edit":  {"replace", "Edit"},
	"write": {"write_file", "WriteFile"},
	"grep":  {"search_file_content", "SearchText"},
	"todo":  {"write_todos", "WriteTodos"},
}

// geminiModel replaces the scenario's model: a Gemini CLI chat is made with
// a Gemini model.
const geminiModel = "gemini-3-pro-preview"

// WriteGemini writes s as Gemini CLI saved a chat until April 2026, in
// ~/.gemini/tmp/<project>/chats/session-*.json: one ConversationRecord,
// indented by two spaces, with no final newline. Shell output uses the
// layout of early 2026, which prints "Exit Code:" only when it is not zero.
func WriteGemini(w io.Writer, s *Session) error {
	gw := &geminiWriter{s: s, ids: ids{seed: s.seed()}, clock: clock{s.Start}, pgid: 41200}
	var messages []obj
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Prompt != "" {
			messages = append(messages, obj{
				{"id", gw.ids.uuid()},
				{"timestamp", stamp(gw.clock.add(5 * time.Second))},
				{"type", "user"},
				{"content", st.Prompt},
			})
			continue
		}
		messages = append(messages, gw.gemini(st))
	}
	sum := sha256.Sum256([]byte(s.Cwd))
	record := obj{
		{"sessionId", s.ID},
		{"projectHash", hex.EncodeToString(sum[:])},
		{"startTime", stamp(s.Start)},
		{"lastUpdated", stamp(gw.clock.t)},
		{"messages", messages},
	}
	b, err := marshal(record)
	if err != nil {
		return err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return err
	}
	_, err = w.Write(out.Bytes())
	return err
}

type geminiWriter struct {
	s     *Session
	ids   ids
	clock clock
	pgid  int // process group of the next shell command
}

// gemini returns the message of an assistant turn that makes one call. The
// message is recorded when the model answers, the call when it completes.
func (gw *geminiWriter) gemini(st *Step) obj {
	start := gw.clock.add(st.Think)
	end := gw.clock.add(st.Duration)
	tool := geminiTools[st.Tool]
	callID := fmt.Sprintf("%s-%d-%s", tool.name, start.UnixMilli(), gw.ids.next(hexDigits, 13))
	args, description := gw.args(st)
	response, status, display := gw.result(st)
	call := obj{
		{"id", callID},
		{"name", tool.name},
		{"args", args},
		{"result", []obj{{{"functionResponse", obj{{"id", callID}, {"name", tool.name}, {"response", response}}}}}},
		{"status", status},
		{"timestamp", stamp(end)},
		{"resultDisplay", display},
		{"displayName", tool.display},
		{"description", description},
		{"renderOutputAsMarkdown", st.Tool != "bash"},
	}
	tokens := max(st.Tokens, 1)
	return obj{
		{"id", gw.ids.uuid()},
		{"timestamp", stamp(start.Add(-700 * time.Millisecond))},
		{"type", "gemini"},
		{"content", st.Text},
		{"thoughts", []obj{}},
		{"tokens", obj{{"input", 52140}, {"output", tokens}, {"cached", 48210}, {"thoughts", 0}, {"tool", 0}, {"total", 52140 + tokens}}},
		{"model", geminiModel},
		{"toolCalls", []obj{call}},
	}
}

// args renames the canonical input to Gemini CLI's parameters, and returns
// the description Gemini CLI records for the call.
func (gw *geminiWriter) args(st *Step) (obj, string) {
	file := st.inputString("file_path")
	switch st.Tool {
	case "bash":
		cmd, desc := st.inputString("command"), st.inputString("description")
		return obj{{"command", cmd}, {"description", desc}},
			fmt.Sprintf("%s [current working directory %s] (%s)", cmd, gw.s.Cwd, desc)
	case "edit":
		return obj{{"file_path", file}, {"old_string", st.input("old_string")}, {"new_string", st.input("new_string")}}, gw.s.rel(file)
	case "grep":
		return obj{{"pattern", st.input("pattern")}, {"path", st.input("path")}},
			fmt.Sprintf("'%s' within %s", st.inputString("pattern"), gw.s.rel(st.inputString("path")))
	case "todo":
		todos := geminiTodos(st)
		return obj{{"todos", todos}}, "Set " + strconv.Itoa(len(todos)) + " todo(s)"
	}
	in := obj{}
	for _, kv := range st.Input {
		in = append(in, kv)
	}
	return in, gw.s.rel(file)
}

// result returns the functionResponse's response, the call's status and
// its resultDisplay, as each tool reports them.
func (gw *geminiWriter) result(st *Step) (response obj, status string, display any) {
	file := st.inputString("file_path")
	switch st.Tool {
	case "bash":
		exit := st.Exit
		if st.NoMatch && exit == 0 {
			exit = 1 // grep -c finding no line
		}
		out := strings.TrimRight(st.Output, "\n")
		text := "Output: " + out
		if out == "" {
			text = "Output: (empty)"
		}
		if exit != 0 {
			text += "\nExit Code: " + strconv.Itoa(exit)
		}
		gw.pgid += 7
		if strings.HasSuffix(strings.TrimSpace(st.inputString("command")), "&") {
			text += "\nBackground PIDs: " + strconv.Itoa(gw.pgid+3)
		}
		text += "\nProcess Group PGID: " + strconv.Itoa(gw.pgid)
		display := out
		if out == "" && exit != 0 {
			display = "Command exited with code: " + strconv.Itoa(exit)
		}
		return obj{{"output", text}}, "success", display
	case "read":
		return obj{{"output", st.Output}}, "success", ""
	case "edit":
		if st.Error {
			return obj{{"error", "Failed to edit, 0 occurrences found for old_string in " + file + ". No edits made. The exact text in old_string was not found. Ensure you're not escaping content incorrectly and check whitespace, indentation, and context. Use read_file tool to verify."}},
				"error", "Error: Failed to edit, could not find the string to replace."
		}
		return obj{{"output", "Successfully modified file: " + file + " (1 replacements)."}}, "success",
			geminiDiff(file, "Current", "Proposed", st.inputString("old_string"), st.inputString("new_string"))
	case "write":
		return obj{{"output", "Successfully created and wrote to new file: " + file + "."}}, "success",
			geminiDiff(file, "Original", "Written", "", st.inputString("content"))
	case "grep":
		return obj{{"output", geminiGrep(st)}}, "success", geminiGrepDisplay(st)
	case "todo":
		var b strings.Builder
		b.WriteString("Successfully updated the todo list. The current list is now:")
		todos := geminiTodos(st)
		for i, t := range todos {
			fmt.Fprintf(&b, "\n%d. [%v] %v", i+1, geminiGet(t, "status"), geminiGet(t, "description"))
		}
		return obj{{"output", b.String()}}, "success", obj{{"todos", todos}}
	}
	if st.Error {
		return obj{{"error", st.Output}}, "error", st.Output
	}
	return obj{{"output", st.Output}}, "success", st.Output
}

// geminiDiff returns the resultDisplay of a file change: a unified diff of
// the changed text.
func geminiDiff(file, from, to, before, after string) obj {
	name := path.Base(file)
	var b strings.Builder
	fmt.Fprintf(&b, "Index: %s\n%s\n--- %s\t%s\n+++ %s\t%s\n", name, strings.Repeat("=", 67), name, from, name, to)
	oldLines := geminiLines(before)
	newLines := geminiLines(after)
	fmt.Fprintf(&b, "@@ -%d,%d +1,%d @@\n", min(len(oldLines), 1), len(oldLines), len(newLines))
	for _, l := range oldLines {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range newLines {
		b.WriteString("+" + l + "\n")
	}
	return obj{{"fileDiff", b.String()}, {"fileName", name}, {"originalContent", before}, {"newContent", after}}
}

func geminiLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}

// geminiGrep renders grep's "file:line:text" output as search_file_content
// does, grouped by file relative to the searched path.
func geminiGrep(st *Step) string {
	pattern, dir := st.inputString("pattern"), st.inputString("path")
	if st.NoMatch || strings.TrimSpace(st.Output) == "" {
		return `No matches found for pattern "` + pattern + `" in path "` + dir + `".`
	}
	var files []string
	byFile := make(map[string][]string)
	n := 0
	for l := range strings.Lines(st.Output) {
		file, rest, ok := strings.Cut(strings.TrimSuffix(l, "\n"), ":")
		line, text, ok2 := strings.Cut(rest, ":")
		if !ok || !ok2 {
			continue
		}
		file = strings.TrimPrefix(strings.TrimPrefix(file, dir), "/")
		if byFile[file] == nil {
			files = append(files, file)
		}
		byFile[file] = append(byFile[file], "L"+line+": "+text)
		n++
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Found %d %s for pattern \"%s\" in path \"%s\":\n---\n", n, geminiPlural(n, "match", "matches"), pattern, dir)
	for _, f := range files {
		b.WriteString("File: " + f + "\n")
		for _, l := range byFile[f] {
			b.WriteString(l + "\n")
		}
		b.WriteString("---\n")
	}
	return strings.TrimSpace(b.String())
}

func geminiGrepDisplay(st *Step) string {
	if st.NoMatch || strings.TrimSpace(st.Output) == "" {
		return "No matches found"
	}
	n := strings.Count(strings.TrimSuffix(st.Output, "\n"), "\n") + 1
	return fmt.Sprintf("Found %d %s", n, geminiPlural(n, "match", "matches"))
}

func geminiPlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// geminiTodos renames the canonical todo items to write_todos' own.
func geminiTodos(st *Step) []obj {
	var todos []obj
	items, _ := st.input("todos").([]obj)
	for _, t := range items {
		todos = append(todos, obj{{"description", geminiGet(t, "content")}, {"status", geminiGet(t, "status")}})
	}
	return todos
}

// geminiGet returns the value of key in o, or nil.
func geminiGet(o obj, key string) any {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value
		}
	}
	return nil
}
