package analyzer

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/bench"
	"github.com/retrace-dev/retrace/parser"
)

// run is one number of a timeline test.
type run struct {
	session, target, label, unit string
	value                        float64
	ctx                          map[string]string
	sec                          int // seconds after the start; -1 for no time
	failed, baseline             bool
	source                       string
}

// reports builds one report per session named in runs, in order.
func reports(runs ...run) []*SessionReport {
	t0 := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	var out []*SessionReport
	bySession := map[string]*SessionReport{}
	for i, r := range runs {
		rep := bySession[r.session]
		if rep == nil {
			rep = &SessionReport{Session: &parser.Session{Path: r.session}}
			bySession[r.session] = rep
			out = append(out, rep)
		}
		b := &Bench{Session: SessionRef{Path: r.session}, CallID: fmt.Sprintf("c%d", i+1), Msg: i,
			Target: r.target, Failed: r.failed,
			Result: bench.Result{Label: r.label, Unit: r.unit, Value: r.value, Context: r.ctx, Baseline: r.baseline, Source: r.source}}
		if b.Context == nil {
			b.Context = map[string]string{}
		}
		if r.sec >= 0 {
			b.Time = t0.Add(time.Duration(r.sec) * time.Second)
		}
		rep.Benchmarks = append(rep.Benchmarks, b)
	}
	return out
}

// summary prints a timeline: target label [config]: values, first, best,
// last, change and baseline.
func summary(t *Timeline) string {
	var vals []string
	for _, p := range t.Points {
		vals = append(vals, fmt.Sprintf("%g", p.Value))
	}
	s := fmt.Sprintf("%s %s %s%s: %s", t.Target, t.Label, t.Unit, ctxString(t.Context), strings.Join(vals, " → "))
	s += fmt.Sprintf(" first=%s last=%s", t.First.CallID, t.Last.CallID)
	if t.Best != nil {
		s += " best=" + t.Best.CallID
	}
	s += fmt.Sprintf(" change=%+.3f", t.Change)
	if t.Baseline != nil {
		s += fmt.Sprintf(" baseline=%g vs=%+.3f", t.Baseline.Value, t.VsBaseline)
	}
	return s
}

func ctxString(ctx map[string]string) string {
	if len(ctx) == 0 {
		return ""
	}
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(ctx)) {
		kv = append(kv, k+"="+ctx[k])
	}
	return " [" + strings.Join(kv, " ") + "]"
}

func TestTimelines(t *testing.T) {
	c := func(kv ...string) map[string]string {
		m := map[string]string{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name string
		runs []run
		want []string
	}{
		{"throughput: best is highest, change last vs first", []run{
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 54.2, sec: 1},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 80, sec: 2},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 71.1, sec: 3},
		}, []string{"b.py Average tok/s: 54.2 → 80 → 71.1 first=c1 last=c3 best=c2 change=+0.312"}},
		{"latency: best is lowest", []run{
			{session: "a", target: "b.py", label: "p99", unit: "ms", value: 18.9, sec: 1},
			{session: "a", target: "b.py", label: "p99", unit: "ms", value: 6.5, sec: 2},
			{session: "a", target: "b.py", label: "p99", unit: "ms", value: 7, sec: 3},
		}, []string{"b.py p99 ms: 18.9 → 6.5 → 7 first=c1 last=c3 best=c2 change=-0.630"}},
		{"percent: no best", []run{
			{session: "a", target: "b.py", label: "accept rate", unit: "%", value: 19.1, sec: 1},
			{session: "a", target: "b.py", label: "accept rate", unit: "%", value: 47, sec: 2},
		}, []string{"b.py accept rate %: 19.1 → 47 first=c1 last=c2 change=+1.461"}},
		{"configurations apart, run counts together", []run{
			{session: "a", target: "p.py", label: "Total tok/s", unit: "tok/s", value: 87.1, ctx: c("concurrency", "1", "num-runs", "5"), sec: 1},
			{session: "a", target: "p.py", label: "Total tok/s", unit: "tok/s", value: 775, ctx: c("concurrency", "64", "num-runs", "5"), sec: 2},
			{session: "a", target: "p.py", label: "Total tok/s", unit: "tok/s", value: 90, ctx: c("concurrency", "1", "num-runs", "10", "port", "30000"), sec: 3},
		}, []string{
			"p.py Total tok/s tok/s [concurrency=1]: 87.1 → 90 first=c1 last=c3 best=c3 change=+0.033",
			"p.py Total tok/s tok/s [concurrency=64]: 775 first=c2 last=c2 best=c2 change=+0.000",
		}},
		{"targets, labels and units apart", []run{
			{session: "a", target: "x.py", label: "Run 1", unit: "s", value: 7, sec: 1},
			{session: "a", target: "x.py", label: "Run 1", unit: "tok/s", value: 71, sec: 1},
			{session: "a", target: "y.py", label: "Run 1", unit: "s", value: 8, sec: 2},
			{session: "a", target: "x.py", label: "Run 2", unit: "s", value: 6, sec: 2},
		}, []string{
			"x.py Run 1 s: 7 first=c1 last=c1 best=c1 change=+0.000",
			"x.py Run 1 tok/s: 71 first=c2 last=c2 best=c2 change=+0.000",
			"y.py Run 1 s: 8 first=c3 last=c3 best=c3 change=+0.000",
			"x.py Run 2 s: 6 first=c4 last=c4 best=c4 change=+0.000",
		}},
		{"failed runs are not points", []run{
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 12.5, sec: 1, failed: true},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 70, sec: 2},
		}, []string{"b.py Average tok/s: 70 first=c2 last=c2 best=c2 change=+0.000"}},
		{"across sessions, in time order", []run{
			{session: "b", target: "b.py", label: "Average", unit: "tok/s", value: 71.1, sec: 60},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 54.2, sec: 1},
		}, []string{"b.py Average tok/s: 54.2 → 71.1 first=c2 last=c1 best=c1 change=+0.312"}},
		{"without times, in report order", []run{
			{session: "b", target: "b.py", label: "Average", unit: "tok/s", value: 71.1, sec: -1},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 54.2, sec: 1},
		}, []string{"b.py Average tok/s: 71.1 → 54.2 first=c1 last=c2 best=c1 change=-0.238"}},
		{"baseline printed with the label, not a point", []run{
			{session: "a", target: "b.py", label: "Throughput", unit: "tok/s", value: 86.8, ctx: c("concurrency", "1"), sec: 1},
			{session: "a", target: "b.py", label: "Throughput", unit: "tok/s", value: 92.7, ctx: c("concurrency", "1"), sec: 1, baseline: true},
		}, []string{"b.py Throughput tok/s [concurrency=1]: 86.8 first=c1 last=c1 best=c1 change=+0.000 baseline=92.7 vs=-0.064"}},
		{"baseline of another configuration does not fit", []run{
			{session: "a", target: "b.py", label: "Throughput", unit: "tok/s", value: 775, ctx: c("concurrency", "64"), sec: 1},
			{session: "a", target: "b.py", label: "Throughput", unit: "tok/s", value: 92.7, ctx: c("concurrency", "1"), sec: 1, baseline: true},
		}, []string{"b.py Throughput tok/s [concurrency=64]: 775 first=c1 last=c1 best=c1 change=+0.000"}},
		{"baseline in the text fits every label of its unit, in its session", []run{
			{session: "a", target: "b.py", label: "baseline", unit: "tok/s", value: 92.7, sec: 0, baseline: true, source: "text"},
			{session: "a", target: "b.py", label: "Average", unit: "tok/s", value: 86.8, sec: 1},
			{session: "a", target: "b.py", label: "Latency", unit: "s", value: 2.3, sec: 1},
			{session: "b", target: "b.py", label: "Average", unit: "tok/s", value: 80, ctx: c("concurrency", "2"), sec: 2},
		}, []string{
			"b.py Average tok/s: 86.8 first=c2 last=c2 best=c2 change=+0.000 baseline=92.7 vs=-0.064",
			"b.py Latency s: 2.3 first=c3 last=c3 best=c3 change=+0.000",
			"b.py Average tok/s [concurrency=2]: 80 first=c4 last=c4 best=c4 change=+0.000",
		}},
		{"only baselines: no timeline", []run{
			{session: "a", target: "b.py", label: "baseline", unit: "tok/s", value: 92.7, sec: 0, baseline: true, source: "text"},
		}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, tl := range Timelines(reports(tt.runs...)) {
				got = append(got, summary(tl))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Timelines (-want +got):\n%s", diff)
			}
			var numbers []*Bench
			for _, sr := range reports(tt.runs...) {
				numbers = append(numbers, sr.Benchmarks...)
			}
			sameRuns(t, TimelinesOf(numbers), TimelineRuns(slices.Values(numbers)))
		})
	}
}

// sameRuns checks that the timelines of TimelineRuns are those of
// TimelinesOf, their runs kept instead of their numbers.
func sameRuns(t *testing.T, whole, kept []*Timeline) {
	t.Helper()
	if len(kept) != len(whole) {
		t.Fatalf("TimelineRuns: %d timelines, TimelinesOf %d", len(kept), len(whole))
	}
	for i, w := range whole {
		k := *kept[i]
		if k.Points != nil || k.First != nil || k.Best != nil || k.Last != nil {
			t.Errorf("timeline %d of TimelineRuns keeps numbers: %+v", i, k)
		}
		if diff := cmp.Diff(w.Runs(), k.Runs()); diff != "" {
			t.Errorf("runs of timeline %d (-TimelinesOf +TimelineRuns):\n%s", i, diff)
		}
		k.Points, k.First, k.Best, k.Last, k.runs = w.Points, w.First, w.Best, w.Last, nil
		if diff := cmp.Diff(w, &k, cmp.AllowUnexported(Timeline{})); diff != "" {
			t.Errorf("timeline %d (-TimelinesOf +TimelineRuns):\n%s", i, diff)
		}
	}
}

// TestTimelinesSeeds follows the seed stories: 54 → 71.1 tok/s for the
// EAGLE-3 benchmark once fixed, and the 92.7 tok/s baseline the agent
// states before the concurrency sweep.
func TestTimelinesSeeds(t *testing.T) {
	f, err := os.Open(filepath.Join("..", "testdata", "seeds", "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := parser.Parse(f, "claude-code.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	rep := Analyze([]*parser.Session{s})
	var got []string
	for _, tl := range Timelines(rep.Sessions) {
		switch {
		case tl.Target == "benchmark_eagle3.py" && tl.Label == "Average",
			tl.Target == "benchmark_parallel.py" && (tl.Label == "Throughput" || tl.Label == "Total tok/s" && tl.Context["concurrency"] == "64"):
			got = append(got, summaryValues(tl))
		}
	}
	want := []string{
		"benchmark_eagle3.py Average [max-tokens=500]: 54.2 → 71.1 best=71.1 change=+0.312",
		"benchmark_eagle3.py Average [max-tokens=256]: 38 best=38 change=+0.000",
		"benchmark_parallel.py Throughput [concurrency=1 max-tokens=200]: 86.8 best=86.8 change=+0.000 baseline=92.7 vs=-0.064",
		"benchmark_parallel.py Total tok/s [concurrency=64 max-tokens=200]: 775 best=775 change=+0.000 baseline=92.7 vs=+7.360",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("seed timelines (-want +got):\n%s", diff)
	}
}

func summaryValues(t *Timeline) string {
	var vals []string
	for _, p := range t.Points {
		vals = append(vals, fmt.Sprintf("%g", p.Value))
	}
	s := fmt.Sprintf("%s %s%s: %s best=%g change=%+.3f", t.Target, t.Label, ctxString(t.Context), strings.Join(vals, " → "), t.Best.Value, t.Change)
	if t.Baseline != nil {
		s += fmt.Sprintf(" baseline=%g vs=%+.3f", t.Baseline.Value, t.VsBaseline)
	}
	return s
}
