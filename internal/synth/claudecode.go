package synth

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// Claude Code's tool names for the canonical tools.
var claudeTools = map[string]string{
	"bash": "Bash", "read": "Read", "edit": "Edit", "write": "Write", "grep": "Grep", "todo": "TodoWrite",
}

const claudeVersion = "2.0.76"

// WriteClaude writes s as a Claude Code session log (JSONL).
func WriteClaude(w io.Writer, s *Session) error {
	cw := &claudeWriter{w: w, s: s, ids: ids{seed: s.seed()}, clock: clock{s.Start}}
	snap := cw.ids.uuid()
	cw.line(obj{
		{"type", "file-history-snapshot"},
		{"messageId", snap},
		{"snapshot", obj{{"messageId", snap}, {"trackedFileBackups", obj{}}, {"timestamp", stamp(s.Start)}}},
		{"isSnapshotUpdate", false},
	})
	for i := range s.Steps {
		cw.step(&s.Steps[i])
	}
	return cw.err
}

type claudeWriter struct {
	w      io.Writer
	s      *Session
	ids    ids
	clock  clock
	parent any // uuid of the previous record, or nil
	err    error
}

func (cw *claudeWriter) line(o obj) {
	if cw.err != nil {
		return
	}
	b, err := marshal(o)
	if err == nil {
		_, err = fmt.Fprintf(cw.w, "%s\n", b)
	}
	cw.err = err
}

// envelope returns the fields every conversation record starts with.
func (cw *claudeWriter) envelope(typ string) (obj, string) {
	id := cw.ids.uuid()
	o := obj{
		{"parentUuid", cw.parent},
		{"isSidechain", false},
		{"userType", "external"},
		{"cwd", cw.s.Cwd},
		{"sessionId", cw.s.ID},
		{"version", claudeVersion},
		{"gitBranch", "main"},
		{"type", typ},
	}
	cw.parent = id
	return o, id
}

func (cw *claudeWriter) step(st *Step) {
	if st.Prompt != "" {
		o, id := cw.envelope("user")
		var content any = st.Prompt
		if st.Image != "" {
			content = []obj{
				{{"type", "image"}, {"source", obj{{"type", "base64"}, {"media_type", "image/png"}, {"data", st.Image}}}},
				{{"type", "text"}, {"text", st.Prompt}},
			}
		}
		o = append(o, KV{"message", obj{{"role", "user"}, {"content", content}}},
			KV{"uuid", id}, KV{"timestamp", stamp(cw.clock.add(5 * time.Second))})
		cw.line(o)
		return
	}
	msgID := "msg_01" + cw.ids.next(base62, 22)
	reqID := "req_011C" + cw.ids.next(base62, 18)
	callID := "toolu_01" + cw.ids.next(base62, 22)
	start := cw.clock.add(st.Think)
	assistant := func(content obj, tokens int, at time.Time) {
		o, id := cw.envelope("assistant")
		o = append(o,
			KV{"message", obj{
				{"model", cw.s.Model},
				{"id", msgID},
				{"type", "message"},
				{"role", "assistant"},
				{"content", []obj{content}},
				{"stop_reason", nil},
				{"stop_sequence", nil},
				{"usage", obj{{"input_tokens", 8}, {"cache_creation_input_tokens", 412}, {"cache_read_input_tokens", 48210}, {"output_tokens", tokens}, {"service_tier", "standard"}}},
			}},
			KV{"requestId", reqID}, KV{"uuid", id}, KV{"timestamp", stamp(at)})
		cw.line(o)
	}
	if st.Thinking != "" {
		// The signature is as long as the reasoning, as in real records.
		sig := cw.ids.next(base62, max(len(st.Thinking)/2, 64))
		assistant(obj{{"type", "thinking"}, {"thinking", st.Thinking}, {"signature", sig}}, 1, start.Add(-1500*time.Millisecond))
	}
	if st.Text != "" {
		assistant(obj{{"type", "text"}, {"text", st.Text}}, 1, start.Add(-800*time.Millisecond))
	}
	name := claudeTools[st.Tool]
	assistant(obj{{"type", "tool_use"}, {"id", callID}, {"name", name}, {"input", claudeInput(st)}}, max(st.Tokens, 1), start)

	content, isError, result := claudeResult(st)
	o, id := cw.envelope("user")
	o = append(o,
		KV{"message", obj{{"role", "user"}, {"content", []obj{{
			{"tool_use_id", callID}, {"type", "tool_result"}, {"content", content}, {"is_error", isError},
		}}}}},
		KV{"uuid", id}, KV{"timestamp", stamp(cw.clock.add(st.Duration))}, KV{"toolUseResult", result})
	cw.line(o)
}

// claudeInput renames the canonical input to Claude Code's keys.
func claudeInput(st *Step) obj {
	var in obj
	for _, kv := range st.Input {
		in = append(in, kv)
	}
	if st.Tool == "grep" {
		in = append(in, KV{"output_mode", "content"}, KV{"-n", true})
	}
	return in
}

// claudeResult returns the tool_result content, its error flag, and the
// record's toolUseResult, as Claude Code writes them for each tool.
func claudeResult(st *Step) (content string, isError bool, result any) {
	path := st.inputString("file_path")
	switch st.Tool {
	case "bash":
		switch {
		case st.NoMatch:
			return st.Output, false, obj{{"stdout", st.Output}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}, {"returnCodeInterpretation", "No matches found"}}
		case st.Exit != 0:
			text := fmt.Sprintf("Exit code %d\n%s", st.Exit, st.Output)
			return text, true, "Error: " + text
		}
		return st.Output, false, obj{{"stdout", st.Output}, {"stderr", ""}, {"interrupted", false}, {"isImage", false}}
	case "read":
		lines := strings.Split(strings.TrimSuffix(st.Output, "\n"), "\n")
		var b strings.Builder
		for i, l := range lines {
			fmt.Fprintf(&b, "%6d→%s\n", i+1, l)
		}
		return b.String(), false, obj{{"type", "text"}, {"file", obj{
			{"filePath", path}, {"content", st.Output}, {"numLines", len(lines)}, {"startLine", 1}, {"totalLines", len(lines)},
		}}}
	case "edit":
		if st.Error {
			msg := "String to replace not found in file.\nString: " + st.inputString("old_string")
			return "<tool_use_error>" + msg + "</tool_use_error>", true, "Error: " + msg
		}
		text := fmt.Sprintf("The file %s has been updated. Here's the result of running `cat -n` on a snippet of the edited file:\n%s", path, st.Output)
		result := obj{{"filePath", path}, {"oldString", st.input("old_string")}, {"newString", st.input("new_string")}}
		if st.Original != "" {
			result = append(result, KV{"originalFile", st.Original}, KV{"structuredPatch", claudePatch(st)})
		}
		return text, false, append(result, KV{"userModified", false}, KV{"replaceAll", false})
	case "write":
		return "File created successfully at: " + path, false, obj{{"type", "create"}, {"filePath", path}, {"content", st.input("content")}, {"structuredPatch", []any{}}}
	case "grep":
		if st.NoMatch {
			return "No matches found", false, obj{{"mode", "content"}, {"numFiles", 0}, {"filenames", []any{}}, {"content", ""}, {"numLines", 0}}
		}
		n := strings.Count(strings.TrimSuffix(st.Output, "\n"), "\n") + 1
		return st.Output, false, obj{{"mode", "content"}, {"numFiles", 0}, {"filenames", []any{}}, {"content", st.Output}, {"numLines", n}}
	case "todo":
		return "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress. Please proceed with the current tasks if applicable", false,
			obj{{"oldTodos", []any{}}, {"newTodos", st.input("todos")}}
	}
	return st.Output, st.Error, st.Output
}

// stamp formats t as Claude Code and Codex do: ISO 8601 in UTC with
// milliseconds.
func stamp(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// claudePatch returns the structuredPatch Claude Code records for an edit:
// one hunk that removes the old lines and adds the new.
func claudePatch(st *Step) []obj {
	old, new := st.inputString("old_string"), st.inputString("new_string")
	start := 1
	if i := strings.Index(st.Original, old); i >= 0 {
		start = strings.Count(st.Original[:i], "\n") + 1
	}
	var lines []string
	for l := range strings.Lines(old) {
		lines = append(lines, "-"+strings.TrimSuffix(l, "\n"))
	}
	for l := range strings.Lines(new) {
		lines = append(lines, "+"+strings.TrimSuffix(l, "\n"))
	}
	return []obj{{
		{"oldStart", start}, {"oldLines", strings.Count(old, "\n") + 1},
		{"newStart", start}, {"newLines", strings.Count(new, "\n") + 1},
		{"lines", lines},
	}}
}
