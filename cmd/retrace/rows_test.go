package main

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
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
}
