package report

import (
	"fmt"
	"slices"
	"testing"

	"github.com/retrace-dev/retrace/analyzer"
)

// TestDigest checks that a Digest keeps the chains a summary lists, in
// rank order with ties in the order added, and counts every chain.
func TestDigest(t *testing.T) {
	chain := func(id string, calls int, secs float64, retries int) *analyzer.Chain {
		return &analyzer.Chain{
			Failure: &analyzer.Failure{CallID: id, Target: "t" + id[:1]},
			Cost:    analyzer.Cost{Calls: calls, Seconds: secs},
			Retries: make([]string, retries),
		}
	}
	sessions := [][]*analyzer.Chain{
		{chain("a1", 3, 10, 0), chain("b1", 9, 5, 2)},
		{chain("a2", 3, 50, 1), chain("c1", 1, 1, 4)},
		{chain("b2", 9, 5, 0)},
	}
	tests := []struct {
		top  int
		sort string
		want []string
	}{
		{0, "", []string{"a1", "b1", "a2", "c1", "b2"}},
		{2, SortCost, []string{"b1", "b2"}},
		{3, SortCost, []string{"b1", "b2", "a2"}},
		{2, SortTime, []string{"a2", "a1"}},
		{2, SortCount, []string{"c1", "b1"}},
		{9, SortCount, []string{"c1", "b1", "a2", "a1", "b2"}},
	}
	for _, tt := range tests {
		d := NewDigest(Options{Top: tt.top, Sort: tt.sort})
		for _, chains := range sessions {
			d.Add(&analyzer.SessionReport{Chains: chains})
		}
		var got []string
		for _, ch := range d.chains {
			got = append(got, ch.Failure.CallID)
		}
		if !slices.Equal(got, tt.want) || d.seen != 5 {
			t.Errorf("top %d by %q: kept %v of %d, want %v of 5", tt.top, tt.sort, got, d.seen, tt.want)
		}
		var counts []string
		for _, tc := range d.targets {
			counts = append(counts, fmt.Sprintf("%s:%d", tc.target, tc.chains))
		}
		if want := []string{"ta:2", "tb:2", "tc:1"}; !slices.Equal(counts, want) {
			t.Errorf("targets %v, want %v", counts, want)
		}
	}
}
