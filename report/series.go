package report

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/analyzer"
)

// This file turns benchmark timelines into series: the lines of the bench
// table and the post-mortem's benchmark results, with their sparklines.

// seriesCells are the cells of a series as text.
type seriesCells struct {
	first, best, last, change, trend, baseline string
	better                                     string // the colour of the change: green, red or none
}

// cells writes the numbers of a series.
func (r *series) cells() seriesCells {
	values := make([]float64, len(r.points))
	for i, p := range r.points {
		values[i] = p.Value
	}
	first, last := values[0], values[len(values)-1]
	c := seriesCells{first: number(first), last: number(last), trend: sparkline(values)}
	if b, ok := bestOf(values, r.better); ok {
		c.best = number(b)
	}
	if len(values) > 1 && first != 0 {
		ch := (last - first) / first
		c.change = percent(ch)
		if !r.sweep {
			c.better = trendColor(ch, r.better)
		}
	}
	if r.baseline != nil {
		c.baseline = number(r.baseline.Value)
		if !r.sweep && r.baseline.Value != 0 {
			c.baseline += " (" + percent((last-r.baseline.Value)/r.baseline.Value) + ")"
		}
	}
	return c
}

// A series is one line of the bench table: one timeline, or several folded.
type series struct {
	target, label, unit, context string
	ctx                          map[string]string
	better                       string
	from                         string // the first number of folded numbered labels
	points                       []point
	baseline                     *analyzer.Bench
	sweep                        bool // the points are the steps of a sweep
}

// A point is one run of a series: its value and start, and its number
// whole when the timeline kept it (see analyzer.TimelineRuns).
type point struct {
	analyzer.Run
	b *analyzer.Bench // nil when the timeline kept only the run
}

// pointsOf returns the runs of tl as points.
func pointsOf(tl *analyzer.Timeline) []point {
	runs := tl.Runs()
	points := make([]point, len(runs))
	for i, r := range runs {
		points[i].Run = r
		if tl.Points != nil {
			points[i].b = tl.Points[i]
		}
	}
	return points
}

// numbers returns the numbers of points, which must be whole.
func numbers(points []point) []*analyzer.Bench {
	out := make([]*analyzer.Bench, len(points))
	for i, p := range points {
		out[i] = p.b
	}
	return out
}

// numberedRE splits a label that numbers its run: "Run 3", "iteration #2".
var numberedRE = regexp.MustCompile(`^(.*\S)\s+#?(\d+)$`)

// benchSeries folds timelines into the lines of the bench table, in the
// order of their first timelines.
func benchSeries(timelines []*analyzer.Timeline) []*series {
	var out []*series
	numbered := map[string]*series{}
	for _, tl := range timelines {
		r := &series{target: tl.Target, label: tl.Label, unit: tl.Unit, context: contextText(tl.Context), ctx: tl.Context,
			better: tl.Better, points: pointsOf(tl), baseline: tl.Baseline}
		m := numberedRE.FindStringSubmatch(tl.Label)
		if m == nil {
			out = append(out, r)
			continue
		}
		key := tl.Target + "\x00" + m[1] + "\x00" + tl.Unit + "\x00" + r.context
		if first := numbered[key]; first != nil {
			first.points = append(first.points, pointsOf(tl)...)
			first.label = m[1] + " " + first.from + "–" + m[2]
			continue
		}
		r.from = m[2]
		numbered[key] = r
		out = append(out, r)
	}
	for _, r := range numbered {
		slices.SortStableFunc(r.points, func(x, y point) int { return x.Time.Compare(y.Time) })
	}
	return foldSweeps(out)
}

// foldSweeps folds the single-run series of one metric whose contexts
// differ in one parameter only, three or more of them, into one series
// over that parameter.
func foldSweeps(in []*series) []*series {
	var out []*series
	done := map[*series]bool{}
	for i, r := range in {
		if done[r] {
			continue
		}
		if len(r.points) == 1 {
			if f := sweepFrom(r, in[i+1:], done); f != nil {
				out = append(out, f)
				continue
			}
		}
		out = append(out, r)
	}
	return out
}

// sweepFrom returns the sweep that starts with r and goes on among rest, or
// nil; it marks the series it folds in done.
func sweepFrom(r *series, rest []*series, done map[*series]bool) *series {
	for _, k := range slices.Sorted(maps.Keys(r.ctx)) {
		steps := []*series{r}
		for _, q := range rest {
			if !done[q] && len(q.points) == 1 && q.target == r.target && q.label == r.label && q.unit == r.unit && sameBut(r.ctx, q.ctx, k) {
				steps = append(steps, q)
			}
		}
		if len(steps) < 3 {
			continue
		}
		others := maps.Clone(r.ctx)
		delete(others, k)
		f := &series{target: r.target, label: r.label, unit: r.unit, better: r.better, baseline: r.baseline, sweep: true,
			context: strings.TrimSpace(k + "=" + r.ctx[k] + "…" + steps[len(steps)-1].ctx[k] + " " + contextText(others))}
		for _, q := range steps {
			f.points = append(f.points, q.points...)
			done[q] = true
		}
		return f
	}
	return nil
}

// sameBut reports whether two contexts have the same keys and values but
// for key k, whose values differ.
func sameBut(a, b map[string]string, k string) bool {
	if len(a) != len(b) || a[k] == b[k] {
		return false
	}
	for key, v := range a {
		if w, ok := b[key]; !ok || key != k && w != v {
			return false
		}
	}
	return true
}

// contextText writes a context as sorted key=value words.
func contextText(ctx map[string]string) string {
	var words []string
	for _, k := range slices.Sorted(maps.Keys(ctx)) {
		words = append(words, k+"="+ctx[k])
	}
	return strings.Join(words, " ")
}

// bestOf returns the best of values: the greatest when higher is better,
// the least when lower is; false when the unit does not say.
func bestOf(values []float64, better string) (float64, bool) {
	switch better {
	case "higher":
		return slices.Max(values), true
	case "lower":
		return slices.Min(values), true
	}
	return 0, false
}

// trendColor is green for a change for the better, red for the worse.
func trendColor(change float64, better string) string {
	switch {
	case change == 0 || better == "":
		return ""
	case (change > 0) == (better == "higher"):
		return green
	}
	return red
}

// percent writes a change as a signed percentage: +31.2%.
func percent(f float64) string {
	return fmt.Sprintf("%+.1f%%", f*100)
}

// sparkBlocks draw a sparkline, lowest first.
var sparkBlocks = []rune("▁▂▃▄▅▆▇█")

// sparkline draws values as a line of blocks scaled from their least to
// their greatest; equal values sit in the middle. One value draws nothing.
func sparkline(values []float64) string {
	if len(values) < 2 {
		return ""
	}
	lo, hi := slices.Min(values), slices.Max(values)
	line := make([]rune, len(values))
	for i, v := range values {
		k := len(sparkBlocks) / 2
		if hi > lo {
			k = int((v - lo) / (hi - lo) * float64(len(sparkBlocks)-1))
		}
		line[i] = sparkBlocks[k]
	}
	return string(line)
}
