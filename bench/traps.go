package bench

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// Numbers that are not benchmark results but look like them, which
// readers claim so that the generic reading does not take them. Cases:
// testdata/bench/traps.txtar.

// --- test runners: what they print is not a benchmark --------------------

var (
	coverageHeaderRE = prefilter.MustCompileLine(`^Name\s+Stmts\s+Miss\b`)
	coverageBannerRE = prefilter.MustCompileLine(`\bcoverage: platform\b|^[=_-]+ .*coverage.* [=_-]+$|\b(?:[Tt]otal|[Rr]equired test) coverage\b`)
	testSummaryRE    = prefilter.MustCompileLine(`^\s*(?:Test Suites|Tests|Test Files):?\s+.*\b\d+ (?:passed|failed|total)\b`)
	testSummaryLine  = prefilter.MustCompileLine(`^\s*(?:Test Suites|Tests|Snapshots|Time|Test Files|Start at|Duration|Ran all test suites)\b`)
)

// readCoverage claims coverage.py's report: its percentages measure tests,
// not speed.
func readCoverage(t *output) []*Result {
	for n := 0; n < len(t.lines); n++ {
		if strings.Contains(t.lines[n], "coverage") && coverageBannerRE.MatchString(t.lines[n]) {
			t.claim(n, n+1)
			continue
		}
		if !strings.HasPrefix(t.lines[n], "Name") || !coverageHeaderRE.MatchString(t.lines[n]) {
			continue
		}
		end := n + 1
		for end < len(t.lines) && strings.TrimSpace(t.lines[end]) != "" {
			end++
			if strings.HasPrefix(t.lines[end-1], "TOTAL") {
				break
			}
		}
		t.claim(n, end)
		n = end - 1
	}
	return nil
}

// readTestSummary claims the summaries of jest and vitest, whose times are
// test durations.
func readTestSummary(t *output) []*Result {
	if t.find(testSummaryRE) < 0 {
		return nil
	}
	for n, l := range t.lines {
		if testSummaryLine.MatchString(l) {
			t.claim(n, n+1)
		}
	}
	return nil
}
