package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/diagnose"
)

// A document is a post-mortem as `retrace report` writes it, built once
// from a report and rendered as Markdown or HTML. Its strings are
// transcript text cleaned of terminal escapes and control characters, not
// yet escaped for either format.
type document struct {
	Sessions   []*sessionDoc
	Totals     analyzer.Totals
	Sentence   string // what the failures cost, in one line
	Categories []categoryCount
	Lessons    []lessonRow // the most frequent first, at most maxLessons
	Snippet    []string    // the lessons as instructions for an agent
}

// A lessonRow is a lesson as the document lists it, its texts cleaned.
type lessonRow struct {
	Target, Wrong, Right string
	Count                int
}

type categoryCount struct {
	Category string
	Count    int
}

type sessionDoc struct {
	Path, Format, ID, Title string
	Agent, Model            string
	Start                   string // "2026-03-09 13:40 UTC", or ""
	Duration                string // "50m00s", or ""
	Calls, Failures         int
	Fixed, Unresolved       int
	Lost                    string // "5m10s lost", "time lost unknown"
	CallsLost               int
	Notes                   []string
	Chains                  []*chainDoc // fixed chains, in order
	Open                    []*chainDoc // unresolved chains, in order
	Results                 []resultRow
	Timeline                *timelineDoc
}

type chainDoc struct {
	N        int
	Target   string
	Outcome  string // "fixed at msg 35", "never fixed"
	Fixed    bool
	Failures []failureDoc
	Between  []stepDoc
	Fix      *fixDoc
	Cost     string
	Category string
	Message  string
	Change   string // the fix in a few words, for the table of pairs
	Result   string // the fix's headline number
	Msg      int
	Seconds  float64
	Calls    int // the calls the chain cost
}

type failureDoc struct {
	Msg     int
	Command string
	Text    string // the agent's words before the call
	Why     string // "exit code 2; argparse signature: cli-usage (argparse)"
	Excerpt []string
	Notes   []string // rejected and offered flags, the exception's frame
}

type stepDoc struct {
	Msg     int
	Role    string
	Command string
}

type fixDoc struct {
	Msg     int
	Command string
	Text    string
	Lines   []string // what changed
	Result  string
}

// A resultRow is one series of benchmark runs: a metric of a target in one
// configuration or one sweep.
type resultRow struct {
	Target, Label, Unit, Context     string
	Runs                             int
	First, Best, Last, Change, Trend string
	Baseline                         string
	Points                           []*analyzer.Bench
}

// maxLessons bounds the lessons a report lists.
const maxLessons = 10

// newDocument gathers what a post-mortem tells from a report.
func newDocument(r *analyzer.Report) *document {
	sum := r.Summary
	d := &document{Totals: sum.Totals, Sentence: costSentence(sum.Totals)}
	for _, c := range diagnose.Categories {
		if n := sum.Totals.ByCategory[c]; n > 0 {
			d.Categories = append(d.Categories, categoryCount{string(c), n})
		}
	}
	for _, l := range r.Lessons[:min(len(r.Lessons), maxLessons)] {
		d.Lessons = append(d.Lessons, lessonRow{Target: clean(l.Target, 200), Wrong: clean(l.Wrong, 200), Right: clean(l.Right, 200), Count: l.Count})
	}
	d.Snippet = snippetLines(r.Lessons)
	for i, sr := range r.Sessions {
		d.Sessions = append(d.Sessions, newSessionDoc(sr, sum.Sessions[i]))
	}
	return d
}

func newSessionDoc(sr *analyzer.SessionReport, ss analyzer.SessionSummary) *sessionDoc {
	s := sr.Session
	sd := &sessionDoc{
		Path: clean(s.Path, 300), Format: s.Format, ID: clean(s.ID, 100), Title: clean(s.Title, 120),
		Agent: clean(s.Agent, 40), Model: clean(s.Model, 80),
		Calls: ss.Calls, Failures: ss.Failures, Fixed: ss.Fixed, Unresolved: ss.Unresolved, CallsLost: ss.CallsLost,
		Lost: duration(ss.SecondsLost) + " lost",
	}
	if ss.Untimed {
		sd.Lost = "time lost unknown"
	}
	for _, n := range s.Notes {
		sd.Notes = append(sd.Notes, clean(n, 300))
	}
	if !s.Start.IsZero() {
		sd.Start = s.Start.UTC().Format("2006-01-02 15:04 UTC")
		if s.End.After(s.Start) {
			sd.Duration = duration(s.End.Sub(s.Start).Seconds())
		}
	}
	for _, ch := range sr.Chains {
		cd := newChainDoc(ch)
		if ch.Fix != nil {
			cd.N = len(sd.Chains) + 1
			sd.Chains = append(sd.Chains, cd)
		} else {
			cd.N = len(sd.Open) + 1
			sd.Open = append(sd.Open, cd)
		}
	}
	for _, r := range benchSeries(sr.Timelines) {
		c := r.cells()
		sd.Results = append(sd.Results, resultRow{Target: clean(r.target, 80), Label: clean(r.label, 80), Unit: clean(r.unit, maxUnit),
			Context: clean(r.context, 200), Runs: len(r.points), First: c.first, Best: c.best, Last: c.last,
			Change: c.change, Trend: c.trend, Baseline: c.baseline, Points: r.points})
	}
	sd.Timeline = newTimeline(sr)
	return sd
}

func newChainDoc(ch *analyzer.Chain) *chainDoc {
	f := ch.Failure
	cd := &chainDoc{
		Target: clean(f.Target, 80), Category: string(f.Category), Message: clean(f.Message, 200), Msg: f.Msg,
		Change: clean(change(ch), 300), Result: headline(ch.Benchmarks), Seconds: ch.Cost.Seconds, Calls: ch.Cost.Calls,
	}
	cd.Outcome = "never fixed"
	if ch.Fix != nil {
		cd.Outcome = fmt.Sprintf("fixed at msg %d", ch.Fix.Msg)
		cd.Fixed = true
	}
	for _, g := range ch.Failures() {
		fd := failureDoc{Msg: g.Msg, Command: cleanText(g.Command)}
		for _, l := range g.Excerpt() {
			fd.Excerpt = append(fd.Excerpt, cleanLine(l, 200))
		}
		if c := g.Call(); c != nil {
			fd.Text = clean(c.Text, 300)
		}
		fd.Why = g.Evidence + ": " + string(g.Category)
		if g.Parser != "" {
			fd.Why += " (" + g.Parser + ")"
		}
		if len(g.BadFlags) > 0 {
			note := "rejected " + strings.Join(g.BadFlags, ", ")
			if len(g.ValidFlags) > 0 {
				note += "; the usage text offered " + strings.Join(g.ValidFlags, ", ")
			}
			fd.Notes = append(fd.Notes, clean(note, 400))
		}
		if len(g.Suggestions) > 0 {
			fd.Notes = append(fd.Notes, clean("the parser suggested "+strings.Join(g.Suggestions, ", "), 300))
		}
		if e := g.Exception; e != nil && e.File != "" {
			fd.Notes = append(fd.Notes, clean(fmt.Sprintf("raised at %s:%d in %s", e.File, e.Line, e.Func), 300))
		}
		cd.Failures = append(cd.Failures, fd)
	}
	for _, st := range ch.Between {
		if st.Role != analyzer.RoleRetry {
			cd.Between = append(cd.Between, stepDoc{Msg: st.Msg, Role: string(st.Role), Command: clean(st.Command, 200)})
		}
	}
	switch {
	case ch.Fix != nil:
		fx := &fixDoc{Msg: ch.Fix.Msg, Command: cleanText(ch.Fix.Command)}
		for _, l := range fixLines(ch) {
			fx.Lines = append(fx.Lines, clean(l, 400))
		}
		if c := ch.FixCall(); c != nil {
			fx.Text = clean(c.Text, 300)
		}
		if len(ch.Benchmarks) > 0 {
			fx.Result = headline(ch.Benchmarks)
		}
		cd.Fix = fx
	case ch.Workaround != nil:
		cd.Outcome = fmt.Sprintf("worked around at msg %d", ch.Workaround.Msg)
		cd.Fix = &fixDoc{Msg: ch.Workaround.Msg, Command: cleanText(ch.Workaround.Command),
			Lines: []string{workaroundLine(ch)}}
	}
	cd.Cost = fmt.Sprintf("%s, %s", plural(ch.Cost.Messages, "message"), plural(ch.Cost.Calls, "call"))
	if ch.Cost.Seconds > 0 {
		cd.Cost += ", " + duration(ch.Cost.Seconds)
	}
	if ch.Cost.Tokens > 0 {
		cd.Cost += fmt.Sprintf(", %d output tokens", ch.Cost.Tokens)
	}
	return cd
}

// snippetLines writes the lessons as Markdown bullets, as `lessons -f
// markdown` does.
func snippetLines(lessons []*analyzer.Lesson) []string {
	var targets []string
	by := make(map[string][]*analyzer.Lesson)
	for _, l := range lessons {
		if _, ok := by[l.Target]; !ok {
			targets = append(targets, l.Target)
		}
		by[l.Target] = append(by[l.Target], l)
	}
	var out []string
	for _, t := range targets {
		out = append(out, "- "+lessonLine(t, by[t]))
	}
	return out
}

// A timelineDoc places a session's calls on a time axis for the HTML
// report's chart: when each ran, which failed, which fixed a failure.
type timelineDoc struct {
	Start, End time.Time
	Marks      []mark
}

type mark struct {
	At      float64 // 0 to 1 along the session
	Kind    string  // "ok", "failed", "fix", "rejected"
	Label   string  // "msg 33: benchmark_eagle3.py"
	GapFrom float64 // for failures that were fixed: where the lost time starts
	GapTo   float64 // and ends (the fix)
}

// newTimeline places the calls of a session that has times; it returns
// nil for a session without them, or with a single instant.
func newTimeline(sr *analyzer.SessionReport) *timelineDoc {
	s := sr.Session
	var start, end time.Time
	for _, c := range s.Calls {
		if c.Start.IsZero() {
			continue
		}
		if start.IsZero() || c.Start.Before(start) {
			start = c.Start
		}
		if c.Start.After(end) {
			end = c.Start
		}
	}
	if start.IsZero() || !end.After(start) {
		return nil
	}
	span := end.Sub(start).Seconds()
	at := func(t time.Time) float64 { return t.Sub(start).Seconds() / span }
	failed := make(map[string]*analyzer.Failure)
	for _, f := range sr.Failures {
		failed[f.CallID] = f
	}
	fixes := make(map[string]*analyzer.Chain)
	for _, ch := range sr.Chains {
		if ch.Fix != nil {
			fixes[ch.Fix.CallID] = ch
		}
	}
	tl := &timelineDoc{Start: start, End: end}
	for i, c := range s.Calls {
		if c.Start.IsZero() {
			continue
		}
		m := mark{At: at(c.Start), Kind: "ok", Label: clean(fmt.Sprintf("msg %d: %s", c.Msg, sr.Program(i)), 120)}
		if f := failed[c.ID]; f != nil {
			m.Kind = "failed"
			if f.Category == diagnose.Rejected {
				m.Kind = "rejected"
			}
			m.Label = clean(fmt.Sprintf("msg %d: %s failed (%s)", c.Msg, f.Target, f.Category), 120)
		}
		if ch := fixes[c.ID]; ch != nil {
			m.Kind = "fix"
			m.Label = clean(fmt.Sprintf("msg %d: %s fixed", c.Msg, ch.Failure.Target), 120)
			if fc := ch.Failure.Call(); fc != nil && !fc.Start.IsZero() {
				m.GapFrom, m.GapTo = at(fc.Start), m.At
			}
		}
		tl.Marks = append(tl.Marks, m)
	}
	return tl
}
