package analyzer

import (
	"bytes"
	"encoding/json"
	"time"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/parser"
)

// A Failure is one failed tool call: the objects `retrace errors` prints.
// It holds the call's facts, why it failed (its Diagnosis) and what became
// of it (its Outcome, which pairing sets).
type Failure struct {
	Session   SessionRef `json:"session"`
	CallID    string     `json:"call_id"`
	Msg       int        `json:"msg"`
	Tool      string     `json:"tool"`
	Command   string     `json:"command"`
	Target    string     `json:"target"`
	Exit      *int       `json:"exit_code"`
	Host      string     `json:"host,omitzero"`
	Sidechain string     `json:"sidechain,omitzero"`
	Time      time.Time  `json:"time,omitzero"`
	Pos       parser.Pos `json:"pos"`

	diagnose.Diagnosis
	Outcome

	call    *parser.Call
	excerpt []string // see Excerpt
}

// An Outcome is what became of a failure: the call that fixed it, and how
// many tries of its target it took.
type Outcome struct {
	// FixedBy is the id of the call that fixed the failure, or nil;
	// FixedMsg is the index of its message.
	FixedBy  *string `json:"fixed_by"`
	FixedMsg *int    `json:"fixed_msg"`
	// Attempts counts the failed tries of the same target in the chain the
	// failure belongs to, up to its fix, this one included.
	Attempts int `json:"attempts"`
}

// MarshalJSON writes f as the output contract's errors object, its fields
// in the contract's order.
func (f Failure) MarshalJSON() ([]byte, error) {
	d := &f.Diagnosis
	return marshalJSON(failureJSON{
		Session: f.Session, CallID: f.CallID, Msg: f.Msg, Tool: f.Tool, Command: f.Command, Target: f.Target,
		Category: d.Category, Parser: d.Parser, Message: d.Message,
		BadFlags: nonNil(d.BadFlags), ValidFlags: nonNil(d.ValidFlags), Suggestions: nonNil(d.Suggestions),
		FixedBy: f.FixedBy, FixedMsg: f.FixedMsg, Attempts: f.Attempts,
		Choices: d.Choices, Missing: d.Missing, Exception: d.Exception, Program: d.Program, Module: d.Module,
		Exit: f.Exit, Evidence: d.Evidence, Host: f.Host, Sidechain: f.Sidechain, Time: f.Time, Pos: f.Pos,
	})
}

// failureJSON is the errors object of the output contract, in its order.
type failureJSON struct {
	Session     SessionRef              `json:"session"`
	CallID      string                  `json:"call_id"`
	Msg         int                     `json:"msg"`
	Tool        string                  `json:"tool"`
	Command     string                  `json:"command"`
	Target      string                  `json:"target"`
	Category    diagnose.Category       `json:"category"`
	Parser      string                  `json:"parser,omitzero"`
	Message     string                  `json:"message"`
	BadFlags    []string                `json:"bad_flags"`
	ValidFlags  []string                `json:"valid_flags"`
	Suggestions []string                `json:"suggestions"`
	FixedBy     *string                 `json:"fixed_by"`
	FixedMsg    *int                    `json:"fixed_msg"`
	Attempts    int                     `json:"attempts"`
	Choices     []string                `json:"choices,omitempty"`
	Missing     []string                `json:"missing,omitempty"`
	Exception   *diagnose.ExceptionInfo `json:"exception,omitempty"`
	Program     string                  `json:"program,omitzero"`
	Module      string                  `json:"module,omitzero"`
	Exit        *int                    `json:"exit_code"`
	Evidence    string                  `json:"evidence"`
	Host        string                  `json:"host,omitzero"`
	Sidechain   string                  `json:"sidechain,omitzero"`
	Time        time.Time               `json:"time,omitzero"`
	Pos         parser.Pos              `json:"pos"`
}

// Call returns the failed call.
func (f *Failure) Call() *parser.Call { return f.call }

// Excerpt returns the lines of the failed call's output that matter to a
// reviewer (see diagnose.Diagnosis.ExcerptOf).
func (f *Failure) Excerpt() []string { return f.excerpt }

// Fixed reports whether a later call fixed the failure.
func (f *Failure) Fixed() bool { return f.FixedBy != nil }

// newFailure returns the failure of call i, which d diagnoses.
func (a *sessionAnalysis) newFailure(i int, d *diagnose.Diagnosis) *Failure {
	c := a.s.Calls[i]
	f := &Failure{
		Session: a.ref, CallID: c.ID, Msg: c.Msg, Tool: c.Tool, Command: commandOf(c), Target: a.targets[i],
		Exit: c.Exit, Sidechain: c.Sidechain, Time: c.Start, Pos: c.Pos,
		Diagnosis: *d,
		call:      c,
	}
	if cmd := a.cmds[i]; cmd != nil {
		f.Host = cmd.Host
	}
	f.excerpt = d.ExcerptOf(c.Output)
	return f
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// marshalJSON is json.Marshal without the escapes of <, > and &: a
// MarshalJSON method leaves them to the encoder that writes the value.
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
