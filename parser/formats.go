package parser

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"iter"
)

// A Format is one transcript format: how to recognize it and how to read it.
type Format struct {
	Name     string // used by --input-format and in reports: "claude-code"
	Doc      string // one line, lower case, no final period
	Producer string // what writes it and where it is found
	Sniff    string // how Match recognizes it, for people
	// Match reports whether a transcript starting with head is in this
	// format. head is at most HeadSize bytes, with any byte-order mark
	// removed; it may end in the middle of a record.
	Match func(head []byte) bool
	// Decode reads one transcript. It returns an error only when r cannot be
	// read, together with what was read before; malformed records go to
	// Session.Skipped.
	Decode func(r io.Reader, name string) (*Session, error)
	// Batched says that the calls of one message were made in one
	// response of the model, before any of their results came back (the
	// parallel calls of Claude Code and of chat-completions tool calls):
	// no call of a message answers the result of another.
	Batched bool

	// each, when set, decodes as Decode does and calls done with each call
	// as soon as the decoder will not change it any more; with forget, the
	// session does not keep the calls.
	each func(r io.Reader, name string, done func(*Call), forget bool) (*Session, error)
	// owned says that the strings of the sessions Decode returns share no
	// memory with its input, so that a session keeps no more than it
	// holds.
	owned bool
}

// HeadSize is the number of leading bytes formats are recognized from.
const HeadSize = 64 << 10

// headObjects yields the lines of head that start a JSON object, trimmed,
// for the matchers of JSON Lines formats, each with whether it ends within
// head (complete) rather than being cut off by its end. Other lines, such
// as comments a tool put on top, are passed over.
func headObjects(head []byte) iter.Seq2[[]byte, bool] {
	return func(yield func(line []byte, complete bool) bool) {
		for line := range bytes.Lines(head) {
			complete := bytes.HasSuffix(line, []byte("\n"))
			line = bytes.TrimSpace(line)
			if len(line) == 0 || line[0] != '{' {
				continue
			}
			if !yield(line, complete) {
				return
			}
		}
	}
}

// formats is the registry. Order matters: the first format whose Match
// accepts a head wins, so more specific formats come first.
var formats = []*Format{
	{
		Name:     "opencode",
		Doc:      "opencode session export",
		Producer: "opencode export <session-id> > file.json",
		Sniff:    `one JSON object whose "info.id" starts with "ses_"`,
		Match:    matchOpencode,
		Decode:   decodeOpencode,
		owned:    true,
	},
	{
		Name:     "claude-code",
		Batched:  true,
		Doc:      "Claude Code session log",
		Producer: "Claude Code, in ~/.claude/projects/<project>/<session>.jsonl",
		Sniff:    `JSON lines whose "type" is user, assistant, summary, file-history-snapshot or another Claude Code record type, with no "payload"`,
		Match:    matchClaude,
		Decode:   decodeClaude,
		each:     decodeClaudeEach,
		owned:    true,
	},
	{
		Name:     "codex",
		Doc:      "OpenAI Codex CLI rollout or exec event stream",
		Producer: "Codex CLI, in ~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl and ~/.codex/archived_sessions/; or codex exec --json > file.jsonl; or an EnvGym log of its TypeScript era",
		Sniff:    `JSON lines of {"timestamp", "type": session_meta, turn_context, response_item, event_msg or compacted, "payload"}; a legacy first line {"id", "timestamp", "instructions", "git"}; exec events thread.started, turn.started, item.*; or a rule of '=' then response items printed after "[repo][STDOUT]: "`,
		Match:    matchCodex,
		Decode:   decodeCodex,
	},
	{
		Name:     "swe-agent",
		Doc:      "SWE-agent trajectory",
		Producer: "SWE-agent, as <instance>.traj in its trajectories/ output folder",
		Sniff:    `one JSON object with a "trajectory" array of steps {"action", "observation", "response", "thought", "state"}`,
		Match:    matchSWEAgent,
		Decode:   decodeSWEAgent,
	},
	{
		Name:     "mini-swe-agent",
		Batched:  true,
		Doc:      "mini-swe-agent trajectory",
		Producer: "mini-swe-agent (mini, mini-extra swebench), as <instance>.traj.json",
		Sniff:    `one JSON object with "info" and "messages" whose "trajectory_format" starts with "mini-swe-agent" or whose "info" has "mini_version"`,
		Match:    matchMiniSWEAgent,
		Decode:   decodeMiniSWEAgent,
	},
	{
		Name:     "openhands",
		Doc:      "OpenHands event list or single event",
		Producer: "OpenHands trajectory download or save_trajectory_path (a JSON array of events); one events/<id>.json file of a session store",
		Sniff:    `a JSON array whose first element, or one JSON object, is an event with "id", "source" or "timestamp", and an "action" or "observation" string`,
		Match:    matchOpenHands,
		Decode:   decodeOpenHands,
	},
	{
		Name:     "gemini",
		Doc:      "Gemini CLI chat record, session export or /chat save checkpoint",
		Producer: "Gemini CLI, in ~/.gemini/tmp/<project>/chats/session-*.json (until April 2026) or session-*.jsonl; /chat save <tag> writes ~/.gemini/tmp/<project>/checkpoint-<tag>.json, /export-session <file> the record as JSON",
		Sniff:    `one JSON object with "sessionId", "projectHash" and "startTime", or JSON lines starting with such a header; or Gemini API contents, {"history": [...]} or a bare array, whose first item has "role" user or model and "parts"`,
		Match:    matchGemini,
		Decode:   decodeGemini,
		owned:    true,
	},
	{
		Name:     "text",
		Doc:      "text rendering of an agent session: a copied console or a printed transcript",
		Producer: "a copy of Claude Code's or Gemini CLI's terminal, mini-swe-agent's terminal log (as Terminal-Bench records it), or a transcript printed as [assistant] … [bash] … lines; the format is text:<variant>",
		Sniff:    `not JSON, with several markers of one rendering: "⏺ Tool(…)" calls and "⎿" results; "╭─" panels starting "│ ✔  Tool" with "✦" or "> " turns; "mini-swe-agent (step N, $x):" with "<returncode>"; "[assistant]"/"[user]" lines with a "[bash]" marker; or a Terminal-Bench agent recording (asciinema rec, /installed-agent/, tmux wait -S done)`,
		Match:    matchText,
		Decode:   decodeText,
	},
	{
		Name:     "openai-messages",
		Batched:  true,
		Doc:      "OpenAI chat-completions message list with tool calls",
		Producer: "agent harnesses that save the messages they send to a chat-completions API, as a JSON array or {\"messages\": [...]}",
		Sniff:    `a JSON array of messages, or an object with "messages", whose roles are system, developer, user, assistant, tool or function, with a "tool_calls", "function_call" or "tool_call_id" in the head`,
		Match:    matchOpenAIMessages,
		Decode:   decodeOpenAIMessages,
	},
}

// Formats returns the supported formats in the order they are tried.
// The slice is a copy; the formats themselves must not be changed.
func Formats() []*Format {
	return append([]*Format(nil), formats...)
}

// Lookup returns the format with the given name, or nil.
func Lookup(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Detect returns the first format that accepts head, or nil. A head in
// UTF-16, after its byte-order mark, is decoded first.
func Detect(head []byte) *Format {
	head = bytes.TrimPrefix(utf16Head(head), bom)
	for _, f := range formats {
		if f.Match(head) {
			return f
		}
	}
	return nil
}

var bom = []byte("\xef\xbb\xbf")

// Parse reads one transcript from r; name is used in positions and
// messages. When f is nil the format is detected from the first HeadSize
// bytes, and ErrEmpty, ErrDatabase, ErrBinary or ErrUnknownFormat is
// returned when there is none.
// Other errors come from reading r and arrive with what was read before.
// Options ask for each call as it is read (Each), and for the calls to be
// let go once handed out (Forget).
func Parse(r io.Reader, name string, f *Format, opts ...Option) (*Session, error) {
	var o Option
	for _, opt := range opts {
		if opt.done != nil {
			o.done = opt.done
		}
		o.forget = o.forget || opt.forget
	}
	return parse(r, name, f, o.done, o.forget)
}

// An Option changes how Parse reads a transcript: Each, Forget.
type Option struct {
	done   func(*Call)
	forget bool
}

// Each makes Parse call done with each call of the session once the
// decoder is done with it: as soon as its result is read for formats that
// stream (Claude Code's), at the end for the others. done is called in the
// goroutine of Parse, before it returns the session, once for each call;
// it may change the call.
func Each(done func(*Call)) Option { return Option{done: done} }

// Forget makes Parse let go of each call once Each has handed it out, for
// a caller that keeps the calls it is given or lets them go: the session a
// format that streams returns holds none of them (its Calls is empty), so
// that a long transcript is never held whole. The other formats' sessions
// keep their calls. Without Each, Forget does nothing.
func Forget() Option { return Option{forget: true} }

func parse(r io.Reader, name string, f *Format, done func(*Call), forget bool) (*Session, error) {
	br := UTF8(r)
	head, err := br.Peek(HeadSize)
	if len(head) == 0 && err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	// Any other error comes again when the decoder reads that far.
	if bytes.HasPrefix(head, bom) {
		br.Discard(len(bom))
		head = head[len(bom):]
	}
	if f == nil {
		if len(bytes.TrimSpace(head)) == 0 {
			return nil, ErrEmpty
		}
		if f = Detect(head); f == nil {
			if isSQLite(head) {
				return nil, ErrDatabase
			}
			if bytes.IndexByte(head, 0) >= 0 {
				return nil, ErrBinary
			}
			return nil, ErrUnknownFormat
		}
	}
	if done != nil && f.each != nil {
		s, err := f.each(br, name, func(c *Call) {
			c.toValidUTF8()
			done(c)
		}, forget)
		if le := limitError(err, name); le != nil {
			return nil, le
		}
		if s != nil {
			s.toValidUTF8Fields()
		}
		return s, err
	}
	s, err := f.Decode(br, name)
	if s == nil {
		return s, err
	}
	if le := limitError(err, name); le != nil {
		return nil, le
	}
	if !f.owned {
		s.detach()
	}
	s.toValidUTF8()
	if done != nil {
		for _, c := range s.Calls {
			done(c)
		}
	}
	return s, err
}

// limitError returns the LimitError err holds, named name, or nil: an
// input past a limit is skipped, and what was read of it let go.
func limitError(err error, name string) *LimitError {
	var le *LimitError
	if !errors.As(err, &le) {
		return nil
	}
	if le.Name == "" {
		le.Name = name
	}
	return le
}
