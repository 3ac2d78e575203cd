package synth

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

const codexVersion = "0.98.0"

// codexModel stands in for the scenario's model: Codex runs OpenAI's.
const codexModel = "gpt-5.2-codex"

// WriteCodex writes s as a Codex CLI rollout of the wrapped era, as
// ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl holds it. Shell commands go
// through shell_command; reads and searches are shell commands too, as
// Codex has no tools for them; edits and writes are apply_patch calls; the
// todo list is update_plan.
func WriteCodex(w io.Writer, s *Session) error {
	cw := &codexWriter{w: w, s: s, ids: ids{seed: s.seed()}, clock: clock{s.Start}}
	cw.record(s.Start, "session_meta", obj{
		{"id", s.ID},
		{"timestamp", stamp(s.Start)},
		{"cwd", s.Cwd},
		{"originator", "codex_cli_rs"},
		{"cli_version", codexVersion},
		{"source", "cli"},
		{"model_provider", "openai"},
		{"base_instructions", obj{{"text", "You are Codex, based on GPT-5. You are running as a coding agent in the Codex CLI on a user's computer."}}},
		{"git", obj{{"commit_hash", cw.ids.next(hexDigits, 40)}, {"branch", "main"}, {"repository_url", "git@github.com:example/" + filepath.Base(s.Cwd) + ".git"}}},
	})
	cw.record(s.Start, "response_item", obj{
		{"type", "message"}, {"role", "user"},
		{"content", []obj{{{"type", "input_text"}, {"text", "<environment_context>\n  <cwd>" + s.Cwd + "</cwd>\n  <approval_policy>on-request</approval_policy>\n  <sandbox_mode>danger-full-access</sandbox_mode>\n  <network_access>enabled</network_access>\n  <shell>bash</shell>\n</environment_context>"}}}},
	})
	for i := range s.Steps {
		cw.step(&s.Steps[i])
	}
	return cw.err
}

type codexWriter struct {
	w     io.Writer
	s     *Session
	ids   ids
	clock clock
	err   error
}

// record writes one rollout line.
func (cw *codexWriter) record(t time.Time, typ string, payload obj) {
	if cw.err != nil {
		return
	}
	b, err := marshal(obj{{"timestamp", stamp(t)}, {"type", typ}, {"payload", payload}})
	if err == nil {
		_, err = fmt.Fprintf(cw.w, "%s\n", b)
	}
	cw.err = err
}

func (cw *codexWriter) step(st *Step) {
	if st.Prompt != "" {
		t := cw.clock.add(5 * time.Second)
		cw.record(t, "response_item", obj{
			{"type", "message"}, {"role", "user"},
			{"content", []obj{{{"type", "input_text"}, {"text", st.Prompt}}}},
		})
		cw.record(t, "event_msg", obj{{"type", "user_message"}, {"message", st.Prompt}, {"images", []any{}}})
		cw.record(t, "turn_context", obj{
			{"cwd", cw.s.Cwd},
			{"approval_policy", "on-request"},
			{"sandbox_policy", obj{{"type", "danger-full-access"}}},
			{"model", codexModel},
			{"effort", "high"},
			{"summary", "auto"},
		})
		return
	}
	start := cw.clock.add(st.Think)
	cw.record(start.Add(-1500*time.Millisecond), "response_item", obj{
		{"type", "reasoning"},
		{"summary", []any{}},
		{"content", nil},
		{"encrypted_content", "gAAAAABp" + cw.ids.next(base62, 120)},
	})
	if st.Text != "" {
		t := start.Add(-700 * time.Millisecond)
		cw.record(t, "event_msg", obj{{"type", "agent_message"}, {"message", st.Text}})
		cw.record(t, "response_item", obj{
			{"type", "message"}, {"role", "assistant"},
			{"content", []obj{{{"type", "output_text"}, {"text", st.Text}}}},
		})
	}
	callID := "call_" + cw.ids.next(base62, 24)
	name, args, patch := cw.call(st)
	if patch != "" {
		cw.record(start, "response_item", obj{{"type", "custom_tool_call"}, {"status", "completed"}, {"call_id", callID}, {"name", name}, {"input", patch}})
	} else {
		b, err := marshal(args)
		if err != nil {
			cw.err = err
			return
		}
		cw.record(start, "response_item", obj{{"type", "function_call"}, {"name", name}, {"arguments", string(b)}, {"call_id", callID}})
	}
	tokens := max(st.Tokens, 1)
	usage := obj{{"input_tokens", 48620}, {"cached_input_tokens", 48128}, {"output_tokens", tokens}, {"reasoning_output_tokens", tokens / 2}, {"total_tokens", 48620 + tokens}}
	cw.record(start.Add(50*time.Millisecond), "event_msg", obj{
		{"type", "token_count"},
		{"info", obj{{"total_token_usage", usage}, {"last_token_usage", usage}, {"model_context_window", 272000}}},
		{"rate_limits", nil},
	})
	end := cw.clock.add(st.Duration)
	typ := "function_call_output"
	if patch != "" {
		typ = "custom_tool_call_output"
	}
	cw.record(end, "response_item", obj{{"type", typ}, {"call_id", callID}, {"output", cw.output(st)}})
}

// call returns the Codex tool and arguments for a step; for apply_patch, the
// patch, which is the call's whole input.
func (cw *codexWriter) call(st *Step) (name string, args obj, patch string) {
	path := cw.s.rel(st.inputString("file_path"))
	switch st.Tool {
	case "bash":
		return "shell_command", obj{{"command", st.inputString("command")}, {"workdir", cw.s.Cwd}}, ""
	case "read":
		return "shell_command", obj{{"command", "sed -n '1,200p' " + path}, {"workdir", cw.s.Cwd}}, ""
	case "grep":
		cmd := "rg -n '" + st.inputString("pattern") + "' " + cw.s.rel(st.inputString("path"))
		return "shell_command", obj{{"command", cmd}, {"workdir", cw.s.Cwd}}, ""
	case "edit":
		return "apply_patch", nil, "*** Begin Patch\n*** Update File: " + path + "\n@@\n" +
			prefixLines("-", st.inputString("old_string")) + prefixLines("+", st.inputString("new_string")) + "*** End Patch"
	case "write":
		return "apply_patch", nil, "*** Begin Patch\n*** Add File: " + path + "\n" + prefixLines("+", st.inputString("content")) + "*** End Patch"
	case "todo":
		var plan []obj
		todos, _ := st.input("todos").([]obj)
		for _, t := range todos {
			var step, status any
			for _, kv := range t {
				switch kv.Key {
				case "content":
					step = kv.Value
				case "status":
					status = kv.Value
				}
			}
			plan = append(plan, obj{{"step", step}, {"status", status}})
		}
		return "update_plan", obj{{"plan", plan}}, ""
	}
	return st.Tool, obj(st.Input), ""
}

// output returns the call's output as Codex gives it to the model.
func (cw *codexWriter) output(st *Step) string {
	path := cw.s.rel(st.inputString("file_path"))
	switch st.Tool {
	case "bash", "read", "grep":
		exit, out := st.Exit, st.Output
		if st.NoMatch {
			exit = 1
			if st.Tool == "grep" {
				out = ""
			}
		}
		secs := math.Round(st.Duration.Seconds()*10) / 10
		return "Exit code: " + strconv.Itoa(exit) + "\nWall time: " + strconv.FormatFloat(secs, 'f', -1, 64) + " seconds\nOutput:\n" + out
	case "edit", "write":
		if st.Error {
			return "apply_patch verification failed: Failed to find expected lines in " + st.inputString("file_path") + ":\n" + st.inputString("old_string")
		}
		mark := "M"
		if st.Tool == "write" {
			mark = "A"
		}
		b, _ := marshal(obj{
			{"output", "Success. Updated the following files:\n" + mark + " " + path + "\n"},
			{"metadata", obj{{"exit_code", 0}, {"duration_seconds", json.Number("0.0")}}},
		})
		return string(b)
	case "todo":
		return "Plan updated"
	}
	return st.Output
}

// prefixLines puts prefix in front of every line of s, ending each with a
// newline, as patch hunks are written.
func prefixLines(prefix, s string) string {
	var b strings.Builder
	for line := range strings.Lines(s) {
		b.WriteString(prefix + strings.TrimSuffix(line, "\n") + "\n")
	}
	return b.String()
}
