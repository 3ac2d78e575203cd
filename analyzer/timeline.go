package analyzer

import (
	"iter"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/bench"
)

// A Timeline follows one metric of one target, in one configuration,
// through the runs of one or more sessions: "benchmark_eagle3.py Average
// 54.2 → 71.1 tok/s".
//
// Numbers belong to the same timeline when they have the same target,
// label and unit, and the same values for the context keys that tell
// configurations apart. Every context key does (concurrency, batch,
// max-tokens, model, size, …) except those that only repeat, address or
// record a run (see runKeys: num-runs, warmup, seed, port, output files …),
// so that --num-runs 5 and --num-runs 10 extend one timeline while
// concurrency 1 and 64 make two. Numbers printed by failed calls and
// stated baselines are not runs.
type Timeline struct {
	Target string `json:"target"`
	Label  string `json:"label"`
	Unit   string `json:"unit"`
	// Context holds the context keys that set this configuration apart,
	// as the first run had them.
	Context map[string]string `json:"context"`
	// Points are the runs in the order they happened: by call start when
	// every run has one, else in the order of the reports. Points, First,
	// Best and Last are nil in a timeline of TimelineRuns, which keeps
	// only the Runs.
	Points []*Bench `json:"points"`
	First  *Bench   `json:"first"`
	// Best is the highest run for throughputs (units per second, x) and
	// the lowest for latencies and durations (ms, s, us); nil when the
	// unit does not say which is better (%).
	Best *Bench `json:"best"`
	Last *Bench `json:"last"`
	// Change is the last run against the first, as a fraction: 0.31 for
	// 54.2 → 71.1. It is 0 with a single run or a first value of 0.
	Change float64 `json:"change"`
	// Better is "higher", "lower", or "" when the unit does not say.
	Better string `json:"better,omitzero"`
	// Baseline is the first baseline the transcript states for this
	// metric (in an output or in the assistant's text), or nil.
	Baseline *Bench `json:"baseline"`
	// VsBaseline is the last run against the baseline, as a fraction; 0
	// without a baseline.
	VsBaseline float64 `json:"vs_baseline,omitzero"`

	runs []Run // the runs, for a timeline of TimelineRuns (Points is nil)
}

// A Run is one run of a timeline as a table of timelines reads it.
type Run struct {
	Value float64
	Time  time.Time // the start of its call; zero when unknown
}

// Runs returns the runs of t in order: those of its Points, or for a
// timeline of TimelineRuns, those it kept, which the caller must not
// change.
func (t *Timeline) Runs() []Run {
	if t.Points == nil {
		return t.runs
	}
	runs := make([]Run, len(t.Points))
	for i, b := range t.Points {
		runs[i] = Run{b.Value, b.Time}
	}
	return runs
}

// runKeys are the context keys that do not set a configuration apart:
// how many times and how long a run repeats, where it sends requests and
// where it writes its results.
var runKeys = map[string]bool{
	"num-runs": true, "runs": true, "count": true, "iters": true, "iterations": true,
	"num-iters": true, "n": true, "warmup": true, "warmups": true, "warmup-iters": true,
	"warmup-runs": true, "warmup-requests": true, "num-warmup": true, "seed": true,
	"benchtime": true, "report-interval": true, "time": true, "runtime": true,
	"duration": true, "d": true, "num-prompts": true, "num-prompt": true,
	"num-requests": true, "requests-per-level": true, "requests": true,
	"output": true, "output-file": true, "output-dir": true, "o": true,
	"result-dir": true, "result-filename": true, "log": true, "log-file": true,
	"log-level": true, "format": true, "json": true, "host": true, "port": true,
	"url": true, "endpoint": true, "server-url": true, "base-url": true,
	"bench": true, "run": true, "benchmark-columns": true,
}

// configOf returns the context keys of b that set its configuration apart.
func configOf(b *Bench) map[string]string {
	c := map[string]string{}
	for k, v := range b.Context {
		if !runKeys[k] {
			c[k] = v
		}
	}
	return c
}

// betterOf says which way a unit improves.
func betterOf(unit string) string {
	switch {
	case strings.HasSuffix(unit, "/s"), unit == "x":
		return "higher"
	case unit == "ms", unit == "s", unit == "us":
		return "lower"
	}
	return ""
}

// Timelines groups the numbers of the reports into timelines, in the order
// of their first runs. Baselines attach to the timelines of their target
// and unit whose label and configuration they match; a baseline stated in
// the assistant's text, or without a label, matches every label, in its
// own session only.
func Timelines(reports []*SessionReport) []*Timeline {
	var numbers []*Bench
	for _, r := range reports {
		numbers = append(numbers, r.Benchmarks...)
	}
	return TimelinesOf(numbers)
}

// TimelinesOf is Timelines of the numbers of some sessions, in their
// order.
func TimelinesOf(numbers []*Bench) []*Timeline {
	return timelines(slices.Values(numbers), true)
}

// TimelineRuns is TimelinesOf, but keeps of each run only its value and
// start (a Run), for a table of timelines over more numbers than memory
// should hold: the timelines it returns have no Points, First, Best or
// Last, and their Runs are those it kept.
func TimelineRuns(numbers iter.Seq[*Bench]) []*Timeline {
	return timelines(numbers, false)
}

// timelines groups numbers into timelines, keeping their runs whole as
// Points when whole is true, and as Runs otherwise.
func timelines(numbers iter.Seq[*Bench], whole bool) []*Timeline {
	var out []*Timeline
	index := map[string]*Timeline{}
	sessions := map[*Timeline]map[SessionRef]bool{}
	var baselines []*Bench
	all := true // every run has a start time
	for b := range numbers {
		if b.Failed {
			continue
		}
		if b.Baseline {
			baselines = append(baselines, b)
			continue
		}
		all = all && !b.Time.IsZero()
		cfg := configOf(b)
		key := timelineKey(b.Target, b.Label, b.Unit, cfg)
		t := index[key]
		if t == nil {
			t = &Timeline{Target: b.Target, Label: b.Label, Unit: b.Unit, Context: cfg, Better: betterOf(b.Unit)}
			index[key] = t
			sessions[t] = map[SessionRef]bool{}
			out = append(out, t)
		}
		if whole {
			t.Points = append(t.Points, b)
		} else {
			t.runs = append(t.runs, Run{b.Value, b.Time})
		}
		sessions[t][b.Session] = true
	}
	for _, t := range out {
		if all {
			slices.SortStableFunc(t.Points, func(x, y *Bench) int { return x.Time.Compare(y.Time) })
			slices.SortStableFunc(t.runs, func(x, y Run) int { return x.Time.Compare(y.Time) })
		}
		if whole {
			t.First, t.Last = t.Points[0], t.Points[len(t.Points)-1]
			if t.Better != "" {
				t.Best = t.First
				for _, p := range t.Points {
					if t.Better == "higher" && p.Value > t.Best.Value || t.Better == "lower" && p.Value < t.Best.Value {
						t.Best = p
					}
				}
			}
		}
		var first, last float64
		if whole {
			first, last = t.First.Value, t.Last.Value
		} else {
			first, last = t.runs[0].Value, t.runs[len(t.runs)-1].Value
		}
		if first != 0 {
			t.Change = (last - first) / first
		}
		for _, b := range baselines {
			if baselineFits(b, t, sessions[t]) {
				t.Baseline = b
				if b.Value != 0 {
					t.VsBaseline = (last - b.Value) / b.Value
				}
				break
			}
		}
	}
	return out
}

// timelineKey identifies a timeline.
func timelineKey(target, label, unit string, cfg map[string]string) string {
	var b strings.Builder
	b.WriteString(target + "\x00" + label + "\x00" + unit)
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		b.WriteString("\x00" + k + "=" + cfg[k])
	}
	return b.String()
}

// baselineFits reports whether a stated baseline is the reference of a
// timeline: same target and unit, a label that is the timeline's once the
// word "baseline" is taken out (or no label at all), and no context key
// with another value. A baseline without a label belongs to its session.
func baselineFits(b *Bench, t *Timeline, sessions map[SessionRef]bool) bool {
	if b.Target != t.Target || b.Unit != t.Unit {
		return false
	}
	label := bench.BaselineLabel(b.Label)
	if label != "" && b.Source != "text" && label != t.Label {
		return false
	}
	if (label == "" || b.Source == "text") && !sessions[b.Session] {
		return false
	}
	for k, v := range configOf(b) {
		if w, ok := t.Context[k]; ok && w != v {
			return false
		}
	}
	return true
}
