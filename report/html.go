package report

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"iter"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/termtext"
)

var (
	//go:embed html/postmortem.html
	pageTemplate string
	//go:embed html/style.css
	pageStyle string
	//go:embed html/page.js
	pageScript string
)

// page is the HTML template, parsed once. html/template escapes every value
// for its context, so no text from a transcript becomes markup.
var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"plural":    plural,
	"duration":  duration,
	"lost":      func(t analyzer.Totals) string { return totalLostCell(t) },
	"marked":    marked,
	"highlight": highlight,
	"join":      func(ss []string) string { return strings.Join(ss, " ") },
	"steps":     someSteps,
	"rest":      func(st []stepDoc) int { return max(len(st)-maxBetween, 0) },
	"short":     func(s string, n int) string { return termtext.Cut(s, n) },
	"seconds":   func(f float64) string { return strconv.FormatFloat(math.Round(f), 'f', -1, 64) },
}).Parse(pageTemplate))

// maxBetween bounds the calls between a failure and its fix that a story
// lists: their number grows with the session, not with its failures.
const maxBetween = 4

// shownRE matches what clean writes for an invisible character: \u202e,
// \U000e0041.
var shownRE = regexp.MustCompile(`\\(?:u[0-9a-f]{4}|U[0-9a-f]{8})`)

// marked escapes text for HTML and sets apart each invisible character
// that clean showed as its escape, with a span that names it on hover, so
// that it cannot be taken for text. (Text that held the escape itself, six
// characters, is marked the same way: either way nothing is hidden.)
func marked(s string) template.HTML {
	return template.HTML(shownRE.ReplaceAllStringFunc(template.HTMLEscapeString(s), func(m string) string {
		r, err := strconv.ParseUint(m[2:], 16, 32)
		if err != nil || !Invisible(rune(r)) {
			return m
		}
		return fmt.Sprintf(`<span class="invisible" title="an invisible character, U+%04X">%s</span>`, r, m)
	}))
}

// highlight escapes a command as marked does, and wraps in <mark> each
// place where one of marks stands as whole words: the flags a fix changed.
func highlight(cmd string, marks []string) template.HTML {
	var spans [][2]int
	for _, m := range marks {
		if m == "" {
			continue
		}
		for i := 0; i < len(cmd); {
			j := strings.Index(cmd[i:], m)
			if j < 0 {
				break
			}
			from, to := i+j, i+j+len(m)
			if wordEdge(cmd, from-1) && wordEdge(cmd, to) {
				spans = append(spans, [2]int{from, to})
			}
			i = from + 1
		}
	}
	if len(spans) == 0 {
		return marked(cmd)
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return cmp.Or(a[0]-b[0], b[1]-a[1]) })
	var b strings.Builder
	at := 0
	for _, sp := range spans {
		if sp[0] < at { // inside or across the last one
			continue
		}
		b.WriteString(string(marked(cmd[at:sp[0]])))
		b.WriteString("<mark>" + string(marked(cmd[sp[0]:sp[1]])) + "</mark>")
		at = sp[1]
	}
	b.WriteString(string(marked(cmd[at:])))
	return template.HTML(b.String())
}

// wordEdge reports whether the byte of s at i, outside s or a space, a
// quote, = or a shell operator, ends a word.
func wordEdge(s string, i int) bool {
	return i < 0 || i >= len(s) || strings.IndexByte(" \t\n\"'=;|&()<>", s[i]) >= 0
}

// htmlPage is what the template renders around the sessions: its "top"
// and "bottom". Each session is an htmlSession, rendered by "section".
type htmlPage struct {
	*document
	Style      template.CSS
	Script     template.JS
	StyleHash  string
	ScriptHash string
	// The values the index of sessions is filtered by, sorted.
	Projects, Agents, CategoryNames []string
}

type htmlSession struct {
	*sessionDoc
	Charts  []chart
	Caveats []string // the caveats of the results, each once
	// Rows are the session's chains in the table of failures: the fixed
	// ones, then the others, each in order. Stories are those told in
	// full, at most maxStories of them, in the same order.
	Rows    []chainRow
	Stories []*chainDoc
}

// newHTMLSession returns the session of sd as the page renders it, told
// saying which of its rows (see sessionDoc.rows) tell their story.
func newHTMLSession(sd *sessionDoc, told []bool) *htmlSession {
	hs := &htmlSession{sessionDoc: sd, Charts: charts(sd.Results)}
	for _, r := range sd.Results {
		if r.Caveat != "" && !slices.Contains(hs.Caveats, r.Caveat) {
			hs.Caveats = append(hs.Caveats, r.Caveat)
		}
	}
	for j, cd := range sd.rows() {
		hs.Rows = append(hs.Rows, chainRow{chainDoc: cd, Told: told[j]})
		if told[j] {
			hs.Stories = append(hs.Stories, cd)
		}
	}
	return hs
}

// A chainRow is a chain in a table of failures; Told says its story
// follows the table.
type chainRow struct {
	*chainDoc
	Told bool
}

// maxStories bounds the chains the page tells in full. Every session
// tells its costliest chain (by time, then by calls), then every session
// its second costliest, and so on while the bound allows. The tables of
// failures list every chain, a row each, and `retrace show` tells them
// all: the page grows with the failures, not with their stories.
const maxStories = 600

// A chainCost is what a chain cost, as the page ranks chains by.
type chainCost struct {
	seconds float64
	calls   int
}

// chainCosts returns the costs of the chains of sr, in the order of the
// rows of its document (see sessionDoc.rows).
func chainCosts(sr *analyzer.SessionReport) []chainCost {
	var fixed, open []chainCost
	for _, ch := range sr.Chains {
		c := chainCost{ch.Cost.Seconds, ch.Cost.Calls}
		if ch.Fix != nil {
			fixed = append(fixed, c)
		} else {
			open = append(open, c)
		}
	}
	return append(fixed, open...)
}

// tellStories chooses the chains the page tells in full, of the sessions
// whose chains cost what costs lists: told[i][j] says row j of session i
// tells its story.
func tellStories(costs [][]chainCost) (told [][]bool) {
	ranked := make([][]int, len(costs))
	told = make([][]bool, len(costs))
	for i, cs := range costs {
		ranked[i] = make([]int, len(cs))
		for j := range cs {
			ranked[i][j] = j
		}
		slices.SortStableFunc(ranked[i], func(a, b int) int {
			return cmp.Or(cmp.Compare(cs[b].seconds, cs[a].seconds), cmp.Compare(cs[b].calls, cs[a].calls))
		})
		told[i] = make([]bool, len(cs))
	}
	n := 0
	for rank, left := 0, true; left && n < maxStories; rank++ {
		left = false
		for i, r := range ranked {
			if rank < len(r) && n < maxStories {
				told[i][r[rank]], left = true, true
				n++
			}
		}
	}
	return told
}

// someSteps returns the calls between a failure and its fix that a story
// lists, at most maxBetween in order: those that changed something
// (environment, edit, wait) before those that looked around.
func someSteps(steps []stepDoc) []stepDoc {
	if len(steps) <= maxBetween {
		return steps
	}
	keep := map[int]bool{}
	for _, changed := range []bool{true, false} {
		for i, st := range steps {
			if len(keep) < maxBetween && looked(st.Role) != changed {
				keep[i] = true
			}
		}
	}
	var out []stepDoc
	for i, st := range steps {
		if keep[i] {
			out = append(out, st)
		}
	}
	return out
}

// looked reports whether a step of the given role changed nothing.
func looked(role string) bool {
	return role == string(analyzer.RoleDiagnostic) || role == string(analyzer.RoleOther)
}

// A timelineView is a session's timeline as the page draws it, as paths:
// a bar for each stretch of the axis where calls ran, taller for more
// calls, and a line for each failure, fix and refusal. Its size grows with
// the failures, not with the calls. The axis runs from 0 to 1000.
type timelineView struct {
	Start, End              string
	Calls                   int
	Bars                    string
	Failed, Fixes, Rejected string
	Gaps                    string // the time lost before each fix
}

// timelineBins is the number of stretches a timeline's calls are counted
// in.
const timelineBins = 80

func newTimelineView(tl *timelineDoc) *timelineView {
	if tl == nil {
		return nil
	}
	v := &timelineView{Start: stampOf(tl.Start), End: stampOf(tl.End), Calls: tl.Calls}
	bins := tl.Bins
	var failed, fixes, rejected, gaps strings.Builder
	at := func(f float64) int { return int(math.Round(f * 1000)) }
	for _, m := range tl.Marks {
		switch m.Kind {
		case "failed":
			fmt.Fprintf(&failed, "M%d 2V58", at(m.At))
		case "fix":
			fmt.Fprintf(&fixes, "M%d 2V58", at(m.At))
		case "rejected":
			fmt.Fprintf(&rejected, "M%d 2V58", at(m.At))
		}
		if m.GapTo > m.GapFrom {
			fmt.Fprintf(&gaps, "M%d 6H%dV54H%dZ", at(m.GapFrom), max(at(m.GapTo), at(m.GapFrom)+2), at(m.GapFrom))
		}
	}
	most := slices.Max(bins[:])
	var bars strings.Builder
	for i, n := range bins {
		if n > 0 {
			h := 4 + int(math.Round(18*float64(n)/float64(most)))
			fmt.Fprintf(&bars, "M%d %dV%d", (i*2+1)*1000/(2*timelineBins), 30-h, 30+h)
		}
	}
	v.Bars, v.Failed, v.Fixes, v.Rejected, v.Gaps = bars.String(), failed.String(), fixes.String(), rejected.String(), gaps.String()
	return v
}

func stampOf(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") }

// writeHTML writes the post-mortem as one self-contained page: CSS and
// script inline, charts as inline SVG, and a Content-Security-Policy that
// lets run only the page's own script and style, by their hashes. The
// sessions come as writePostMortem says; each is rendered as it comes, and
// kept compressed until the head of the page, which the last one
// completes, is written.
func writeHTML(w io.Writer, b *docBuilder, costs [][]chainCost, sessions iter.Seq2[gathered, error]) error {
	told := tellStories(costs)
	var sections spool
	projects, agents, categories := map[string]bool{}, map[string]bool{}, map[string]bool{}
	i := 0
	for s, err := range sessions {
		if err != nil {
			return err
		}
		sd := b.add(s.report, s.view)
		if err := page.ExecuteTemplate(sections.writer(), "section", newHTMLSession(sd, told[i])); err != nil {
			return err
		}
		i++
		projects[sd.Project], agents[sd.Format] = true, true
		for _, c := range sd.Categories {
			categories[c] = true
		}
	}
	d := b.done()
	p := &htmlPage{
		document:   d,
		Style:      template.CSS(pageStyle),
		Script:     template.JS(pageScript),
		StyleHash:  cspHash(pageStyle),
		ScriptHash: cspHash(pageScript),
	}
	delete(projects, "")
	p.Projects, p.Agents = slices.Sorted(maps.Keys(projects)), slices.Sorted(maps.Keys(agents))
	for _, c := range d.Categories {
		p.CategoryNames = append(p.CategoryNames, c.Category)
	}
	for _, c := range slices.Sorted(maps.Keys(categories)) {
		if !slices.Contains(p.CategoryNames, c) {
			p.CategoryNames = append(p.CategoryNames, c)
		}
	}
	bw := bufio.NewWriter(w)
	if err := page.ExecuteTemplate(bw, "top", p); err != nil {
		return err
	}
	if err := sections.writeTo(bw); err != nil {
		return err
	}
	if err := page.ExecuteTemplate(bw, "bottom", p); err != nil {
		return err
	}
	return bw.Flush()
}

// cspHash returns the CSP source that allows an inline element with the
// given content.
func cspHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func coord(v float64) string { return fmt.Sprintf("%.1f", v) }

// A chart plots one metric of one target over a session, run by run.
type chart struct {
	Target, Label, Unit string
	Title               string // the label, with the unit unless it names it
	Context             string
	Min, Max            string
	Points              []chartPoint
	Line                string // the polyline's points
	FirstX              string
	// FromLabel and ToLabel name the first and last runs under the x axis:
	// their messages, or the values of the parameter a sweep steps.
	FromLabel, ToLabel string
	Direction          string // "higher is better ↑", or what the runs are
	Caveat             string
}

type chartPoint struct {
	X, Y        string
	Msg         int
	Value, Unit string
	Context     string
}

// maxCharts bounds the charts of a session; more would not be read.
const maxCharts = 12

// The plot's box in the chart's viewBox (0 0 340 150).
const plotLeft, plotRight, plotTop, plotBottom = 56.0, 322.0, 20.0, 110.0

// charts lays out each series of a session that has more than one run as
// a line chart, in the order of the series.
func charts(results []resultRow) []chart {
	var out []chart
	for _, r := range results {
		if len(r.Points) < 2 {
			continue
		}
		if len(out) == maxCharts {
			break
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, b := range r.Points {
			lo, hi = math.Min(lo, b.Value), math.Max(hi, b.Value)
		}
		if hi == lo {
			lo, hi = lo*0.9, hi*1.1+1e-9
		}
		c := chart{Target: r.Target, Label: r.Label, Unit: r.Unit, Title: r.Label, Context: r.Context, Min: number(lo), Max: number(hi),
			FirstX: coord(plotLeft), Caveat: r.Caveat}
		if !strings.Contains(r.Label, "("+r.Unit+")") {
			c.Title += " (" + r.Unit + ")"
		}
		first, last := r.Points[0], r.Points[len(r.Points)-1]
		c.FromLabel, c.ToLabel = runLabels(first, last)
		switch r.Better {
		case "higher":
			c.Direction = "run by run; higher is better ↑"
		case "lower":
			c.Direction = "run by run; lower is better ↓"
		default:
			c.Direction = "run by run"
		}
		var line []string
		for i, b := range r.Points {
			x := plotLeft + (plotRight-plotLeft)*float64(i)/float64(len(r.Points)-1)
			y := plotBottom - (plotBottom-plotTop)*(b.Value-lo)/(hi-lo)
			pt := chartPoint{X: coord(x), Y: coord(y), Msg: b.Msg, Value: number(b.Value), Unit: clean(b.Unit, maxUnit), Context: clean(contextText(b.Context), 200)}
			c.Points = append(c.Points, pt)
			line = append(line, pt.X+","+pt.Y)
		}
		c.Line = strings.Join(line, " ")
		out = append(out, c)
	}
	return out
}

// runLabels names the first and last runs of a series: "msg 6" and "msg
// 8", or when their contexts differ in one value, that value: "n=1000" and
// "n=8000".
func runLabels(first, last *analyzer.Bench) (string, string) {
	from, to := fmt.Sprintf("msg %d", first.Msg), fmt.Sprintf("msg %d", last.Msg)
	var differ []string
	for k, v := range first.Context {
		if w, ok := last.Context[k]; ok && w != v {
			differ = append(differ, k)
		}
	}
	if len(differ) == 1 {
		k := differ[0]
		from, to = clean(k+"="+first.Context[k], 30), clean(k+"="+last.Context[k], 30)
	}
	return from, to
}
