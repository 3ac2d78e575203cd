package bench

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// HTTP load generators: wrk and wrk2, ApacheBench, hey. Cases:
// testdata/bench/http-load.txtar.

// --- wrk, wrk2 ----------------------------------------------------------

var (
	wrkRunningRE = prefilter.MustCompileLine(`^Running \S+ test @ `)
	wrkStatsRE   = prefilter.MustCompileLine(`^\s+Thread Stats\s+Avg`)
	wrkLatencyRE = prefilter.MustCompileLine(`^\s+Latency\s+(\S+)\s+(\S+)\s+(\S+)\s+\S+%`)
	wrkDistRE    = prefilter.MustCompileLine(`^\s*([\d.]+%)\s+(\S+)\s*$`)
	wrkTimeRE    = prefilter.MustCompileLine(`^([\d.]+)(us|ms|s|m|h)$`)
	wrkSizeRE    = prefilter.MustCompileLine(`^([\d.]+)(B|KB|MB|GB|TB)$`)
	wrkRateRE    = prefilter.MustCompileLine(`^(Requests/sec|Transfer/sec):\s+(\S+)`)
	// wrkTotalRE matches wrk's count of requests in the configured
	// duration: "480133 requests in 30.10s, 61.36MB read".
	wrkTotalRE = prefilter.MustCompileLine(`^\s*\d+ requests in [\d.]+\w+, [\d.]+\w+ read$`)
)

// wrkTime converts wrk's times (metric: us, ms, s, m, h).
func wrkTime(s string) (string, unitDef) {
	m := wrkTimeRE.FindStringSubmatch(s)
	if m == nil {
		return "", unitDef{}
	}
	switch m[2] {
	case "m":
		return m[1], unitScaled(unit("s"), "60")
	case "h":
		return m[1], unitScaled(unit("s"), "3600")
	}
	return m[1], unit(m[2])
}

// wrkSizes gives the factors of wrk's byte sizes, which are binary.
var wrkSizes = map[string]string{"B": "1/1000000000", "KB": "1024/1000000000", "MB": "1048576/1000000000",
	"GB": "1073741824/1000000000", "TB": "1099511627776/1000000000"}

// readWrk reads wrk and wrk2: "Latency Avg|Stdev|Max" of the thread stats,
// "Latency Distribution <p>", "Requests/sec", "Transfer/sec" in GB/s. Its
// output cut by a filter (`| tail -3`, `| grep Requests/sec`) still has
// its rates, read where they are, and its count of requests, which no
// reader takes: the duration in it is the one configured.
func readWrk(t *output) []*Result {
	whole := t.find(wrkRunningRE) >= 0 && t.find(wrkStatsRE) >= 0
	if !whole {
		return readWrkLines(t)
	}
	var found []*Result
	inDist := false
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		if strings.HasPrefix(strings.TrimSpace(l), "Latency Distribution") {
			inDist = true
			continue
		}
		if m := wrkDistRE.FindStringSubmatch(l); m != nil && inDist {
			num, u := wrkTime(m[2])
			found = appendResult(found, newResult("Latency Distribution "+m[1], num, u, m[2], n, nil))
			continue
		}
		inDist = false
		if m := wrkLatencyRE.FindStringSubmatch(l); m != nil {
			for i, stat := range []string{"Avg", "Stdev", "Max"} {
				num, u := wrkTime(m[i+1])
				found = appendResult(found, newResult("Latency "+stat, num, u, m[i+1], n, nil))
			}
		} else if m := wrkRateRE.FindStringSubmatch(l); m != nil {
			found = appendResult(found, wrkRate(m, n))
		}
	}
	t.claimAll()
	return found
}

// readWrkLines reads the rate lines of a cut wrk output and claims them,
// with its count of requests.
func readWrkLines(t *output) []*Result {
	var found []*Result
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		if wrkTotalRE.MatchString(l) {
			t.claim(n, n+1)
			continue
		}
		if m := wrkRateRE.FindStringSubmatch(l); m != nil {
			found = appendResult(found, wrkRate(m, n))
			t.claim(n, n+1)
		}
	}
	return found
}

// wrkRate reads the submatches m of wrkRateRE on line n: requests in
// req/s, transfer in GB/s.
func wrkRate(m []string, n int) *Result {
	if m[1] == "Requests/sec" {
		return newResult(m[1], m[2], unit("req/s"), m[2], n, nil)
	}
	if s := wrkSizeRE.FindStringSubmatch(m[2]); s != nil {
		return newResult(m[1], s[1], unitDef{"GB/s", rat(wrkSizes[s[2]])}, m[2], n, nil)
	}
	return nil
}

// --- ab (ApacheBench) ---------------------------------------------------

var (
	abShapeRE   = prefilter.MustCompileLine(`^This is ApacheBench`)
	abLineRE    = prefilter.MustCompileLine(`^([A-Z][A-Za-z ]+?):\s+([\d.]+) (?:\[([^\]]+)\]|(seconds))(?: \(([^)]+)\))?`)
	abPercentRE = prefilter.MustCompileLine(`^\s+(\d+%)\s+(\d+)`)
)

// abMetrics are ab's results, by label, with the unit it prints them in.
var abMetrics = map[string]unitDef{
	"Time taken for tests": unit("s"),
	"Requests per second":  unit("req/s"),
	"Time per request":     unit("ms"),
	"Transfer rate":        {"GB/s", rat("1024/1000000000")}, // Kbytes/sec, that is KiB/s
}

// readAB reads ApacheBench: "Time taken for tests", "Requests per second",
// "Time per request (<note>)", "Transfer rate", "Percentage served within
// <p>" in ms.
func readAB(t *output) []*Result {
	if t.find(abShapeRE) < 0 {
		return nil
	}
	var found []*Result
	inPercent := false
	for n, l := range t.lines {
		if strings.HasPrefix(l, "Percentage of the requests served within") {
			inPercent = true
			continue
		}
		if m := abPercentRE.FindStringSubmatch(l); m != nil && inPercent {
			found = appendResult(found, newResult("Percentage served within "+m[1], m[2], unit("ms"), m[2], n, nil))
			continue
		}
		inPercent = false
		m := abLineRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		u, ok := abMetrics[m[1]]
		if !ok {
			continue
		}
		label := m[1]
		if m[1] == "Time per request" && m[5] != "" {
			label += " (" + m[5] + ")"
		}
		found = appendResult(found, newResult(label, m[2], u, m[2], n, nil))
	}
	t.claimAll()
	return found
}

// --- hey ----------------------------------------------------------------

var (
	heySummaryRE = prefilter.MustCompileLine(`^Summary:\s*$`)
	heyShapeRE   = prefilter.MustCompileLine(`^(?:Response time histogram|Latency distribution):\s*$`)
	heyStatRE    = prefilter.MustCompileLine(`^\s+(Total|Slowest|Fastest|Average):\s+([\d.]+) secs`)
	heyRateRE    = prefilter.MustCompileLine(`^\s+Requests/sec:\s+([\d.]+)`)
	heyDistRE    = prefilter.MustCompileLine(`^\s+(\d+(?:\.\d+)?)%%? in ([\d.]+) secs`)
)

// readHey reads hey: "Total", "Slowest", "Fastest", "Average" in s,
// "Requests/sec", "Latency distribution <p>".
func readHey(t *output) []*Result {
	if t.find(heySummaryRE) < 0 || t.find(heyShapeRE) < 0 {
		return nil
	}
	var found []*Result
	for n, l := range t.lines {
		switch m := heyStatRE.FindStringSubmatch(l); {
		case m != nil:
			found = appendResult(found, newResult(m[1], m[2], unit("s"), m[2]+" secs", n, nil))
		case heyRateRE.MatchString(l):
			m := heyRateRE.FindStringSubmatch(l)
			found = appendResult(found, newResult("Requests/sec", m[1], unit("req/s"), m[1], n, nil))
		case heyDistRE.MatchString(l):
			m := heyDistRE.FindStringSubmatch(l)
			found = appendResult(found, newResult("Latency distribution "+m[1]+"%", m[2], unit("s"), m[2]+" secs", n, nil))
		}
	}
	t.claimAll()
	return found
}
