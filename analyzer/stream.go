package analyzer

import (
	"maps"
	"slices"

	"github.com/retrace-dev/retrace/bench"
	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

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
	parsed map[string]*shell.Command

	// With StreamOptions.Part: the calls added, in the order of their
	// ordinals, that no part has taken yet, with their facts; the calls
	// added before one with a lower ordinal; the ordinal of the next call
	// the window takes; and its length when a cut was last looked for.
	win     *sessionAnalysis
	early   map[int]addedCall
	next    int
	checked int
	// lastTarget is the target of the last call of the parts handed out
	// that printed numbers (see sessionAnalysis.benchmarksWith).
	lastTarget string
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
	// itself, with its Calls set to those of that part. The numbers of a
	// part are those its calls printed in the whole session: a baseline
	// the assistant states before a call that measures nothing belongs to
	// the target measured last, in this part or an earlier one. Parts
	// need ordinals from 1 up (parser.Session's).
	Part func(*SessionReport)
	// PartCalls is the fewest calls of a part but the last; 0 means 4096.
	PartCalls int
	// Path is the path of the session, for the parts' Session.
	Path string
}

// NewSessionStream returns a SessionStream for one session.
func NewSessionStream(o StreamOptions) *SessionStream {
	return &SessionStream{opts: o}
}

// Add analyzes a finished call: its command, whether and why it failed,
// the numbers it printed. Then it clears what no later pass and no report
// reads: the output of a call that did not fail (a failure's output gives
// its excerpt), and the arguments of a shell call (the command line says
// them). Calls must not change after they are added.
func (st *SessionStream) Add(c *parser.Call) {
	if st.parsed == nil {
		st.parsed = make(map[string]*shell.Command)
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
	rep := &SessionReport{Session: a.s, programs: a.programs}
	for i := range a.s.Calls {
		if f := a.failures[i]; f != nil {
			rep.Failures = append(rep.Failures, f)
		}
	}
	rep.Chains = a.pair()
	if st.opts.NoNumbers {
		return rep
	}
	rep.Benchmarks, st.lastTarget = a.benchmarksWith(bench.Options{}, st.lastTarget)
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
			facts[i] = analyzeCall(c, !st.opts.NoNumbers, st.parsed)
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
	cmd     *shell.Command      // the parsed shell command; nil for other tools
	target  string              // what the call acts on, or the program its error names
	program string              // what it ran (see SessionReport.Program)
	diag    *diagnose.Diagnosis // why it failed; nil when it did not
	// The numbers it printed, read as the passes read them with the zero
	// bench.Options: measures says a command of the line measures, and
	// other that it is not the line's command of interest, whose target
	// then names the numbers.
	found    []*bench.Result
	measures bool
	other    bool
	mcTarget string
}

// analyzeCall finds the facts of one call; its numbers too when numbers
// is true. parsed, when not nil, keeps the commands parsed so far.
func analyzeCall(c *parser.Call, numbers bool, parsed map[string]*shell.Command) *callFacts {
	f := &callFacts{}
	if c.Kind == parser.KindShell {
		f.cmd = parseCommand(c.Command, parsed)
	}
	f.target = targetOf(c, f.cmd)
	f.program = programOf(c, f.cmd, parsed)
	if d := diagnose.Call(c, f.cmd); d != nil {
		if t := d.Blamed(f.cmd); t != "" {
			f.target = t
		}
		f.diag = d
	}
	if !numbers {
		return f
	}
	if mc := bench.Measured(f.cmd, bench.Options{}); mc != nil {
		f.measures = true
		f.other, f.mcTarget = mc != f.cmd, mc.Target
		f.found = bench.Read(mc, c.Output, bench.Options{})
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

func parseCommand(line string, parsed map[string]*shell.Command) *shell.Command {
	if parsed == nil || len(line) > maxParsedLen {
		return shell.Parse(line)
	}
	if cmd, ok := parsed[line]; ok {
		return cmd
	}
	if len(parsed) == maxParsed {
		clear(parsed)
	}
	cmd := shell.Parse(line)
	parsed[line] = cmd
	return cmd
}
