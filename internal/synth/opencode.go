package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"time"
)

// opencode's tool names for the canonical tools.
var opencodeTools = map[string]string{
	"bash": "bash", "read": "read", "edit": "edit", "write": "write", "grep": "grep", "todo": "todowrite",
}

// opencode's input keys, where they differ from the canonical ones.
var opencodeKeys = map[string]string{
	"file_path": "filePath", "old_string": "oldString", "new_string": "newString",
}

const opencodeVersion = "1.1.53"

// WriteOpencode writes s as `opencode export` does: one JSON object,
// indented by two spaces, then a newline.
func WriteOpencode(w io.Writer, s *Session) error {
	ow := &opencodeWriter{s: s, ids: ids{seed: s.seed()}, clock: clock{s.Start}}
	ow.sessionID = ow.id("ses", s.Start)
	var messages []obj
	userID := ""
	for i := range s.Steps {
		st := &s.Steps[i]
		if st.Prompt != "" {
			var m obj
			m, userID = ow.user(st)
			messages = append(messages, m)
			continue
		}
		messages = append(messages, ow.assistant(st, userID))
	}
	export := obj{
		{"info", obj{
			{"id", ow.sessionID},
			{"version", opencodeVersion},
			{"projectID", ow.ids.next(hexDigits, 40)},
			{"directory", s.Cwd},
			{"title", s.Title},
			{"time", obj{{"created", s.Start.UnixMilli()}, {"updated", ow.clock.t.UnixMilli()}}},
		}},
		{"messages", messages},
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(export)
}

type opencodeWriter struct {
	s         *Session
	ids       ids
	clock     clock
	sessionID string
	counter   int
}

// id returns an opencode identifier: a prefix, 12 hex digits that grow
// with time, and 14 random base-62 characters.
func (ow *opencodeWriter) id(prefix string, t time.Time) string {
	ow.counter++
	return fmt.Sprintf("%s_%012x%s", prefix, uint64(t.UnixMilli())<<12|uint64(ow.counter&0xfff), ow.ids.next(base62, 14))
}

func (ow *opencodeWriter) part(msgID string, t time.Time, fields ...KV) obj {
	return append(obj{{"id", ow.id("prt", t)}, {"sessionID", ow.sessionID}, {"messageID", msgID}}, fields...)
}

// user returns a user message and its id.
func (ow *opencodeWriter) user(st *Step) (obj, string) {
	t := ow.clock.add(5 * time.Second)
	id := ow.id("msg", t)
	return obj{
		{"info", obj{
			{"id", id}, {"sessionID", ow.sessionID}, {"role", "user"},
			{"time", obj{{"created", t.UnixMilli()}}},
			{"agent", "build"},
			{"model", obj{{"providerID", "anthropic"}, {"modelID", ow.s.Model}}},
		}},
		{"parts", []obj{ow.part(id, t, KV{"type", "text"}, KV{"text", st.Prompt})}},
	}, id
}

func (ow *opencodeWriter) assistant(st *Step, parentID string) obj {
	created := ow.clock.t.Add(200 * time.Millisecond)
	start := ow.clock.add(st.Think)
	end := ow.clock.add(st.Duration)
	id := ow.id("msg", created)
	parts := []obj{ow.part(id, created, KV{"type", "step-start"})}
	if st.Text != "" {
		parts = append(parts, ow.part(id, start, KV{"type", "text"}, KV{"text", st.Text},
			KV{"time", obj{{"start", start.UnixMilli() - 900}, {"end", start.UnixMilli() - 100}}}))
	}
	parts = append(parts, ow.part(id, start,
		KV{"type", "tool"},
		KV{"callID", "toolu_01" + ow.ids.next(base62, 22)},
		KV{"tool", opencodeTools[st.Tool]},
		KV{"state", opencodeState(st, start, end)},
	))
	tokens := obj{{"input", 6}, {"output", max(st.Tokens, 1)}, {"reasoning", 0}, {"cache", obj{{"read", 48210}, {"write", 412}}}}
	parts = append(parts, ow.part(id, end, KV{"type", "step-finish"}, KV{"reason", "tool-calls"}, KV{"cost", 0.0162}, KV{"tokens", tokens}))
	return obj{
		{"info", obj{
			{"id", id}, {"sessionID", ow.sessionID}, {"role", "assistant"},
			{"time", obj{{"created", created.UnixMilli()}, {"completed", end.UnixMilli()}}},
			{"parentID", parentID},
			{"modelID", ow.s.Model}, {"providerID", "anthropic"},
			{"mode", "build"}, {"agent", "build"},
			{"path", obj{{"cwd", ow.s.Cwd}, {"root", ow.s.Cwd}}},
			{"cost", 0.0162},
			{"tokens", tokens},
			{"finish", "tool-calls"},
		}},
		{"parts", parts},
	}
}

// opencodeState returns a tool part's state as opencode records it.
func opencodeState(st *Step, start, end time.Time) obj {
	var in obj
	for _, kv := range st.Input {
		if k, ok := opencodeKeys[kv.Key]; ok {
			kv.Key = k
		}
		in = append(in, kv)
	}
	times := obj{{"start", start.UnixMilli()}, {"end", end.UnixMilli()}}
	if st.Error {
		msg := "Error: oldString not found in content"
		return obj{{"status", "error"}, {"input", in}, {"error", msg}, {"time", times}}
	}
	path := st.inputString("file_path")
	output, title := st.Output, path
	meta := obj{}
	switch st.Tool {
	case "bash":
		exit := st.Exit
		if st.NoMatch {
			exit = 1
		}
		title = st.inputString("description")
		meta = obj{{"output", output}, {"exit", exit}, {"description", title}, {"truncated", false}}
	case "read":
		lines := strings.Split(strings.TrimSuffix(st.Output, "\n"), "\n")
		var b strings.Builder
		b.WriteString("<file>\n")
		for i, l := range lines {
			fmt.Fprintf(&b, "%05d| %s\n", i+1, l)
		}
		fmt.Fprintf(&b, "\n(End of file - total %d lines)\n</file>", len(lines))
		output = b.String()
		meta = obj{{"preview", st.Output}, {"truncated", false}}
	case "edit", "write":
		output = ""
		meta = obj{{"diagnostics", obj{}}, {"filepath", path}, {"exists", st.Tool == "edit"}}
	case "grep":
		title = st.inputString("pattern")
		if st.NoMatch {
			output = "No files found"
		}
		meta = obj{{"matches", strings.Count(st.Output, "\n")}, {"truncated", false}}
	case "todo":
		b, _ := marshal(st.input("todos"))
		output = string(b)
		title = "todos"
		meta = obj{{"todos", st.input("todos")}}
	}
	return obj{{"status", "completed"}, {"input", in}, {"output", output}, {"title", title}, {"metadata", meta}, {"time", times}}
}
