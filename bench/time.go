package bench

import (
	"math/big"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// Timing wrappers: the shell's time, GNU time, python -m timeit. Cases:
// testdata/bench/time.txtar.

// --- time, /usr/bin/time, timeit ---------------------------------------

var (
	bashRealRE   = prefilter.MustCompileLine(`^real\s+((?:\d+m)?\d+(?:\.\d+)?)s?\s*$`)
	bashCPURE    = prefilter.MustCompileLine(`^(?:user|sys)\s+(?:\d+m)?\d+(?:\.\d+)?s?\s*$`)
	zshTimeRE    = prefilter.MustCompileLine(`\s[\d.]+s user [\d.]+s system \d+% cpu ([\d:.]+) total\s*$`)
	gnuDefaultRE = prefilter.MustCompileLine(`^[\d.]+user [\d.]+system ([\d:.]+)elapsed \d+%CPU`)
	gnuPagesRE   = prefilter.MustCompileLine(`^\d+inputs\+\d+outputs \(\d+major\+\d+minor\)pagefaults`)
	gnuStartRE   = prefilter.MustCompileLine(`^\s*Command being timed: `)
	gnuEndRE     = prefilter.MustCompileLine(`^\s*Exit status: \d+`)
	gnuElapsedRE = prefilter.MustCompileLine(`^\s*(Elapsed \(wall clock\) time) \(h:mm:ss or m:ss\): ([\d:.]+)\s*$`)
	timeitRE     = prefilter.MustCompileLine(`^\d+ loops?, (best of \d+): ([\d.]+) (nsec|usec|msec|sec) per loop\s*$`)
	durationRE   = prefilter.MustCompileLine(`^(?:(\d+)m)?(\d+(?:\.\d+)?)$|^(?:(\d+):)?(\d+):(\d+(?:\.\d+)?)$`)
)

// duration returns the seconds of "1m10.760s" (less the s), "0:00.56",
// "1:02:03.5" or "0.66", exactly, as a number to convert.
func duration(s string) (string, bool) {
	m := durationRE.FindStringSubmatch(strings.TrimSuffix(s, "s"))
	if m == nil {
		return "", false
	}
	total := new(big.Rat)
	add := func(part, factor string) {
		if part != "" {
			total.Add(total, new(big.Rat).Mul(rat(part), rat(factor)))
		}
	}
	if m[2] != "" {
		add(m[1], "60")
		add(m[2], "1")
	} else {
		add(m[3], "3600")
		add(m[4], "60")
		add(m[5], "1")
	}
	return total.FloatString(6), true
}

// readTime reads the wall-clock time of the shell's time ("real"), of GNU
// time ("elapsed", "Elapsed (wall clock) time") and of zsh's time
// ("total"). CPU times, memory and the rest are not results.
func readTime(t *output) []*Result {
	var found []*Result
	wall := func(label, text string, n int) {
		if d, ok := duration(text); ok {
			found = appendResult(found, newResult(label, d, unit("s"), text, n, nil))
		}
	}
	for n := 0; n < len(t.lines); n++ {
		l := t.lines[n]
		if t.claimed[n] {
			continue
		}
		switch {
		case bashRealRE.MatchString(l) && n+1 < len(t.lines) && bashCPURE.MatchString(t.lines[n+1]):
			wall("real", bashRealRE.FindStringSubmatch(l)[1], n)
			end := n + 1
			for end < len(t.lines) && bashCPURE.MatchString(t.lines[end]) {
				end++
			}
			t.claim(n, end)
			n = end - 1
		case zshTimeRE.MatchString(l):
			wall("total", zshTimeRE.FindStringSubmatch(l)[1], n)
			t.claim(n, n+1)
		case gnuDefaultRE.MatchString(l):
			wall("elapsed", gnuDefaultRE.FindStringSubmatch(l)[1], n)
			end := n + 1
			if end < len(t.lines) && gnuPagesRE.MatchString(t.lines[end]) {
				end++
			}
			t.claim(n, end)
			n = end - 1
		case gnuStartRE.MatchString(l):
			end := n + 1
			for end < len(t.lines) && !gnuEndRE.MatchString(t.lines[end-1]) {
				if m := gnuElapsedRE.FindStringSubmatch(t.lines[end]); m != nil {
					wall(m[1], m[2], end)
				}
				end++
			}
			t.claim(n, end)
			n = end - 1
		}
	}
	return found
}

// readTimeit reads python -m timeit: "best of 5" in its unit; the loop
// count is not a result.
func readTimeit(t *output) []*Result {
	has := func(l string) bool { return strings.Contains(l, " per loop") }
	return t.eachLine(has, timeitRE, func(m []string, n int) *Result {
		return newResult(m[1], m[2], unit(m[3]), m[2]+" "+m[3], n, nil)
	})
}
