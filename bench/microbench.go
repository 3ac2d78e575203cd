package bench

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// Microbenchmark harnesses: hyperfine, pytest-benchmark, criterion.rs and
// libtest's bencher format, benchmark.js. Cases:
// testdata/bench/microbench.txtar.

// --- hyperfine ----------------------------------------------------------

var (
	hfBenchRE  = prefilter.MustCompileLine(`^Benchmark \d+: (.+?)\s*$`)
	hfTimeRE   = prefilter.MustCompileLine(`^\s+Time \((mean ± σ|abs ≡)\):\s+(\S+) (\S+)(?:\s+±\s+(\S+) (\S+))?\s+\[User: (\S+) (\S+), System: (\S+) (\S+)\]`)
	hfRangeRE  = prefilter.MustCompileLine(`^\s+Range \(min … max\):\s+(\S+) (\S+) …\s+(\S+) (\S+)`)
	hfRanRE    = prefilter.MustCompileLine(`^\s+(.+?) ran\s*$`)
	hfFasterRE = prefilter.MustCompileLine(`^\s+(\S+)(?: ± \S+)? times faster than (.+?)\s*$`)
)

// readHyperfine reads hyperfine: "<command> mean", "σ", "User", "System",
// "min", "max" ("abs" for a single run), and "<fastest> times faster than
// <other>" in x.
func readHyperfine(t *output) []*Result {
	n := t.find(hfBenchRE)
	if n < 0 || n+1 >= len(t.lines) || !hfTimeRE.MatchString(t.lines[n+1]) && (n+2 >= len(t.lines) || !hfTimeRE.MatchString(t.lines[n+2])) {
		return nil
	}
	var found []*Result
	name, fastest := "", ""
	add := func(label, num, u string, n int) {
		found = appendResult(found, newResult(label, num, unit(u), num+" "+u, n, nil))
	}
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		if m := hfBenchRE.FindStringSubmatch(l); m != nil {
			name = m[1]
		} else if m := hfTimeRE.FindStringSubmatch(l); m != nil && name != "" {
			if m[1] == "abs ≡" {
				add(name+" abs", m[2], m[3], n)
			} else {
				add(name+" mean", m[2], m[3], n)
				add(name+" σ", m[4], m[5], n)
			}
			add(name+" User", m[6], m[7], n)
			add(name+" System", m[8], m[9], n)
		} else if m := hfRangeRE.FindStringSubmatch(l); m != nil && name != "" {
			add(name+" min", m[1], m[2], n)
			add(name+" max", m[3], m[4], n)
		} else if m := hfFasterRE.FindStringSubmatch(l); m != nil && fastest != "" {
			found = appendResult(found, newResult(fastest+" times faster than "+unquote(m[2]), m[1], unit("x"), m[1], n, nil))
		} else if m := hfRanRE.FindStringSubmatch(l); m != nil {
			fastest = unquote(m[1])
		}
	}
	t.claimAll()
	return found
}

// unquote removes the single quotes hyperfine 1.15 puts around commands.
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return s[1 : len(s)-1]
	}
	return s
}

// --- pytest-benchmark ---------------------------------------------------

var (
	pbHeaderRE = prefilter.MustCompileLine(`^Name \(time in (\w+)\)\s{2,}\S`)
	pbOpsRE    = prefilter.MustCompileLine(`^OPS(?: \(([KM]?)ops/s\))?$`)
	pbRatioRE  = prefilter.MustCompileLine(`^\(.*\)$`)
	colSplitRE = prefilter.MustCompileLine(`\s{2,}`)
)

// pbTimeColumns are the columns of pytest-benchmark's table in the unit of
// its "Name (time in us)" header.
var pbTimeColumns = map[string]bool{"Min": true, "Max": true, "Mean": true, "StdDev": true, "Median": true, "IQR": true}

// readPytestBenchmark reads pytest-benchmark's tables: "<test> <column>"
// for the time columns and OPS; the "(1.0)" ratios, Outliers, Rounds and
// Iterations are not numbers.
func readPytestBenchmark(t *output) []*Result {
	var found []*Result
	for n := 0; n < len(t.lines); n++ {
		m := pbHeaderRE.FindStringSubmatch(t.lines[n])
		if m == nil || t.claimed[n] {
			continue
		}
		timeUnit := unit(m[1])
		cols := colSplitRE.Split(strings.TrimSpace(t.lines[n]), -1)
		start := n
		if n > 0 && (isRule(t.lines[n-1]) || strings.Contains(t.lines[n-1], "benchmark")) {
			start = n - 1
		}
		end := n + 1
		if end < len(t.lines) && isRule(t.lines[end]) {
			end++
		}
		for ; end < len(t.lines) && strings.TrimSpace(t.lines[end]) != ""; end++ {
			if isRule(t.lines[end]) {
				end++
				break
			}
			var tok []string
			for _, f := range strings.Fields(t.lines[end]) {
				if !pbRatioRE.MatchString(f) {
					tok = append(tok, f)
				}
			}
			if len(tok) != len(cols) {
				continue
			}
			for i := 1; i < len(cols); i++ {
				var u unitDef
				switch c := cols[i]; {
				case pbTimeColumns[c]:
					u = timeUnit
				case pbOpsRE.MatchString(c):
					u = unit("ops/s")
					switch pbOpsRE.FindStringSubmatch(c)[1] {
					case "K":
						u = unitScaled(u, "1000")
					case "M":
						u = unitScaled(u, "1000000")
					}
				default:
					continue
				}
				found = appendResult(found, newResult(tok[0]+" "+cols[i], tok[i], u, tok[i], end, nil))
			}
		}
		t.claim(start, end)
		n = end - 1
	}
	if len(found) > 0 {
		for n := 0; n < len(t.lines); n++ {
			if strings.TrimSpace(t.lines[n]) == "Legend:" {
				end := n + 1
				for end < len(t.lines) && strings.HasPrefix(t.lines[end], " ") {
					end++
				}
				t.claim(n, end)
			}
		}
	}
	return found
}

// --- criterion ----------------------------------------------------------

var (
	crShapeRE    = prefilter.MustCompileLine(`\btime:\s+\[\S+ \S+ \S+ \S+ \S+ \S+\]`)
	crLineRE     = prefilter.MustCompileLine(`^(\S.*?)?\s*\b(time|thrpt|change):\s+\[([^\]]*)\]`)
	crChangeRE   = prefilter.MustCompileLine(`^\s+change:\s*$`)
	crBenchingRE = prefilter.MustCompileLine(`^Benchmarking (.+?)(?:: .*)?$`)
	crOtherRE    = prefilter.MustCompileLine(`^(?:Found \d+ outliers|Gnuplot|WARNING|Warning|slope |mean |median |R\^2|Benchmarking )`)
)

// crUnit converts criterion's units: times (ps to s) and throughputs
// (bytes, binary or decimal, and elements per second).
func crUnit(u string) unitDef {
	switch u {
	case "ps":
		return unitDef{"us", rat("1/1000000")}
	case "B/s":
		return unitDef{"GB/s", rat("1/1000000000")}
	case "elem/s":
		return unit("ops/s")
	case "Kelem/s":
		return unitScaled(unit("ops/s"), "1000")
	case "Melem/s":
		return unitScaled(unit("ops/s"), "1000000")
	case "Gelem/s":
		return unitScaled(unit("ops/s"), "1000000000")
	}
	return unit(u)
}

// readCriterion reads criterion.rs: "<id> time" and "<id> thrpt", the
// point estimate of [low estimate high]; "<id> change" (or "<id> change
// time" / "<id> change thrpt" in the two-line form), in %.
func readCriterion(t *output) []*Result {
	if t.find(crShapeRE) < 0 {
		return nil
	}
	var found []*Result
	id, pending, benching := "", "", ""
	inChange := false
	for n, l := range t.lines {
		if t.claimed[n] || strings.TrimSpace(l) == "" {
			continue
		}
		indented := l[0] == ' ' || l[0] == '\t'
		if m := crBenchingRE.FindStringSubmatch(l); m != nil {
			benching = m[1]
		}
		m := crLineRE.FindStringSubmatch(l)
		if m == nil {
			switch {
			case crChangeRE.MatchString(l):
				inChange = true
			case !indented && !crOtherRE.MatchString(l) && !noise.MatchString(l):
				pending, inChange = strings.TrimSpace(l), false // a long id on its own line
			case !indented:
				inChange = false
			}
			continue
		}
		switch {
		case m[1] != "" && !indented:
			id, inChange = strings.TrimSpace(m[1]), false
		case m[2] == "time" && !inChange:
			id = pending
			if id == "" {
				id = benching
			}
		}
		pending = ""
		if id == "" {
			continue
		}
		f := strings.Fields(m[3])
		switch {
		case m[2] == "change" && len(f) == 3:
			found = appendResult(found, newResult(id+" change", strings.TrimSuffix(f[1], "%"), unit("%"), f[1], n, nil))
		case inChange && len(f) == 3:
			found = appendResult(found, newResult(id+" change "+m[2], strings.TrimSuffix(f[1], "%"), unit("%"), f[1], n, nil))
		case len(f) == 6:
			found = appendResult(found, newResult(id+" "+m[2], f[2], crUnit(f[3]), f[2]+" "+f[3], n, nil))
		}
	}
	t.claimAll()
	return found
}

var bencherRE = prefilter.MustCompileLine(`^test (\S+) \.\.\. bench:\s+([\d,]+(?:\.\d+)?) ns/iter(?: \(\+/- [\d,.]+\))?\s*$`)

// readBencher reads the bencher format of libtest and criterion:
// "<id> ns/iter" in us; the "(+/- 41)" spread is not a number.
func readBencher(t *output) []*Result {
	has := func(l string) bool { return strings.HasPrefix(l, "test ") }
	return t.eachLine(has, bencherRE, func(m []string, n int) *Result {
		return newResult(m[1]+" ns/iter", m[2], unit("ns"), m[2]+" ns/iter", n, nil)
	})
}

// --- benchmark.js -------------------------------------------------------

var benchmarkJSRE = prefilter.MustCompileLine(`^(\S.*?) x ([\d,]+(?:\.\d+)?) ops/sec ±[\d.]+% \(\d+ runs? sampled\)\s*$`)

// readBenchmarkJS reads benchmark.js: "<name> x 1,234 ops/sec ±0.52% (95
// runs sampled)" gives "<name>" in ops/s; the spread and the runs are not
// numbers.
func readBenchmarkJS(t *output) []*Result {
	has := func(l string) bool { return strings.Contains(l, " ops/sec ±") }
	return t.eachLine(has, benchmarkJSRE, func(m []string, n int) *Result {
		return newResult(m[1], m[2], unit("ops/s"), m[2]+" ops/sec", n, nil)
	})
}
