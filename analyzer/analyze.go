package analyzer

import (
	"maps"
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

	call    *parser.Call
	excerpt []string // see Excerpt
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
	// Part reports that the report is of the first calls of its session
	// only, and the next report goes on with it (see StreamOptions.Part).
	Part bool
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
	st := &SessionStream{keep: true}
	for _, c := range s.Calls {
		st.Add(c)
	}
	return st.Report(s)
}

// A SessionStream analyzes a session call by call, as its decoder finishes
// them (see parser.Each), so that what each call's output says is
// read while the session is still being decoded, and the output let go:
// a session of many calls then never holds all their outputs at once.
// Add every call, then ask for the Report. The report is the one
// AnalyzeSession gives. A SessionStream is for one session; its methods
// must not be called at the same time.
type SessionStream struct {
	facts map[*parser.Call]*callFacts
	keep  bool // leave the calls' outputs as they are (AnalyzeSession)
	opts  StreamOptions
	// parsed keeps the command lines parsed so far (see parseCommand).
	parsed map[string]*Command

	// With StreamOptions.Part: the calls added, in the order of their
	// ordinals, that no part has taken yet, with their facts; the calls
	// added before one with a lower ordinal; the ordinal of the next call
	// the window takes; and its length when a cut was last looked for.
	win     *sessionAnalysis
	early   map[int]addedCall
	next    int
	checked int
}

// An addedCall is a call given to Add, with its facts.
type addedCall struct {
	c *parser.Call
	f *callFacts
}

// StreamOptions leave out of a SessionStream's report what its reader does
// not read, for speed, and let it hand the report out in parts.
type StreamOptions struct {
	// NoNumbers leaves out the benchmark numbers, whose reading is the
	// costliest pass: the report and its chains hold none.
	NoNumbers bool

	// Part, when not nil, is handed the report in parts as calls are
	// added, each as soon as the calls after it can no longer change it,
	// so that a long session is never held whole; Report returns the last
	// part. A chain is never cut: the failures and chains of the parts are
	// those of the whole session, in order, so counts and lessons drawn
	// from the parts are those of the whole. A part's Session holds the
	// calls of the part and Path; only the last part's is the session
	// itself, with its Calls set to those of that part. Parts need
	// NoNumbers, as the numbers of a call may depend on calls long before
	// it, and ordinals from 1 up (parser.Session's).
	Part func(*SessionReport)
	// PartCalls is the fewest calls of a part but the last; 0 means 4096.
	PartCalls int
	// Path is the path of the session, for the parts' Session.
	Path string
}

// NewSessionStream returns a SessionStream for one session.
func NewSessionStream(o StreamOptions) *SessionStream {
	if o.Part != nil && !o.NoNumbers {
		panic("analyzer: StreamOptions.Part without NoNumbers")
	}
	return &SessionStream{opts: o}
}

// Add analyzes a finished call: its command, whether and why it failed,
// the numbers it printed. Then it clears what no later pass and no report
// reads: the output of a call that did not fail (a failure's output gives
// its excerpt), and the arguments of a shell call (the command line says
// them). Calls must not change after they are added.
func (st *SessionStream) Add(c *parser.Call) {
	if st.parsed == nil {
		st.parsed = make(map[string]*Command)
	}
	f := analyzeCall(c, !st.opts.NoNumbers, st.parsed)
	if !st.keep {
		if f.diag == nil {
			c.Output = ""
		}
		if c.Kind == parser.KindShell {
			c.Args = nil
		}
	}
	if st.opts.Part != nil {
		st.take(c, f)
		return
	}
	if st.facts == nil {
		st.facts = make(map[*parser.Call]*callFacts)
	}
	st.facts[c] = f
}

// Report returns the analysis of s, whose calls were given to Add; calls
// that were not are analyzed now. With StreamOptions.Part, it is the
// analysis of the calls that no part took, and s.Calls is set to them.
func (st *SessionStream) Report(s *parser.Session) *SessionReport {
	if st.opts.Part != nil {
		return st.last(s)
	}
	facts := make([]*callFacts, len(s.Calls))
	for i, c := range s.Calls {
		if facts[i] = st.facts[c]; facts[i] == nil {
			facts[i] = analyzeCall(c, !st.opts.NoNumbers, st.parsed)
		}
	}
	st.facts = nil
	return st.report(newSessionAnalysisOf(s, facts))
}

// report draws the report of the analyzed calls of a.
func (st *SessionStream) report(a *sessionAnalysis) *SessionReport {
	rep := &SessionReport{Session: a.s}
	for i := range a.s.Calls {
		if f := a.failures[i]; f != nil {
			rep.Failures = append(rep.Failures, f)
		}
	}
	rep.Chains = a.pair()
	if st.opts.NoNumbers {
		return rep
	}
	rep.Benchmarks = a.benchmarks()
	// The numbers by call, found once: a session of many chains and many
	// numbers would take as many looks through all of them.
	byCall := make(map[string][]*Bench)
	for _, b := range rep.Benchmarks {
		byCall[b.CallID] = append(byCall[b.CallID], b)
	}
	for _, ch := range rep.Chains {
		if ch.Fix != nil {
			ch.Benchmarks = append([]*Bench{}, byCall[ch.Fix.CallID]...)
		}
	}
	return rep
}

// take puts a call added with StreamOptions.Part into the window, in the
// order of the ordinals, and hands out the calls before a cut when there
// are enough of them.
func (st *SessionStream) take(c *parser.Call, f *callFacts) {
	if st.win == nil {
		st.win = newSessionAnalysisOf(&parser.Session{Path: st.opts.Path}, nil)
		st.early = map[int]addedCall{}
		st.next = 1
	}
	st.early[c.Ordinal] = addedCall{c, f}
	for {
		a, ok := st.early[st.next]
		if !ok {
			break
		}
		st.win.add(a.c, a.f)
		delete(st.early, st.next)
		st.next++
	}
	size := st.opts.PartCalls
	if size <= 0 {
		size = 4096
	}
	n := len(st.win.s.Calls)
	if n < 2*size || n-st.checked < size/4 {
		return
	}
	st.checked = n
	if p := st.win.settled(n); p >= size {
		st.opts.Part(st.cut(p))
		st.checked -= p
	}
}

// cut takes the first p calls out of the window and returns their report.
func (st *SessionStream) cut(p int) *SessionReport {
	part, rest := st.win.split(p)
	st.win = rest
	rep := st.report(part)
	rep.Part = true
	return rep
}

// last returns the report of the calls no part took, those added out of
// order included, as the session's own.
func (st *SessionStream) last(s *parser.Session) *SessionReport {
	if st.win == nil { // no call was added
		facts := make([]*callFacts, len(s.Calls))
		for i, c := range s.Calls {
			facts[i] = analyzeCall(c, false, st.parsed)
		}
		return st.report(newSessionAnalysisOf(s, facts))
	}
	for _, o := range slices.Sorted(maps.Keys(st.early)) {
		st.win.add(st.early[o].c, st.early[o].f)
	}
	s.Calls = st.win.s.Calls
	a := newSessionAnalysisOf(s, st.win.facts)
	st.win, st.early = nil, nil
	return st.report(a)
}

// callFacts are what the passes read of one call, found when it is added.
type callFacts struct {
	cmd    *Command   // the parsed shell command; nil for other tools
	target string     // what the call acts on, or the program its error names
	diag   *Diagnosis // why it failed; nil when it did not
	// The numbers it printed, read as the passes read them with the zero
	// BenchOptions: measures says a command of the line measures, and
	// other that it is not the line's command of interest, whose target
	// then names the numbers.
	found    []*Bench
	measures bool
	other    bool
	mcTarget string
}

// analyzeCall finds the facts of one call; its numbers too when numbers
// is true. parsed, when not nil, keeps the commands parsed so far.
func analyzeCall(c *parser.Call, numbers bool, parsed map[string]*Command) *callFacts {
	f := &callFacts{}
	if c.Kind == parser.KindShell {
		f.cmd = parseCommand(c.Command, parsed)
	}
	f.target = targetOf(c, f.cmd)
	if d := Diagnose(c, f.cmd); d != nil {
		if t := blame(f.cmd, d); t != "" {
			f.target = t
		}
		f.diag = d
	}
	if !numbers {
		return f
	}
	if mc := measured(f.cmd, BenchOptions{}); mc != nil {
		f.measures = true
		f.other, f.mcTarget = mc != f.cmd, mc.Target
		f.found = commandBench(mc, c.Output, BenchOptions{})
	}
	return f
}

// A session runs the same command lines again and again (the tests, the
// build, the benchmark): parseCommand parses each once, remembering up to
// maxParsed lines of up to maxParsedLen bytes in parsed. A Command is not
// changed once parsed, so the calls of one line can share it.
const (
	maxParsed    = 1024
	maxParsedLen = 512
)

func parseCommand(line string, parsed map[string]*Command) *Command {
	if parsed == nil || len(line) > maxParsedLen {
		return ParseCommand(line)
	}
	if cmd, ok := parsed[line]; ok {
		return cmd
	}
	if len(parsed) == maxParsed {
		clear(parsed)
	}
	cmd := ParseCommand(line)
	parsed[line] = cmd
	return cmd
}

// A sessionAnalysis holds the per-call facts the passes share.
type sessionAnalysis struct {
	s        *parser.Session
	ref      SessionRef
	cmds     []*Command // parsed shell commands; nil for other tools
	targets  []string
	failures []*Failure     // nil for calls that succeeded
	index    map[string]int // call index by id
	facts    []*callFacts   // nil when the numbers are to be read again
}

// newSessionAnalysis analyzes the calls of s afresh, reading their outputs.
func newSessionAnalysis(s *parser.Session) *sessionAnalysis {
	facts := make([]*callFacts, len(s.Calls))
	for i, c := range s.Calls {
		facts[i] = analyzeCall(c, false, nil)
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
		ref:      SessionRef{Path: s.Path, Format: s.Format, ID: s.ID},
		cmds:     make([]*Command, 0, len(calls)),
		targets:  make([]string, 0, len(calls)),
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
	a.failures = append(a.failures, nil)
	if f.diag != nil {
		a.failures[i] = a.newFailure(i, f.diag)
	}
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
	f.excerpt = excerptOf(f, c.Output)
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
	if d.culprit != "" {
		prog = d.culprit
	}
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
		if d.Category == CommandNotFound {
			return "" // the agent runs the command again without the filter
		}
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
	if c.Kind == parser.KindShell {
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
