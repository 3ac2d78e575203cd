package main

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/bench"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/report"
)

// stored returns rows as a rowStore gives them back, or fails t.
func stored[R any](t *testing.T, rows []*R) iter.Seq[*R] {
	t.Helper()
	var s rowStore[R]
	for _, r := range rows {
		if err := s.add(r); err != nil {
			t.Fatal(err)
		}
	}
	var back []*R
	for r, err := range s.all() {
		if err != nil {
			t.Fatal(err)
		}
		back = append(back, r)
	}
	if len(back) != len(rows) {
		t.Fatalf("stored %d rows, read back %d", len(rows), len(back))
	}
	return slices.Values(back)
}

// TestRowStore holds what errors, pairs and bench print of rows read back
// from a rowStore, in every format, to what they print of the rows
// themselves, on the sessions of every testdata sample and, when it is
// there, the shared corpus: the store keeps all they print.
func TestRowStore(t *testing.T) {
	paths := []string{filepath.Join("..", "..", "testdata")}
	if _, err := os.Stat(corpus); err == nil {
		paths = append(paths, corpus)
	}
	var failures []*analyzer.Failure
	var chains []*analyzer.Chain
	var numbers []*analyzer.Bench
	err := pipeline.Each(pipeline.Needs{Paths: paths, Numbers: true}, func(sr *analyzer.SessionReport) {
		failures = append(failures, sr.Failures...)
		chains = append(chains, sr.Chains...)
		numbers = append(numbers, sr.Benchmarks...)
	})
	if err != nil && !errors.Is(err, pipeline.ErrPartial) { // testdata holds a few files that are not transcripts
		t.Fatal(err)
	}
	if len(failures) < 50 || len(chains) < 40 || len(numbers) < 200 { // testdata alone: 93, 79 and 439
		t.Fatalf("too few rows to compare: %d failures, %d chains, %d numbers", len(failures), len(chains), len(numbers))
	}
	for _, format := range []string{report.Table, report.JSON, report.JSONL, report.CSV, report.Markdown} {
		o := report.Options{Format: format, Color: true}
		for _, tc := range []struct {
			name        string
			plain, back func(io.Writer) error
		}{
			{"errors", func(w io.Writer) error { return report.Errors(w, o, slices.Values(failures)) },
				func(w io.Writer) error { return report.Errors(w, o, stored(t, failures)) }},
			{"pairs", func(w io.Writer) error { return report.Pairs(w, o, slices.Values(chains)) },
				func(w io.Writer) error { return report.Pairs(w, o, stored(t, chains)) }},
			{"bench", func(w io.Writer) error { return report.Bench(w, o, slices.Values(numbers)) },
				func(w io.Writer) error { return report.Bench(w, o, stored(t, numbers)) }},
		} {
			var want, got bytes.Buffer
			if err := tc.plain(&want); err != nil {
				t.Fatal(err)
			}
			if err := tc.back(&got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("%s -f %s of the rows read back (-rows +read back):\n%s", tc.name, format, diff)
			}
		}
	}
	sameTimelines(t, numbers)
}

// sameTimelines checks that bench's table drawn from the runs it stores
// of numbers is the table of the numbers themselves.
func sameTimelines(t *testing.T, numbers []*analyzer.Bench) {
	t.Helper()
	var runs []*analyzer.Bench
	for _, b := range numbers {
		if r := timelineRun(b); r != nil {
			runs = append(runs, r)
		}
	}
	var want, got bytes.Buffer
	o := report.Options{Format: report.Table, Color: true}
	if err := report.Timelines(&want, o, analyzer.TimelinesOf(numbers)); err != nil {
		t.Fatal(err)
	}
	if err := report.Timelines(&got, o, analyzer.TimelineRuns(stored(t, runs))); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), got.String()); diff != "" {
		t.Errorf("bench's table of the runs read back (-numbers +runs):\n%s", diff)
	}
}

// TestTimelineRunBaselines holds bench's table of stored runs to the
// table of the numbers where a baseline fits by its session and its
// source: one stated in the text of session a, whatever its label, fits
// the timelines of a alone.
func TestTimelineRunBaselines(t *testing.T) {
	t0 := time.Date(2026, 3, 9, 12, 0, 0, 0, time.UTC)
	number := func(session, label string, value float64, sec int) *analyzer.Bench {
		return &analyzer.Bench{Session: analyzer.SessionRef{Path: session + ".jsonl", ID: session}, CallID: "c" + label, Target: "b.py",
			Time: t0.Add(time.Duration(sec) * time.Second), Result: bench.Result{Label: label, Unit: "tok/s", Value: value, Text: label}}
	}
	stated := number("a", "Throughput baseline", 92.7, 0)
	stated.Baseline, stated.Source = true, "text"
	other := number("b", "Average", 80, 3)
	other.Context = map[string]string{"concurrency": "2"}
	failed := number("b", "Average", 1, 4)
	failed.Failed = true
	sameTimelines(t, []*analyzer.Bench{stated, number("a", "Average", 86.8, 1), number("a", "Average", 88.1, 2), other, failed})
}

// TestRowStoreSegments reads back rows stored in no segment, one, and
// several, cut by their number and by their size, whole and stopping
// early.
func TestRowStoreSegments(t *testing.T) {
	type row struct {
		I int
		S string
	}
	big := strings.Repeat("x", segmentBytes/3)
	for _, tc := range []struct {
		n    int
		text string
	}{{0, ""}, {1, ""}, {segmentRows - 1, ""}, {segmentRows, ""}, {segmentRows + 1, "a"}, {5*segmentRows + 7, "é"}, {7, big}} {
		var s rowStore[row]
		for i := range tc.n {
			if err := s.add(&row{i, tc.text}); err != nil {
				t.Fatal(err)
			}
		}
		if s.len() != tc.n {
			t.Errorf("%d rows: len() = %d", tc.n, s.len())
		}
		if tc.text == big && len(s.segments) != 2 { // 3, 3 and 1 being written
			t.Errorf("7 rows of a third of a segment's bytes each made %d whole segments, want 2", len(s.segments))
		}
		i := 0
		for r, err := range s.all() {
			if err != nil {
				t.Fatal(err)
			}
			if r.I != i || r.S != tc.text {
				t.Fatalf("%d rows: row %d reads back as %d", tc.n, i, r.I)
			}
			i++
		}
		if i != tc.n {
			t.Errorf("%d rows stored, %d read back", tc.n, i)
		}
	}
	// Stopping early lets the decoders go.
	before := runtime.NumGoroutine()
	for _, stop := range []int{0, 1, segmentRows, 3*segmentRows + 1} {
		var s rowStore[row]
		for i := range 6 * segmentRows {
			if err := s.add(&row{I: i}); err != nil {
				t.Fatal(err)
			}
		}
		i := 0
		for range s.all() {
			if i == stop {
				break
			}
			i++
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running", runtime.NumGoroutine()-before)
		}
	}
}
