package parser

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// A Session is one agent conversation read from a transcript.
type Session struct {
	Path   string    `json:"path"`            // input name: the file path, or "<stdin>"
	Format string    `json:"format"`          // name of the Format that decoded it
	ID     string    `json:"id"`              // the agent's own session id; empty if it has none
	Title  string    `json:"title,omitzero"`  // the agent's title, or the first user prompt's first line
	Cwd    string    `json:"cwd,omitzero"`    // working directory of the agent
	Model  string    `json:"model,omitzero"`  // model of the first assistant message
	Agent  string    `json:"agent,omitzero"`  // version of the agent that wrote the transcript
	Start  time.Time `json:"start,omitzero"`  // time of the first record; zero when unknown
	End    time.Time `json:"end,omitzero"`    // time of the last record; zero when unknown
	Calls  []*Call   `json:"calls"`           // tool calls in the order the agent made them
	Notes  []string  `json:"notes,omitempty"` // limits of the transcript the reader should know
	// Skipped lists the first MaxSkipped records that could not be read,
	// in input order, and MoreSkipped counts the others, so that a file of
	// millions of broken lines costs no more than one of ten. The rest of
	// the session was read without them.
	Skipped     []*SyntaxError `json:"skipped,omitempty"`
	MoreSkipped int            `json:"more_skipped,omitzero"`
}

// dated widens the session's span of time to t: the first time seen is
// its Start, the latest its End. A zero t, a record with no time, changes
// nothing.
func (s *Session) dated(t time.Time) {
	if t.IsZero() {
		return
	}
	if s.Start.IsZero() {
		s.Start = t
	}
	if t.After(s.End) {
		s.End = t
	}
}

// MaxSkipped is the number of skipped records a session lists.
const MaxSkipped = 10

// SkippedCount returns the number of records skipped, listed or not.
func (s *Session) SkippedCount() int { return len(s.Skipped) + s.MoreSkipped }

// Messages returns the number of conversation messages the session holds:
// one more than the highest message index of any call, or 0 with no calls.
func (s *Session) Messages() int {
	if len(s.Calls) == 0 {
		return 0
	}
	return s.Calls[len(s.Calls)-1].Msg + 1
}

// A Call is one tool call and its result.
type Call struct {
	// Ordinal is the 1-based position of the call in its session.
	Ordinal int `json:"ordinal"`
	// Msg is the 0-based index of the conversation message the call was
	// made in: the "msg N" a reviewer quotes. Each format's doc says how
	// it counts messages.
	Msg int `json:"msg"`
	// ID is the format's own call id (toolu_…, call_…), or "#N" with N the
	// ordinal where the format has none.
	ID   string `json:"id"`
	Tool string `json:"tool"` // tool name as the transcript writes it
	Kind Kind   `json:"kind"` // normalized tool kind

	Command string            `json:"command,omitzero"` // shell command text, for shell calls
	File    string            `json:"file,omitzero"`    // file the tool reads or changes, if any
	Args    map[string]string `json:"args,omitempty"`   // other scalar inputs, values abridged

	Output string `json:"output"` // output text as the agent saw it, abridged (see MaxOutput)
	// Exit is the process exit code, or nil when the transcript does not
	// record one.
	Exit *int `json:"exit,omitempty"`
	// IsError reports that the agent's own record marks the call as failed
	// (is_error, status "error", the opencode "invalid" tool).
	IsError bool `json:"is_error,omitzero"`
	// Unrecorded reports that the format records neither an exit code nor
	// an error flag for the call, whatever its outcome (SWE-agent's shell
	// commands): its output is the only evidence of how it ended.
	Unrecorded bool `json:"unrecorded,omitzero"`
	// Status is what became of the call when the format says (see Status);
	// Note is the agent's own reading of the result, such as Claude Code's
	// "No matches found" for grep's exit 1.
	Status Status `json:"status,omitzero"`
	Note   string `json:"note,omitzero"`

	// Background says how the call came to run in the background, for a
	// format that records it (BackgroundAsked, BackgroundTimeout,
	// BackgroundUser); empty for a call that ran in the foreground. Its
	// outcome, exit code, end time and output are those its later polls,
	// notifications and reads of its output reported.
	Background Background `json:"background,omitzero"`

	Start time.Time `json:"start,omitzero"`
	End   time.Time `json:"end,omitzero"`

	// Text is the start of the assistant's text written before the call in
	// the same turn, for context.
	Text string `json:"text,omitzero"`
	// Sidechain names the subagent that made the call; empty for the main
	// conversation.
	Sidechain string `json:"sidechain,omitzero"`
	// Tokens counts the output tokens of the assistant message that made the
	// call; it is set on the message's first call only, so sums over calls
	// count each message once.
	Tokens int `json:"tokens,omitzero"`

	Pos Pos `json:"pos"` // where the call appears in the input
}

// A Status says what became of a call: one of the words below, which
// retrace gives or reads, or the format's own word, as the transcript
// writes it ("success", "failed", "declined", …); empty when the format
// says nothing, as for most calls that ran to their end.
type Status string

// The statuses retrace gives calls, and the formats' words it reads.
const (
	StatusNoResult    Status = "no-result"   // the transcript ends before the call's result
	StatusRunning     Status = "running"     // still running when the transcript ends, in the background or polled
	StatusInterrupted Status = "interrupted" // stopped before it finished: by the user, a timeout, or the end of the session
	StatusRejected    Status = "rejected"    // the user or a sandbox refused to run it
	StatusCancelled   Status = "cancelled"   // denied or stopped by the user (Gemini CLI's word)
	StatusKilled      Status = "killed"      // a background command the agent stopped
	StatusCompleted   Status = "completed"   // ran to its end (opencode's word)
	StatusError       Status = "error"       // the tool itself failed (opencode's and Gemini CLI's word)
)

// A Background says how a call came to run in the background.
type Background string

// How a call came to run in the background (Call.Background).
const (
	BackgroundAsked   Background = "asked"   // the agent asked for it (Claude Code's run_in_background)
	BackgroundTimeout Background = "timeout" // it outlived the agent's timeout and was moved there
	BackgroundUser    Background = "user"    // the user moved it there while it ran
)

// Seconds returns the call's duration in seconds, or 0 when unknown.
func (c *Call) Seconds() float64 {
	if c.Start.IsZero() || c.End.IsZero() || c.End.Before(c.Start) {
		return 0
	}
	return c.End.Sub(c.Start).Seconds()
}

// A Pos is a location in an input transcript.
type Pos struct {
	File string // input name; "<stdin>" for standard input
	Line int    // 1-based; 0 means unknown
}

// String returns "file:line", or just "file" when Line is 0.
func (p Pos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// MarshalText makes a Pos print as "file:line" in JSON.
func (p Pos) MarshalText() ([]byte, error) { return []byte(p.String()), nil }

// UnmarshalText reads a Pos as MarshalText writes it: "file:line", or
// "file" when the line is unknown.
func (p *Pos) UnmarshalText(b []byte) error {
	s := string(b)
	p.File, p.Line = s, 0
	if i := strings.LastIndexByte(s, ':'); i >= 0 {
		if n, err := strconv.Atoi(s[i+1:]); err == nil && n > 0 {
			p.File, p.Line = s[:i], n
		}
	}
	return nil
}

// MapStrings replaces each text of the session's own that came from the
// transcript (its id, title, working directory, model, agent version,
// notes and the messages of its skipped records) with f of it, as masking
// secrets does. Its path, the name of its input, is kept; so are its
// calls, which Call.MapStrings maps.
func (s *Session) MapStrings(f func(string) string) {
	for _, p := range []*string{&s.ID, &s.Title, &s.Cwd, &s.Model, &s.Agent} {
		mapString(p, f)
	}
	for i := range s.Notes {
		mapString(&s.Notes[i], f)
	}
	for _, e := range s.Skipped {
		mapString(&e.Msg, f)
	}
}

// MapStrings replaces each text of the call that came from the transcript
// with f of it, as masking secrets does: its texts (see MapTexts) and its
// names (see MapNames).
func (c *Call) MapStrings(f func(string) string) {
	c.MapTexts(f)
	c.MapNames(f)
}

// MapTexts replaces what the call says with f of it: its command, file,
// argument values, output, note and text. It writes only what f changes.
func (c *Call) MapTexts(f func(string) string) {
	for _, p := range []*string{&c.Command, &c.File, &c.Output, &c.Note, &c.Text} {
		mapString(p, f)
	}
	for k, v := range c.Args {
		if nv := f(v); nv != v {
			c.Args[k] = nv
		}
	}
}

// MapNames replaces the names the transcript gives the call with f of
// them: its id, tool, status, sidechain and the keys of its arguments. A
// decoder may still read them once it has handed the call on.
func (c *Call) MapNames(f func(string) string) {
	for _, p := range []*string{&c.ID, &c.Tool, &c.Sidechain} {
		mapString(p, f)
	}
	if st := f(string(c.Status)); st != string(c.Status) {
		c.Status = Status(st)
	}
	var renamed []string // old key, new key
	for k := range c.Args {
		if nk := f(k); nk != k {
			renamed = append(renamed, k, nk)
		}
	}
	for i := 0; i < len(renamed); i += 2 {
		v := c.Args[renamed[i]]
		delete(c.Args, renamed[i])
		c.Args[renamed[i+1]] = v
	}
}

// mapString sets *p to f(*p), writing only when that changes it.
func mapString(p *string, f func(string) string) {
	if v := f(*p); v != *p {
		*p = v
	}
}
