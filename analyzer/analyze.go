package analyzer

import (
	"slices"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/parser"
)

// A SessionRef names the session a finding comes from.
type SessionRef struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	ID     string `json:"id"`
}

// A Failure is one failed tool call: the objects `retrace errors` prints.
type Failure struct {
	Session     SessionRef `json:"session"`
	CallID      string     `json:"call_id"`
	Msg         int        `json:"msg"`
	Tool        string     `json:"tool"`
	Command     string     `json:"command"`
	Target      string     `json:"target"`
	Category    Category   `json:"category"`
	Parser      string     `json:"parser,omitzero"` // cli-usage only
	Message     string     `json:"message"`
	BadFlags    []string   `json:"bad_flags"`
	ValidFlags  []string   `json:"valid_flags"`
	Suggestions []string   `json:"suggestions"`
	// FixedBy is the id of the call that fixed this failure, or nil;
	// FixedMsg is the index of its message.
	FixedBy  *string `json:"fixed_by"`
	FixedMsg *int    `json:"fixed_msg"`
	// Attempts counts the failed tries of the same target in the chain this
	// failure belongs to, up to its fix, this one included.
	Attempts int `json:"attempts"`

	Choices   []string       `json:"choices,omitempty"`
	Missing   []string       `json:"missing,omitempty"`
	Exception *ExceptionInfo `json:"exception,omitempty"`
	Program   string         `json:"program,omitzero"` // command-not-found: the program
	Module    string         `json:"module,omitzero"`  // the module or package not found
	Exit      *int           `json:"exit_code"`
	Evidence  string         `json:"evidence"`
	Host      string         `json:"host,omitzero"`
	Sidechain string         `json:"sidechain,omitzero"`
	Time      time.Time      `json:"time,omitzero"`
	Pos       parser.Pos     `json:"pos"`

	call *parser.Call
}

// Call returns the failed call.
func (f *Failure) Call() *parser.Call { return f.call }

// Fixed reports whether a later call fixed the failure.
func (f *Failure) Fixed() bool { return f.FixedBy != nil }

// A SessionReport holds what the analysis found in one session.
type SessionReport struct {
	Session *parser.Session
	// Failures lists the failed calls in call order, rejected calls
	// included.
	Failures []*Failure
	// Chains lists the failure chains in the order of their first failure.
	Chains []*Chain
	// Benchmarks lists the numbers the session's calls printed, in order.
	Benchmarks []*Bench
}

// A Report holds what the analysis found in a set of sessions.
type Report struct {
	Sessions []*SessionReport
	// Lessons lists the mistakes made, most frequent first.
	Lessons []*Lesson
}

// Analyze runs every pass over the sessions, in the order given.
func Analyze(sessions []*parser.Session) *Report {
	reports := make([]*SessionReport, len(sessions))
	for i, s := range sessions {
		reports[i] = AnalyzeSession(s)
	}
	return Combine(reports)
}

// Combine joins the reports of sessions analyzed one by one, and draws the
// lessons they teach together.
func Combine(reports []*SessionReport) *Report {
	return &Report{Sessions: reports, Lessons: Lessons(reports)}
}

// AnalyzeSession finds the failures of one session, pairs them with their
// fixes and extracts its benchmark numbers. It is safe to call for several
// sessions at once.
func AnalyzeSession(s *parser.Session) *SessionReport {
	a := newSessionAnalysis(s)
	rep := &SessionReport{Session: s}
	for i := range s.Calls {
		if f := a.failures[i]; f != nil {
			rep.Failures = append(rep.Failures, f)
		}
	}
	rep.Chains = a.pair()
	rep.Benchmarks = a.benchmarks()
	for _, ch := range rep.Chains {
		if ch.Fix != nil {
			ch.Benchmarks = benchOf(rep.Benchmarks, ch.Fix.CallID)
		}
	}
	return rep
}

// A sessionAnalysis holds the per-call facts the passes share.
type sessionAnalysis struct {
	s        *parser.Session
	ref      SessionRef
	cmds     []*Command // parsed shell commands; nil for other tools
	targets  []string
	failures []*Failure     // nil for calls that succeeded
	index    map[string]int // call index by id
}

func newSessionAnalysis(s *parser.Session) *sessionAnalysis {
	a := &sessionAnalysis{
		s:        s,
		ref:      SessionRef{Path: s.Path, Format: s.Format, ID: s.ID},
		cmds:     make([]*Command, len(s.Calls)),
		targets:  make([]string, len(s.Calls)),
		failures: make([]*Failure, len(s.Calls)),
		index:    make(map[string]int, len(s.Calls)),
	}
	for i, c := range s.Calls {
		a.index[c.ID] = i
		if c.Kind == parser.Shell {
			a.cmds[i] = ParseCommand(c.Command)
		}
		a.targets[i] = targetOf(c, a.cmds[i])
		if d := Diagnose(c, a.cmds[i]); d != nil {
			if t := blame(a.cmds[i], d); t != "" {
				a.targets[i] = t
			}
			a.failures[i] = a.newFailure(i, d)
		}
	}
	return a
}

func (a *sessionAnalysis) newFailure(i int, d *Diagnosis) *Failure {
	c := a.s.Calls[i]
	f := &Failure{
		Session:     a.ref,
		CallID:      c.ID,
		Msg:         c.Msg,
		Tool:        c.Tool,
		Command:     commandOf(c),
		Target:      a.targets[i],
		Category:    d.Category,
		Parser:      d.Parser,
		Message:     d.Message,
		BadFlags:    nonNil(d.BadFlags),
		ValidFlags:  nonNil(d.ValidFlags),
		Suggestions: nonNil(d.Suggestions),
		Choices:     d.Choices,
		Missing:     d.Missing,
		Exception:   d.Exception,
		Program:     d.Program,
		Module:      d.Module,
		Exit:        c.Exit,
		Evidence:    d.Evidence,
		Sidechain:   c.Sidechain,
		Time:        c.Start,
		Pos:         c.Pos,
		call:        c,
	}
	if cmd := a.cmds[i]; cmd != nil {
		f.Host = cmd.Host
	}
	return f
}

// targetOf names what a call acts on: the target of its shell command, or
// the tool kind and its file ("edit parser/x.go").
func targetOf(c *parser.Call, cmd *Command) string {
	if cmd != nil {
		return cmd.Target
	}
	if c.File != "" {
		return string(c.Kind) + " " + c.File
	}
	return c.Tool
}

// blame returns the target of the command of a line that the error names,
// when it is not the line's command of interest: the gpg of
// `op item get key | gpg --import` failing with "gpg: no valid OpenPGP
// data found", the cp of `killall app; cp app ~/bin` failing with "cp:
// cannot create regular file". It returns "" otherwise.
func blame(cmd *Command, d *Diagnosis) string {
	if cmd == nil {
		return ""
	}
	prog := d.Program
	if prog == "" {
		head, _, ok := strings.Cut(d.Message, ": ")
		if !ok || strings.ContainsAny(head, " /") {
			return ""
		}
		prog = head
	}
	if prog == cmd.Program() {
		return ""
	}
	if slices.Contains(cmd.Filters, prog) {
		return prog
	}
	for _, argv := range cmd.Others {
		if len(argv) > 0 && programName(argv[0]) == prog {
			t, _ := identify(argv)
			return t
		}
	}
	return ""
}

// commandOf returns the command line of a shell call, or the tool and its
// file for others.
func commandOf(c *parser.Call) string {
	if c.Kind == parser.Shell {
		return c.Command
	}
	if c.File != "" {
		return c.Tool + " " + c.File
	}
	return c.Tool
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
