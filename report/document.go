package report

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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
	Sessions   []*sessionDoc // as the index lists them (see sessionDoc.indexed)
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
	// Anchor is the session's element id in the HTML page, unique within
	// it and made of [a-z0-9-] only (anchorID).
	Anchor string
	// Label names the session apart from the others, as the summary does:
	// its project and short id, or its file.
	Label   string
	Project string
	// Heading is the title as plain text, its Markdown marks taken out.
	Heading           string
	Categories        []string // the categories of its failures, in diagnose's order
	Seconds           float64  // the time its failures cost; see Lost
	Agent, Model      string
	Start             string // "2026-03-09 13:40 UTC", or ""
	Duration          string // "50m00s", or ""
	Calls, Failures   int
	Fixed, Unresolved int
	Lost              string // "5m10s lost", "time lost unknown"
	CallsLost         int
	Notes             []string
	Chains            []*chainDoc // fixed chains, in order
	Open              []*chainDoc // unresolved chains, in order
	Results           []resultRow
	Timeline          *timelineView // nil for a session without times
}

type chainDoc struct {
	N        int
	Anchor   string // its element id in the HTML page (anchorID)
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
	Marks   []string // the words of Command the fix changed or dropped
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
	Marks   []string // the words of Command the fix added or changed
}

// A resultRow is one series of benchmark runs: a metric of a target in one
// configuration or one sweep.
type resultRow struct {
	Target, Label, Unit, Context     string
	Runs                             int
	First, Best, Last, Change, Trend string
	Baseline                         string
	Points                           []*analyzer.Bench
	Better                           string // "higher", "lower" or ""
	// Caveat says why First and Last may not compare: the runs are the
	// steps of a sweep, or the target's own file was edited between them.
	Caveat string
}

// maxLessons bounds the lessons a report lists.
const maxLessons = 10

// A docBuilder makes the document of a post-mortem a session at a time:
// add returns each session's document whole, for the caller to write and
// let go of, and keeps of it only what the head of the post-mortem and
// its index read (see sessionDoc.indexed). done completes the document.
type docBuilder struct {
	d      *document
	sum    *analyzer.Summary
	labels map[string]string
	ids    anchors
	// lessons are those given, or when none were, those the sessions
	// teach, learned as they come.
	lessons []*analyzer.Lesson
	learned analyzer.LessonSet
}

// newDocBuilder returns the builder of the post-mortem of the sessions sum
// counts, which add must then be given in the same order. lessons are the
// lessons they teach, or nil for the builder to draw them from them.
func newDocBuilder(sum *analyzer.Summary, lessons []*analyzer.Lesson) *docBuilder {
	d := &document{Totals: sum.Totals, Sentence: costSentence(sum.Totals)}
	for _, c := range diagnose.Categories {
		if n := sum.Totals.ByCategory[c]; n > 0 {
			d.Categories = append(d.Categories, categoryCount{string(c), n})
		}
	}
	return &docBuilder{d: d, sum: sum, labels: sessionLabels(sum.Sessions), lessons: lessons}
}

// add returns the document of the next session, sr, and v, what the
// post-mortem reads of its calls.
func (b *docBuilder) add(sr *analyzer.SessionReport, v callView) *sessionDoc {
	ss := b.sum.Sessions[len(b.d.Sessions)]
	sd := newSessionDoc(sr, ss, v)
	sd.Label = b.labels[ss.Path+"\x00"+ss.ID]
	sd.Anchor = b.ids.add("s-" + sessionKey(ss))
	for _, cd := range sd.rows() {
		cd.Anchor = b.ids.add(fmt.Sprintf("%s-m%d", sd.Anchor, cd.Msg))
	}
	if b.lessons == nil {
		b.learned.Add(sr)
	}
	b.d.Sessions = append(b.d.Sessions, sd.indexed())
	return sd
}

// done returns the document, its sessions as the index lists them.
func (b *docBuilder) done() *document {
	lessons := b.lessons
	if lessons == nil {
		lessons = b.learned.Lessons()
	}
	for _, l := range lessons[:min(len(lessons), maxLessons)] {
		b.d.Lessons = append(b.d.Lessons, lessonRow{Target: clean(l.Target, 200), Wrong: clean(l.Wrong, 200), Right: clean(l.Right, 200), Count: l.Count})
	}
	b.d.Snippet = snippetLines(lessons)
	return b.d
}

// rows returns the session's chains as its table of failures lists them:
// the fixed ones, then the others, each in order.
func (sd *sessionDoc) rows() []*chainDoc {
	return append(sd.Chains[:len(sd.Chains):len(sd.Chains)], sd.Open...)
}

// indexed returns the session's document without its chains, results,
// timeline and notes: what the head and the index of a post-mortem read.
func (sd *sessionDoc) indexed() *sessionDoc {
	in := *sd
	in.Chains, in.Open, in.Results, in.Timeline, in.Notes = nil, nil, nil, nil, nil
	return &in
}

// sessionKey is what a session's anchor is made from: the short id, or
// else the file's name.
func sessionKey(ss analyzer.SessionSummary) string {
	if ss.ID != "" {
		return shortID(ss.ID)
	}
	return strings.TrimSuffix(filepath.Base(ss.Path), filepath.Ext(ss.Path))
}

// anchors hands out the element ids of a page, each once. The zero
// anchors is ready to use.
type anchors struct {
	taken map[string]bool
	// next is, for a base taken, the counter to try after it: the ids
	// with the counters before it are taken, and stay so. A page of many
	// sessions of one id asks for the same base thousands of times.
	next map[string]int
}

// maxAnchor bounds the length of an anchor before its counter.
const maxAnchor = 40

// add returns an id made of want: lower-case letters, digits and single
// dashes only, so that it is safe in a URL's fragment and in CSS, with
// "-2", "-3"… added when an earlier id took it. The same inputs give the
// same ids, so a link into a page stays good when the page is written
// again.
func (a *anchors) add(want string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(want) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		} else {
			dash = true
		}
		if b.Len() >= maxAnchor {
			break
		}
	}
	base := b.String()
	if base == "" || base[0] < 'a' || base[0] > 'z' {
		base = "x-" + base
	}
	if a.taken == nil {
		a.taken, a.next = map[string]bool{}, map[string]int{}
	}
	id, n := base, max(a.next[base], 2)
	for ; a.taken[id]; n++ {
		id = base + "-" + strconv.Itoa(n)
	}
	if id != base {
		a.next[base] = n
	}
	a.taken[id] = true
	return id
}

// plainTitle writes a title as plain text: without the marks of a
// Markdown heading, list item or quote at its start, emphasis, code spans,
// or a link's address.
func plainTitle(s string) string {
	s = mdLeadRE.ReplaceAllString(strings.TrimSpace(s), "")
	s = mdLinkRE.ReplaceAllString(s, "$1")
	for _, re := range mdEmphasisREs {
		s = re.ReplaceAllString(s, "$1")
	}
	return strings.TrimSpace(strings.ReplaceAll(s, "`", ""))
}

var (
	mdLeadRE = regexp.MustCompile(`^(?:#{1,6}\s+|>\s*|[-*+]\s+)+`)
	mdLinkRE = regexp.MustCompile(`!?\[([^\]]*)\]\([^)]*\)`)
	// mdEmphasisREs match strong, emphasis and strike-through, the
	// strongest first; RE2 has no back-references to pair the marks.
	mdEmphasisREs = []*regexp.Regexp{
		regexp.MustCompile(`\*\*(\S(?:.*?\S)?)\*\*`), regexp.MustCompile(`__(\S(?:.*?\S)?)__`),
		regexp.MustCompile(`~~(\S(?:.*?\S)?)~~`), regexp.MustCompile(`\*(\S(?:.*?\S)?)\*`),
	}
)

func newSessionDoc(sr *analyzer.SessionReport, ss analyzer.SessionSummary, v callView) *sessionDoc {
	s := sr.Session
	sd := &sessionDoc{
		Path: clean(s.Path, 300), Format: s.Format, ID: clean(s.ID, 100), Title: clean(s.Title, 120),
		Heading: clean(plainTitle(s.Title), 120), Project: clean(ss.Project, 80),
		Agent: clean(s.Agent, 40), Model: clean(s.Model, 80),
		Calls: ss.Calls, Failures: ss.Failures, Fixed: ss.Fixed, Unresolved: ss.Unresolved, CallsLost: ss.CallsLost,
		Lost: duration(ss.SecondsLost) + " lost", Seconds: ss.SecondsLost,
	}
	if ss.Untimed {
		sd.Lost = "time lost unknown"
		sd.Seconds = -1
	}
	for _, c := range diagnose.Categories {
		for _, f := range sr.Failures {
			if f.Category == c {
				sd.Categories = append(sd.Categories, string(c))
				break
			}
		}
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
			Change: c.change, Trend: c.trend, Baseline: c.baseline, Points: numbers(r.points), Better: r.better, Caveat: caveat(r, v.edits)})
	}
	sd.Timeline = v.timeline
	return sd
}

// caveat says why the first and last runs of a series may not compare:
// they are the steps of a sweep, or the file the series is named after was
// edited between them (the benchmark itself changed, not only the code it
// measures).
func caveat(r *series, edits []edit) string {
	if len(r.points) < 2 {
		return ""
	}
	if r.sweep {
		return "the runs are the steps of a sweep, not repeats of one run"
	}
	first, last := r.points[0].b.Msg, r.points[len(r.points)-1].b.Msg
	for _, e := range edits {
		if e.msg >= first && e.msg < last && filepath.Base(e.file) == r.target {
			return clean(fmt.Sprintf("%s itself was edited at msg %d, between the runs: they may not measure the same work", r.target, e.msg), 200)
		}
	}
	return ""
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
		fd.Marks = failureMarks(ch, g)
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
			fd.Notes = append(fd.Notes, clean(raisedAt(e), 300))
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
		fx.Marks = fixMarks(ch.Diff)
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

// failureMarks lists the words of a failed command to set apart: the flags
// its error rejected and, for the last failure before the fix, what the
// fix dropped, renamed or gave another value.
func failureMarks(ch *analyzer.Chain, f *analyzer.Failure) []string {
	marks := slices.Clone(f.BadFlags)
	if fs := ch.Failures(); ch.Diff != nil && fs[len(fs)-1] == f {
		for _, r := range ch.Diff.Renamed {
			marks = append(marks, r.From)
		}
		for _, c := range ch.Diff.Changed {
			marks = append(marks, c.Flag+" "+c.From, c.Flag+"="+c.From)
		}
		marks = append(marks, ch.Diff.Removed...)
	}
	return cleanAll(marks)
}

// fixMarks lists the words of a fix's command that the diff says it added,
// renamed or gave another value.
func fixMarks(d *analyzer.Diff) []string {
	if d == nil {
		return nil
	}
	var marks []string
	for _, r := range d.Renamed {
		marks = append(marks, r.To)
	}
	for _, c := range d.Changed {
		marks = append(marks, c.Flag+" "+c.To, c.Flag+"="+c.To)
	}
	return cleanAll(append(marks, d.Added...))
}

// cleanAll cleans each string as a command's line is (cleanText).
func cleanAll(ss []string) []string {
	for i, s := range ss {
		ss[i] = cleanText(s)
	}
	return ss
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
// report's chart: when each ran, which failed, which fixed a failure. Its
// size grows with the failures, not with the calls.
type timelineDoc struct {
	Start, End time.Time
	Calls      int               // the calls placed on it
	Bins       [timelineBins]int // the calls that neither failed nor fixed, by stretch of the axis
	Marks      []mark            // the failures, fixes and refusals, in order
}

type mark struct {
	At      float64 // 0 to 1 along the session
	Kind    string  // "ok", "failed", "fix", "rejected"
	GapFrom float64 // for failures that were fixed: where the lost time starts
	GapTo   float64 // and ends (the fix)
}

// place puts one more call on the timeline: counted in its bin when it
// neither failed nor fixed, else marked.
func (tl *timelineDoc) place(m mark) {
	tl.Calls++
	if m.Kind == "ok" {
		tl.Bins[min(int(m.At*timelineBins), timelineBins-1)]++
		return
	}
	tl.Marks = append(tl.Marks, m)
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
	for _, c := range s.Calls {
		if c.Start.IsZero() {
			continue
		}
		m := mark{At: at(c.Start), Kind: "ok"}
		if f := failed[c.ID]; f != nil {
			m.Kind = "failed"
			if f.Category == diagnose.Rejected {
				m.Kind = "rejected"
			}
		}
		if ch := fixes[c.ID]; ch != nil {
			m.Kind = "fix"
			if fc := ch.Failure.Call(); fc != nil && !fc.Start.IsZero() {
				m.GapFrom, m.GapTo = at(fc.Start), m.At
			}
		}
		tl.place(m)
	}
	return tl
}
