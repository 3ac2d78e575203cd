package analyzer

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// A SessionRef names the session a finding comes from.
type SessionRef struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	ID     string `json:"id"`
}

// RefOf returns the SessionRef of s.
func RefOf(s *parser.Session) SessionRef {
	return SessionRef{Path: s.Path, Format: s.Format, ID: s.ID}
}

// SetSession names ref as the session of the failure. The findings of the
// parts of a session (see StreamOptions.Part) name it by its path alone,
// until its last part tells the rest.
func (fl *Failure) SetSession(ref SessionRef) { fl.Session = ref }

// SetSession names ref as the session of the chain, its failures and its
// numbers, as Failure.SetSession does.
func (ch *Chain) SetSession(ref SessionRef) {
	ch.Session = ref
	if ch.Failure != nil {
		ch.Failure.Session = ref
	}
	for _, fl := range ch.failures {
		fl.Session = ref
	}
	for _, b := range ch.Benchmarks {
		b.Session = ref
	}
}

// SetSession names ref as the session of the number, as Failure.SetSession
// does.
func (b *Bench) SetSession(ref SessionRef) { b.Session = ref }

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
	// Part reports that the report is of the first calls of its session
	// only, and the next report goes on with it (see StreamOptions.Part).
	Part bool
	// Timelines follows each metric of the session's numbers alone
	// through its runs; Combine sets it.
	Timelines []*Timeline

	programs []string // see Program
}

// Program names what call i of the session ran, as a reviewer names it:
// the program of its command line, wrappers peeled ("python3" for `ssh
// host 'python3 b.py'`), else the line's first word, else its tool.
// It is "" for a report read back, which holds no calls.
func (r *SessionReport) Program(i int) string {
	if i < 0 || i >= len(r.programs) {
		return ""
	}
	return r.programs[i]
}

// A Report holds what the analysis found in a set of sessions.
type Report struct {
	Sessions []*SessionReport
	// Lessons lists the mistakes made, most frequent first.
	Lessons []*Lesson
	// Summary counts the findings of the sessions.
	Summary *Summary
	// Timelines follows each metric of the sessions' numbers through its
	// runs, across sessions.
	Timelines []*Timeline
}

// Analyze runs every pass over the sessions, in the order given.
func Analyze(sessions []*parser.Session) *Report {
	reports := make([]*SessionReport, len(sessions))
	for i, s := range sessions {
		reports[i] = AnalyzeSession(s)
	}
	return Combine(reports)
}

// Combine joins the reports of sessions analyzed one by one: it draws the
// lessons they teach together, counts their findings, and follows their
// metrics through the runs, across sessions and in each.
func Combine(reports []*SessionReport) *Report {
	r := &Report{Sessions: reports, Lessons: Lessons(reports), Timelines: Timelines(reports)}
	r.Summary = Summarize(r)
	for _, sr := range reports {
		sr.Timelines = Timelines([]*SessionReport{sr})
	}
	return r
}

// AnalyzeSession finds the failures of one session, pairs them with their
// fixes and extracts its benchmark numbers. It is safe to call for several
// sessions at once.
func AnalyzeSession(s *parser.Session) *SessionReport {
	st := &SessionStream{keep: true}
	for _, c := range s.Calls {
		st.Add(c)
	}
	return st.Report(s)
}

// A sessionAnalysis holds the per-call facts the passes share.
type sessionAnalysis struct {
	s        *parser.Session
	ref      SessionRef
	cmds     []*shell.Command // parsed shell commands; nil for other tools
	targets  []string
	failures []*Failure     // nil for calls that succeeded
	index    map[string]int // call index by id
	facts    []*callFacts   // nil when the numbers are to be read again
	programs []string       // see SessionReport.Program
}

// newSessionAnalysis analyzes the calls of s afresh, reading their outputs.
func newSessionAnalysis(s *parser.Session) *sessionAnalysis {
	facts := make([]*callFacts, len(s.Calls))
	parsed := make(map[string]*shell.Command)
	for i, c := range s.Calls {
		facts[i] = analyzeCall(c, false, parsed)
	}
	a := newSessionAnalysisOf(s, facts)
	a.facts = nil // the numbers are read from the outputs
	return a
}

// newSessionAnalysisOf analyzes the calls of s, whose facts are given.
func newSessionAnalysisOf(s *parser.Session, facts []*callFacts) *sessionAnalysis {
	calls := s.Calls
	s.Calls = make([]*parser.Call, 0, len(calls))
	a := &sessionAnalysis{
		s:        s,
		ref:      RefOf(s),
		cmds:     make([]*shell.Command, 0, len(calls)),
		targets:  make([]string, 0, len(calls)),
		programs: make([]string, 0, len(calls)),
		failures: make([]*Failure, 0, len(calls)),
		index:    make(map[string]int, len(calls)),
		facts:    make([]*callFacts, 0, len(calls)),
	}
	for i, c := range calls {
		a.add(c, facts[i])
	}
	return a
}

// split returns the analyses of the first p calls of a and of the others.
func (a *sessionAnalysis) split(p int) (head, tail *sessionAnalysis) {
	part := func(from, to int) *sessionAnalysis {
		b := &sessionAnalysis{
			s:        &parser.Session{Path: a.s.Path, Format: a.s.Format, ID: a.s.ID, Calls: slices.Clone(a.s.Calls[from:to])},
			ref:      a.ref,
			cmds:     slices.Clone(a.cmds[from:to]),
			targets:  slices.Clone(a.targets[from:to]),
			programs: slices.Clone(a.programs[from:to]),
			failures: slices.Clone(a.failures[from:to]),
			facts:    slices.Clone(a.facts[from:to]),
			index:    make(map[string]int, to-from),
		}
		for i, c := range b.s.Calls {
			b.index[c.ID] = i
		}
		return b
	}
	return part(0, p), part(p, len(a.s.Calls))
}

// add appends a call to the analysis.
func (a *sessionAnalysis) add(c *parser.Call, f *callFacts) {
	i := len(a.s.Calls)
	a.s.Calls = append(a.s.Calls, c)
	a.facts = append(a.facts, f)
	a.index[c.ID] = i
	a.cmds = append(a.cmds, f.cmd)
	a.targets = append(a.targets, f.target)
	a.programs = append(a.programs, f.program)
	a.failures = append(a.failures, nil)
	if f.diag != nil {
		a.failures[i] = a.newFailure(i, f.diag)
	}
}

// targetOf names what a call acts on: the target of its shell command, or
// the tool kind and its file ("edit parser/x.go").
func targetOf(c *parser.Call, cmd *shell.Command) string {
	if cmd != nil {
		return cmd.Target
	}
	if c.File != "" {
		return string(c.Kind) + " " + c.File
	}
	return c.Tool
}

// commandOf returns the command line of a shell call, or the tool and its
// file for others.
func commandOf(c *parser.Call) string {
	if c.Kind == parser.KindShell {
		return c.Command
	}
	if c.File != "" {
		return c.Tool + " " + c.File
	}
	return c.Tool
}

// programOf names what call c ran (see SessionReport.Program); cmd is its
// parsed shell command, nil for other tools, and parsed keeps the command
// lines parsed so far (see parseCommand).
func programOf(c *parser.Call, cmd *shell.Command, parsed map[string]*shell.Command) string {
	line := c.Command
	if line == "" {
		line, cmd = c.Tool, nil
	}
	if cmd == nil {
		cmd = parseCommand(line, parsed)
	}
	return programOfLine(cmd, line)
}

// programOfLine returns the program of cmd, parsed from line, or else the
// line's first word.
func programOfLine(cmd *shell.Command, line string) string {
	if p := cmd.Program(); p != "" {
		return p
	}
	if f := strings.Fields(line); len(f) > 0 {
		return f[0]
	}
	return ""
}
