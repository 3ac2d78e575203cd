package analyzer

import (
	"math/big"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// A benchTool reads the results of one benchmarking tool, recognized by the
// shape of its output. Its reader claims the lines it reads (all of them
// when the output is the tool's alone), so that the generic reading skips
// them, and returns their numbers labelled with the tool's metric names.
type benchTool struct {
	name string
	read func(t *benchText) []*Bench
}

// benchTools lists the tools' readers in the order they run.
var benchTools = []benchTool{
	{"nvidia-smi", readNvidiaSMI},
	{"go test -bench", readGoBench},
	{"benchstat", readBenchstat},
	{"hyperfine", readHyperfine},
	{"pytest-benchmark", readPytestBenchmark},
	{"criterion", readCriterion},
	{"bencher", readBencher},
	{"wrk", readWrk},
	{"ab", readAB},
	{"hey", readHey},
	{"fio", readFio},
	{"nccl-tests", readNCCL},
	{"iperf3", readIperf3},
	{"sysbench", readSysbench},
	{"bench_serving", readServingResult},
	{"bench_one_batch", readOneBatch},
	{"vllm bench latency", readVLLMLatency},
	{"vllm bench throughput", readVLLMThroughput},
	{"benchmark.js", readBenchmarkJS},
	{"time", readTime},
	{"timeit", readTimeit},
	{"coverage", readCoverage},
	{"test summary", readTestSummary},
}

// find returns the index of the first unclaimed line re matches, or -1.
func (t *benchText) find(re *prefilter.Regexp) int {
	for n, l := range t.lines {
		if !t.claimed[n] && re.MatchString(l) {
			return n
		}
	}
	return -1
}

// unit returns the definition of a unit the tool is known to print; the
// zero unitDef (which gives no number) when it is not one.
func unit(name string) unitDef {
	u, _ := lookupUnit(name)
	return u
}

// unitScaled returns u with its factor multiplied by f.
func unitScaled(u unitDef, f string) unitDef {
	if u.unit == "" {
		return u
	}
	return unitDef{u.unit, new(big.Rat).Mul(u.factor, rat(f))}
}

// --- nvidia-smi -------------------------------------------------------

var (
	smiHeaderRE = prefilter.MustCompileLine(`NVIDIA-SMI \d`)
	smiDateRE   = prefilter.MustCompileLine(`^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\s*$`)
	smiGPURE    = prefilter.MustCompileLine(`^\|\s+(\d+)\s+\S`)
	smiUtilRE   = prefilter.MustCompileLine(`^\s*(\d+)%`)
	smiQueryRE  = prefilter.MustCompileLine(`\[(%|W|MiB|MHz|C)\]`)
)

// readNvidiaSMI claims nvidia-smi's tables. Their numbers (temperature,
// power, memory, utilization) are not results, except for the GPU
// utilization when the caller asks for GPU readings and nvidia-smi is the
// command run.
func readNvidiaSMI(t *benchText) []*Bench {
	gpu := t.opts.GPU && t.cmd != nil && t.cmd.Target == "nvidia-smi"
	var found []*Bench
	for n := 0; n < len(t.lines); n++ {
		if t.claimed[n] || !smiHeaderRE.MatchString(t.lines[n]) {
			continue
		}
		start := n
		for start > 0 && n-start < 2 && (strings.HasPrefix(strings.TrimSpace(t.lines[start-1]), "+") || smiDateRE.MatchString(t.lines[start-1])) {
			start--
		}
		end := n + 1
		for end < len(t.lines) {
			l := strings.TrimSpace(t.lines[end])
			if l != "" && !strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "+") {
				break
			}
			end++
		}
		if gpu {
			for i := n; i+1 < end; i++ {
				m := smiGPURE.FindStringSubmatch(t.lines[i])
				if m == nil {
					continue
				}
				cells := strings.Split(t.lines[i+1], "|")
				if len(cells) < 4 {
					continue
				}
				if u := smiUtilRE.FindStringSubmatch(cells[3]); u != nil {
					found = appendBench(found, newBench("GPU-Util", u[1], unit("%"), u[1]+"%", i+1, map[string]string{"gpu": m[1]}))
				}
			}
		}
		t.claim(start, end)
		n = end - 1
	}
	if gpu {
		found = append(found, readSMIQuery(t)...)
	}
	return found
}

// readSMIQuery reads the CSV of nvidia-smi --query-gpu=... --format=csv:
// the columns whose header gives the unit % ("utilization.gpu [%]").
func readSMIQuery(t *benchText) []*Bench {
	var found []*Bench
	var cols []string
	var units []unitDef
	gpuCol := -1
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		cells := strings.Split(l, ",")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if smiQueryRE.MatchString(l) {
			cols, units, gpuCol = cells, make([]unitDef, len(cells)), -1
			for i, c := range cells {
				if m := parenUnitRE.FindStringSubmatch(c); m != nil {
					units[i] = unit(m[1])
					cols[i] = strings.TrimSpace(c[:len(c)-len(m[0])])
				}
				if c == "index" {
					gpuCol = i
				}
			}
			t.claim(n, n+1)
			continue
		}
		if cols == nil || len(cells) != len(cols) {
			cols = nil
			continue
		}
		ctx := map[string]string{}
		if gpuCol >= 0 {
			ctx["gpu"] = cells[gpuCol]
		}
		for i, c := range cells {
			num := strings.TrimSpace(strings.TrimSuffix(c, "%"))
			if units[i].unit != "" && isNumber(num) {
				found = appendBench(found, newBench(cols[i], num, units[i], c, n, copyContext(ctx)))
			}
		}
		t.claim(n, n+1)
	}
	return found
}

// --- go test -bench (golang.org/x/perf/benchfmt) ------------------------

var (
	goBenchLineRE = prefilter.MustCompileLine(`^Benchmark\S*\s+\d+\s+[-+\d.]`)
	goConfigRE    = prefilter.MustCompileLine(`^(goos|goarch|pkg|cpu):\s*(.*?)\s*$`)
	goLogRE       = prefilter.MustCompileLine(`^\s+\S+_test\.go:\d+: `) // b.Log output
)

// goConfigKeys are the header lines of go test -bench output taken as
// context of the results under them.
var goConfigKeys = []string{"goos", "goarch", "pkg", "cpu"}

// readGoBench reads go test -bench lines with benchfmt: "<name> <unit>"
// labels, ns/op in us, MB/s in GB/s, b.ReportMetric units that are
// normalized units; B/op, allocs/op and other custom units give nothing.
func readGoBench(t *benchText) []*Bench {
	if t.find(goBenchLineRE) < 0 {
		return nil
	}
	var b strings.Builder
	for n, l := range t.lines {
		if !t.claimed[n] {
			b.WriteString(l)
		}
		b.WriteByte('\n')
	}
	r := benchfmt.NewReader(strings.NewReader(b.String()), "")
	var found []*Bench
	for r.Scan() {
		res, ok := r.Result().(*benchfmt.Result)
		if !ok {
			continue // a syntax error: the line is not a result
		}
		_, line := res.Pos()
		n := line - 1
		ctx := map[string]string{}
		for _, k := range goConfigKeys {
			if v := strings.TrimSpace(res.GetConfig(k)); v != "" {
				ctx[k] = v
			}
		}
		name := "Benchmark" + res.Name.String()
		for _, v := range res.Values {
			val, un := v.Value, v.Unit
			if v.OrigUnit != "" {
				val, un = v.OrigValue, v.OrigUnit
			}
			num, text := strconv.FormatFloat(val, 'g', -1, 64), strconv.FormatFloat(val, 'f', -1, 64)
			if len(text) > maxNumber {
				text = num
			}
			found = appendBench(found, newBench(name+" "+un, num, unit(un), text+" "+un, n, copyContext(ctx)))
		}
		t.claim(n, n+1)
	}
	for n, l := range t.lines {
		if goConfigRE.MatchString(l) || goLogRE.MatchString(l) {
			t.claim(n, n+1)
		}
	}
	return found
}

// --- benchstat ----------------------------------------------------------

var benchstatValueRE = prefilter.MustCompileLine(`^([-+]?\d+(?:\.\d+)?)(n|µ|μ|u|m|k|M|G|T|Ki|Mi|Gi|Ti)?$`)

// benchstatPrefix gives the factors of benchstat's SI and binary prefixes.
var benchstatPrefix = map[string]string{
	"": "1", "n": "1/1000000000", "µ": "1/1000000", "μ": "1/1000000", "u": "1/1000000", "m": "1/1000",
	"k": "1000", "M": "1000000", "G": "1000000000", "T": "1000000000000",
	"Ki": "1024", "Mi": "1048576", "Gi": "1073741824", "Ti": "1099511627776",
}

// benchstatUnit converts a benchstat value and its metric: sec/op in the
// unit its prefix names (7.608µ is 7.608 us), B/s in GB/s.
func benchstatUnit(metric, prefix string) unitDef {
	f, ok := benchstatPrefix[prefix]
	if !ok {
		return unitDef{}
	}
	switch metric {
	case "sec/op":
		switch prefix {
		case "n":
			return unit("ns")
		case "µ", "μ", "u":
			return unit("us")
		case "m":
			return unit("ms")
		case "":
			return unit("s")
		}
		return unitDef{}
	case "B/s":
		return unitDef{"GB/s", new(big.Rat).Mul(rat(f), rat("1/1000000000"))}
	}
	if prefix != "" {
		return unitDef{}
	}
	return unit(metric)
}

// readBenchstat reads benchstat's tables: "<row> <file> <metric>" for each
// column's centre value, "<row> <metric> vs base" for a printed change.
func readBenchstat(t *benchText) []*Bench {
	var found []*Bench
	ctx := map[string]string{}
	for n := 0; n+1 < len(t.lines); n++ {
		l := t.lines[n]
		if t.claimed[n] {
			continue
		}
		if m := goConfigRE.FindStringSubmatch(l); m != nil {
			ctx[m[1]] = m[2]
			continue
		}
		files, metrics := boxCells(l), boxCells(t.lines[n+1])
		if len(files) == 0 || len(files) != len(metrics) {
			continue
		}
		metric := make([]string, len(metrics))
		vsBase := make([]bool, len(metrics))
		for i, m := range metrics {
			if f := strings.Fields(m); len(f) > 0 {
				metric[i] = f[0]
			}
			vsBase[i] = strings.Contains(m, "vs base")
		}
		end := n + 2
		for ; end < len(t.lines) && strings.TrimSpace(t.lines[end]) != ""; end++ {
			tok := strings.Fields(t.lines[end])
			if len(tok) < 2 || tok[0] == "geomean" || strings.Contains(t.lines[end], "│") {
				continue
			}
			i := 1
			for j := range files {
				if i >= len(tok) {
					break
				}
				if m := benchstatValueRE.FindStringSubmatch(tok[i]); m != nil {
					label := tok[0] + " " + files[j] + " " + metric[j]
					found = appendBench(found, newBench(label, m[1], benchstatUnit(metric[j], m[2]), tok[i]+" "+metric[j], end, copyContext(ctx)))
				}
				i++
				if i+1 < len(tok) && tok[i] == "±" {
					i += 2
				}
				if vsBase[j] && i < len(tok) {
					d := tok[i]
					i++
					if strings.HasSuffix(d, "%") && benchstatUnit(metric[j], "").unit != "" {
						num := strings.TrimSuffix(d, "%")
						found = appendBench(found, newBench(tok[0]+" "+metric[j]+" vs base", num, unit("%"), d, end, copyContext(ctx)))
					}
					for i < len(tok) && (strings.HasPrefix(tok[i], "(") || strings.HasSuffix(tok[i], ")") || !hasLetterOrDigit(tok[i])) {
						i++
					}
				}
			}
		}
		t.claim(n, end)
		n = end - 1
	}
	if len(found) > 0 {
		for n, l := range t.lines {
			if goConfigRE.MatchString(l) || strings.HasPrefix(strings.TrimSpace(l), "¹") {
				t.claim(n, n+1)
			}
		}
	}
	return found
}

// boxCells returns the cells between the box-drawing bars of a benchstat
// header line, or nil when it has fewer than two bars.
func boxCells(l string) []string {
	if strings.Count(l, "│") < 2 {
		return nil
	}
	parts := strings.Split(l, "│")
	var cells []string
	for _, p := range parts[1 : len(parts)-1] {
		if p = strings.TrimSpace(p); p == "" {
			return nil
		}
		cells = append(cells, p)
	}
	return cells
}

func hasLetterOrDigit(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return isWordRune(r) && r != '_' }) >= 0 && !strings.ContainsAny(s, "¹²³⁴⁵⁶⁷⁸⁹")
}

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
func readHyperfine(t *benchText) []*Bench {
	n := t.find(hfBenchRE)
	if n < 0 || n+1 >= len(t.lines) || !hfTimeRE.MatchString(t.lines[n+1]) && (n+2 >= len(t.lines) || !hfTimeRE.MatchString(t.lines[n+2])) {
		return nil
	}
	var found []*Bench
	name, fastest := "", ""
	add := func(label, num, u string, n int) {
		found = appendBench(found, newBench(label, num, unit(u), num+" "+u, n, nil))
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
			found = appendBench(found, newBench(fastest+" times faster than "+unquote(m[2]), m[1], unit("x"), m[1], n, nil))
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
func readPytestBenchmark(t *benchText) []*Bench {
	var found []*Bench
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
				found = appendBench(found, newBench(tok[0]+" "+cols[i], tok[i], u, tok[i], end, nil))
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
func readCriterion(t *benchText) []*Bench {
	if t.find(crShapeRE) < 0 {
		return nil
	}
	var found []*Bench
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
			found = appendBench(found, newBench(id+" change", strings.TrimSuffix(f[1], "%"), unit("%"), f[1], n, nil))
		case inChange && len(f) == 3:
			found = appendBench(found, newBench(id+" change "+m[2], strings.TrimSuffix(f[1], "%"), unit("%"), f[1], n, nil))
		case len(f) == 6:
			found = appendBench(found, newBench(id+" "+m[2], f[2], crUnit(f[3]), f[2]+" "+f[3], n, nil))
		}
	}
	t.claimAll()
	return found
}

var bencherRE = prefilter.MustCompileLine(`^test (\S+) \.\.\. bench:\s+([\d,]+(?:\.\d+)?) ns/iter(?: \(\+/- [\d,.]+\))?\s*$`)

// readBencher reads the bencher format of libtest and criterion:
// "<id> ns/iter" in us; the "(+/- 41)" spread is not a number.
func readBencher(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		if !strings.HasPrefix(l, "test ") || t.claimed[n] {
			continue
		}
		if m := bencherRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, newBench(m[1]+" ns/iter", m[2], unit("ns"), m[2]+" ns/iter", n, nil))
			t.claim(n, n+1)
		}
	}
	return found
}

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
func readWrk(t *benchText) []*Bench {
	whole := t.find(wrkRunningRE) >= 0 && t.find(wrkStatsRE) >= 0
	if !whole {
		return readWrkLines(t)
	}
	var found []*Bench
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
			found = appendBench(found, newBench("Latency Distribution "+m[1], num, u, m[2], n, nil))
			continue
		}
		inDist = false
		if m := wrkLatencyRE.FindStringSubmatch(l); m != nil {
			for i, stat := range []string{"Avg", "Stdev", "Max"} {
				num, u := wrkTime(m[i+1])
				found = appendBench(found, newBench("Latency "+stat, num, u, m[i+1], n, nil))
			}
		} else if m := wrkRateRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, wrkRate(m, n))
		}
	}
	t.claimAll()
	return found
}

// readWrkLines reads the rate lines of a cut wrk output and claims them,
// with its count of requests.
func readWrkLines(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		if wrkTotalRE.MatchString(l) {
			t.claim(n, n+1)
			continue
		}
		if m := wrkRateRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, wrkRate(m, n))
			t.claim(n, n+1)
		}
	}
	return found
}

// wrkRate reads the submatches m of wrkRateRE on line n: requests in
// req/s, transfer in GB/s.
func wrkRate(m []string, n int) *Bench {
	if m[1] == "Requests/sec" {
		return newBench(m[1], m[2], unit("req/s"), m[2], n, nil)
	}
	if s := wrkSizeRE.FindStringSubmatch(m[2]); s != nil {
		return newBench(m[1], s[1], unitDef{"GB/s", rat(wrkSizes[s[2]])}, m[2], n, nil)
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
func readAB(t *benchText) []*Bench {
	if t.find(abShapeRE) < 0 {
		return nil
	}
	var found []*Bench
	inPercent := false
	for n, l := range t.lines {
		if strings.HasPrefix(l, "Percentage of the requests served within") {
			inPercent = true
			continue
		}
		if m := abPercentRE.FindStringSubmatch(l); m != nil && inPercent {
			found = appendBench(found, newBench("Percentage served within "+m[1], m[2], unit("ms"), m[2], n, nil))
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
		found = appendBench(found, newBench(label, m[2], u, m[2], n, nil))
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
func readHey(t *benchText) []*Bench {
	if t.find(heySummaryRE) < 0 || t.find(heyShapeRE) < 0 {
		return nil
	}
	var found []*Bench
	for n, l := range t.lines {
		switch m := heyStatRE.FindStringSubmatch(l); {
		case m != nil:
			found = appendBench(found, newBench(m[1], m[2], unit("s"), m[2]+" secs", n, nil))
		case heyRateRE.MatchString(l):
			m := heyRateRE.FindStringSubmatch(l)
			found = appendBench(found, newBench("Requests/sec", m[1], unit("req/s"), m[1], n, nil))
		case heyDistRE.MatchString(l):
			m := heyDistRE.FindStringSubmatch(l)
			found = appendBench(found, newBench("Latency distribution "+m[1]+"%", m[2], unit("s"), m[2]+" secs", n, nil))
		}
	}
	t.claimAll()
	return found
}

// --- fio ----------------------------------------------------------------

var (
	fioJobRE = prefilter.MustCompileLine(`^(\S.*?): \(groupid=\d+, jobs=\d+\)`)
	fioDirRE = prefilter.MustCompileLine(`^\s+(read|write|trim)\s*: IOPS=([\d.]+)([kMG]?), BW=([\d.]+)([KMGT]?i?B/s)`)
	fioLatRE = prefilter.MustCompileLine(`^\s+(clat|lat) \((nsec|usec|msec)\): .*\bavg=\s*([\d.]+)`)
)

// readFio reads fio: per direction "<dir> IOPS", "<dir> BW" (the first
// figure), "<dir> clat avg" and "<dir> lat avg". When several job sections
// report, each number has its job as context.
func readFio(t *benchText) []*Bench {
	jobs := 0
	for _, l := range t.lines {
		if strings.Contains(l, "(groupid=") && fioJobRE.MatchString(l) {
			jobs++
		}
	}
	if jobs == 0 {
		return nil
	}
	var found []*Bench
	job, dir := "", ""
	ctx := func() map[string]string {
		if jobs > 1 {
			return map[string]string{"job": job}
		}
		return nil
	}
	for n, l := range t.lines {
		if m := fioJobRE.FindStringSubmatch(l); strings.Contains(l, "(groupid=") && m != nil {
			job = m[1]
		} else if m := fioDirRE.FindStringSubmatch(l); m != nil {
			dir = m[1]
			iops := unit("ops/s")
			switch m[3] {
			case "k":
				iops = unitScaled(iops, "1000")
			case "M":
				iops = unitScaled(iops, "1000000")
			case "G":
				iops = unitScaled(iops, "1000000000")
			}
			bw := unit(m[5])
			if m[5] == "B/s" {
				bw = unitDef{"GB/s", rat("1/1000000000")}
			}
			found = appendBench(found, newBench(dir+" IOPS", m[2], iops, m[2]+m[3], n, ctx()),
				newBench(dir+" BW", m[4], bw, m[4]+m[5], n, ctx()))
		} else if m := fioLatRE.FindStringSubmatch(l); m != nil && dir != "" {
			found = appendBench(found, newBench(dir+" "+m[1]+" avg", m[3], unit(m[2]), m[3], n, ctx()))
		}
	}
	t.claimAll()
	return found
}

// --- nccl-tests ---------------------------------------------------------

var (
	ncclHeaderRE = prefilter.MustCompileLine(`^#\s+size\s+count\s+type`)
	ncclAvgRE    = prefilter.MustCompileLine(`^#\s*Avg bus bandwidth\s*:\s*([\d.]+)`)
)

// readNCCL reads nccl-tests: per row, "out-of-place time" (us), "algbw"
// and "busbw" (GB/s), then the same "in-place", with the row's size as
// context; and "Avg bus bandwidth" in GB/s.
func readNCCL(t *benchText) []*Bench {
	h := t.find(ncclHeaderRE)
	if h < 0 {
		return nil
	}
	cols := strings.Fields(strings.TrimPrefix(t.lines[h], "#"))
	modes := []string{"out-of-place", "in-place"}
	labels := make([]string, len(cols))
	seen := map[string]int{}
	for i, c := range cols {
		if c == "time" || c == "algbw" || c == "busbw" {
			if k := seen[c]; k < len(modes) {
				labels[i] = modes[k] + " " + c
			}
			seen[c]++
		}
	}
	var found []*Bench
	for n, l := range t.lines {
		if m := ncclAvgRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, newBench("Avg bus bandwidth", m[1], unit("GB/s"), m[1], n, nil))
			continue
		}
		f := strings.Fields(l)
		if strings.HasPrefix(l, "#") || len(f) != len(cols) || !isCellNumber(f[0]) {
			continue
		}
		for i, label := range labels {
			if label == "" || !isNumber(f[i]) {
				continue
			}
			u := unit("GB/s")
			if strings.HasSuffix(label, "time") {
				u = unit("us")
			}
			found = appendBench(found, newBench(label, f[i], u, f[i], n, map[string]string{"size": f[0]}))
		}
	}
	t.claimAll()
	return found
}

// --- iperf3 -------------------------------------------------------------

var (
	iperfShapeRE   = prefilter.MustCompileLine(`^\[\s*ID\]\s+Interval`)
	iperfSepRE     = prefilter.MustCompileLine(`^(?:- )+-\s*$`)
	iperfSummaryRE = prefilter.MustCompileLine(`^\[\s*(\d+|SUM)\]\s+[\d.]+-[\d.]+\s+sec\s+[\d.]+ \w*Bytes\s+([\d.]+) (\w*bits/sec)(.*?)\s+(sender|receiver)\s*$`)
	iperfUDPRE     = prefilter.MustCompileLine(`([\d.]+) ms\s+\d+/\d+ \(([\d.e+-]+)%\)`)
)

// iperfRates gives the factors from iperf3's bit rates to GB/s.
var iperfRates = map[string]string{"bits/sec": "1/8000000000", "Kbits/sec": "1/8000000",
	"Mbits/sec": "1/8000", "Gbits/sec": "1/8", "Tbits/sec": "125"}

// readIperf3 reads iperf3's summary: "sender Bitrate", "receiver Bitrate"
// (GB/s) and, for UDP, "receiver Jitter" and "receiver Lost/Total
// Datagrams" (%). The per-interval lines are not results. With parallel
// streams only the [SUM] lines count.
func readIperf3(t *benchText) []*Bench {
	if t.find(iperfShapeRE) < 0 {
		return nil
	}
	sep := t.find(iperfSepRE)
	var found []*Bench
	if sep >= 0 {
		type entry struct {
			n int
			m []string
		}
		var entries []entry
		sum, ids := false, map[string]bool{}
		for n := sep + 1; n < len(t.lines); n++ {
			if m := iperfSummaryRE.FindStringSubmatch(t.lines[n]); m != nil {
				entries = append(entries, entry{n, m})
				sum = sum || m[1] == "SUM"
				ids[m[1]] = true
			}
		}
		for _, e := range entries {
			m := e.m
			if sum && m[1] != "SUM" {
				continue
			}
			var ctx map[string]string
			if !sum && len(ids) > 1 {
				ctx = map[string]string{"stream": m[1]}
			}
			f, ok := iperfRates[m[3]]
			if !ok {
				continue
			}
			found = appendBench(found, newBench(m[5]+" Bitrate", m[2], unitDef{"GB/s", rat(f)}, m[2]+" "+m[3], e.n, copyContext(ctx)))
			if u := iperfUDPRE.FindStringSubmatch(m[4]); u != nil && m[5] == "receiver" {
				found = appendBench(found, newBench("receiver Jitter", u[1], unit("ms"), u[1]+" ms", e.n, copyContext(ctx)),
					newBench("receiver Lost/Total Datagrams", u[2], unit("%"), u[2]+"%", e.n, copyContext(ctx)))
			}
		}
	}
	t.claimAll()
	return found
}

// --- sysbench -----------------------------------------------------------

var (
	sbShapeRE    = prefilter.MustCompileLine(`^sysbench \d+\.\d+`)
	sbLatencyRE  = prefilter.MustCompileLine(`^Latency \(ms\):\s*$`)
	sbLatStatRE  = prefilter.MustCompileLine(`^(min|avg|max|\d+(?:\.\d+)?th percentile):\s+([\d.]+)\s*$`)
	sbEventsRE   = prefilter.MustCompileLine(`^events per second:\s+([\d.]+)`)
	sbTotalOpsRE = prefilter.MustCompileLine(`^Total operations: \d+ \(([\d.]+) per second\)`)
	sbMemRE      = prefilter.MustCompileLine(`^[\d.]+ MiB transferred \(([\d.]+) MiB/sec\)`)
	sbOLTPRE     = prefilter.MustCompileLine(`^(transactions|queries):\s+\d+\s+\(([\d.]+) per sec\.\)`)
	sbFileRE     = prefilter.MustCompileLine(`^(reads/s|writes/s|fsyncs/s):\s+([\d.]+)\s*$`)
	sbFileBWRE   = prefilter.MustCompileLine(`^(read|written), MiB/s:\s+([\d.]+)\s*$`)
)

// readSysbench reads sysbench: "events per second", "Total operations per
// second", "transferred", OLTP "transactions" and "queries" (per second),
// fileio's rates, and "Latency min|avg|max|<p>th percentile" in ms.
func readSysbench(t *benchText) []*Bench {
	if t.find(sbShapeRE) < 0 {
		return nil
	}
	var found []*Bench
	inLatency := false
	for n, l := range t.lines {
		s := strings.TrimSpace(l)
		switch {
		case sbLatencyRE.MatchString(s):
			inLatency = true
			continue
		case s == "":
			inLatency = false
			continue
		}
		if m := sbLatStatRE.FindStringSubmatch(s); m != nil && inLatency {
			found = appendBench(found, newBench("Latency "+m[1], m[2], unit("ms"), m[2], n, nil))
		} else if m := sbEventsRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench("events per second", m[1], unit("ops/s"), m[1], n, nil))
		} else if m := sbTotalOpsRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench("Total operations per second", m[1], unit("ops/s"), m[1], n, nil))
		} else if m := sbMemRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench("transferred", m[1], unit("MiB/s"), m[1]+" MiB/sec", n, nil))
		} else if m := sbOLTPRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit("ops/s"), m[2], n, nil))
		} else if m := sbFileRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit("ops/s"), m[2], n, nil))
		} else if m := sbFileBWRE.FindStringSubmatch(s); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit("MiB/s"), m[2]+" MiB/s", n, nil))
		}
	}
	t.claimAll()
	return found
}

// --- vLLM and SGLang ----------------------------------------------------

var (
	servingStartRE = prefilter.MustCompileLine(`^=+\s*[A-Za-z ]*Benchmark Result\s*=+\s*$`)
	servingEndRE   = prefilter.MustCompileLine(`^={10,}\s*$`)
	servingLineRE  = prefilter.MustCompileLine(`^(\S.*?):\s*(\S*)\s*$`)
	servingItemRE  = prefilter.MustCompileLine(`^\s+(\S.*?):\s+([\d.]+)\s*$`)
	servingUnitRE  = prefilter.MustCompileLine(`\s*\(([^()]+)\)$`)
)

// servingSettings are lines of the result block that echo the traffic the
// benchmark was asked for, not what it measured.
var servingSettings = []string{"Request rate configured", "Traffic request rate", "Max request concurrency", "Maximum request concurrency"}

// readServingResult reads the result block of vLLM's and SGLang's
// bench_serving: every line whose metric name carries a unit ("Output
// token throughput (tok/s)", "P99 TTFT (ms)"), with the name as label;
// a list under a header ("Per-position acceptance (%):") takes the
// header as prefix.
func readServingResult(t *benchText) []*Bench {
	var found []*Bench
	for n := 0; n < len(t.lines); n++ {
		if t.claimed[n] || !servingStartRE.MatchString(t.lines[n]) {
			continue
		}
		end := n + 1
		for end < len(t.lines) && !servingEndRE.MatchString(t.lines[end]) {
			end++
		}
		listHead, listUnit := "", unitDef{}
		for i := n + 1; i < end; i++ {
			l := t.lines[i]
			if m := servingItemRE.FindStringSubmatch(l); m != nil && listHead != "" {
				found = appendBench(found, newBench(listHead+" "+m[1], m[2], listUnit, m[2], i, nil))
				continue
			}
			listHead = ""
			m := servingLineRE.FindStringSubmatch(l)
			if m == nil || isRule(l) {
				continue
			}
			label, value := m[1], m[2]
			u := servingUnitRE.FindStringSubmatch(label)
			if u == nil || isSetting(label) {
				continue
			}
			if value == "" {
				listHead, listUnit = strings.TrimSuffix(label, u[0]), unit(u[1])
				continue
			}
			found = appendBench(found, newBench(label, value, unit(u[1]), value, i, nil))
		}
		t.claim(n, end+1)
		n = end
	}
	return found
}

func isSetting(label string) bool {
	for _, s := range servingSettings {
		if strings.HasPrefix(label, s) {
			return true
		}
	}
	return false
}

var (
	obPrefillRE = prefilter.MustCompileLine(`^Prefill\. latency: ([\d.]+) s, throughput:\s+([\d.]+) token/s`)
	obDecodeRE  = prefilter.MustCompileLine(`^Decode\.\s+median latency: ([\d.]+) s, median throughput:\s+([\d.]+) token/s`)
	obTotalRE   = prefilter.MustCompileLine(`^Total\. latency:\s+([\d.]+) s, throughput:\s+([\d.]+) token/s`)
	obStepRE    = prefilter.MustCompileLine(`^Decode \d+\. Batch size: \d+, latency: `)
)

// readOneBatch reads SGLang's bench_one_batch: "Prefill latency|throughput",
// "Decode median latency|throughput", "Total latency|throughput". Only the
// runs after "Benchmark ..." count, when the output has that line: the
// warmup run and the per-step decode lines are not results.
func readOneBatch(t *benchText) []*Bench {
	if t.find(obPrefillRE) < 0 {
		return nil
	}
	counting := !slices.ContainsFunc(t.lines, func(l string) bool { return strings.TrimSpace(l) == "Benchmark ..." })
	var found []*Bench
	two := func(name, lat, thr string, n int) {
		if counting {
			found = appendBench(found, newBench(name+" latency", lat, unit("s"), lat+" s", n, nil),
				newBench(name+" throughput", thr, unit("token/s"), thr+" token/s", n, nil))
		}
	}
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		switch s := strings.TrimSpace(l); {
		case s == "Warmup ...":
			counting = false
		case s == "Benchmark ...":
			counting = true
		case obPrefillRE.MatchString(l):
			m := obPrefillRE.FindStringSubmatch(l)
			two("Prefill", m[1], m[2], n)
		case obDecodeRE.MatchString(l):
			m := obDecodeRE.FindStringSubmatch(l)
			two("Decode median", m[1], m[2], n)
		case obTotalRE.MatchString(l):
			m := obTotalRE.FindStringSubmatch(l)
			two("Total", m[1], m[2], n)
		case obStepRE.MatchString(l):
		default:
			continue
		}
		t.claim(n, n+1)
	}
	return found
}

var vllmLatencyRE = prefilter.MustCompileLine(`^(Avg latency|\d+(?:\.\d+)?% percentile latency): ([\d.]+) seconds\s*$`)

// readVLLMLatency reads vllm bench latency: "Avg latency" and "<p>%
// percentile latency" in s.
func readVLLMLatency(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		if !strings.HasSuffix(strings.TrimSpace(l), " seconds") || t.claimed[n] {
			continue
		}
		if m := vllmLatencyRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit("s"), m[2]+" seconds", n, nil))
			t.claim(n, n+1)
		}
	}
	return found
}

var (
	vllmThroughputRE = prefilter.MustCompileLine(`^Throughput: ([\d.]+ requests/s(?:, [\d.]+ [\w ]*tokens/s)*)\s*$`)
	vllmRateRE       = prefilter.MustCompileLine(`^([\d.]+) (.+)$`)
)

// readVLLMThroughput reads vllm bench throughput's "Throughput: 70.77
// requests/s, 54350.30 total tokens/s, 18116.77 output tokens/s": the head
// and each unit phrase, "Throughput total tokens/s".
func readVLLMThroughput(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		m := vllmThroughputRE.FindStringSubmatch(l)
		if m == nil || t.claimed[n] {
			continue
		}
		for _, part := range strings.Split(m[1], ", ") {
			if r := vllmRateRE.FindStringSubmatch(part); r != nil {
				f := strings.Fields(r[2])
				found = appendBench(found, newBench("Throughput "+r[2], r[1], unit(f[len(f)-1]), part, n, nil))
			}
		}
		t.claim(n, n+1)
	}
	return found
}

var benchmarkJSRE = prefilter.MustCompileLine(`^(\S.*?) x ([\d,]+(?:\.\d+)?) ops/sec ±[\d.]+% \(\d+ runs? sampled\)\s*$`)

// readBenchmarkJS reads benchmark.js: "<name> x 1,234 ops/sec ±0.52% (95
// runs sampled)" gives "<name>" in ops/s; the spread and the runs are not
// numbers.
func readBenchmarkJS(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		if !strings.Contains(l, " ops/sec ±") || t.claimed[n] {
			continue
		}
		if m := benchmarkJSRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit("ops/s"), m[2]+" ops/sec", n, nil))
			t.claim(n, n+1)
		}
	}
	return found
}

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
func readTime(t *benchText) []*Bench {
	var found []*Bench
	wall := func(label, text string, n int) {
		if d, ok := duration(text); ok {
			found = appendBench(found, newBench(label, d, unit("s"), text, n, nil))
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
func readTimeit(t *benchText) []*Bench {
	var found []*Bench
	for n, l := range t.lines {
		if !strings.Contains(l, " per loop") || t.claimed[n] {
			continue
		}
		if m := timeitRE.FindStringSubmatch(l); m != nil {
			found = appendBench(found, newBench(m[1], m[2], unit(m[3]), m[2]+" "+m[3], n, nil))
			t.claim(n, n+1)
		}
	}
	return found
}

// --- test runners: what they print is not a benchmark --------------------

var (
	coverageHeaderRE = prefilter.MustCompileLine(`^Name\s+Stmts\s+Miss\b`)
	coverageBannerRE = prefilter.MustCompileLine(`\bcoverage: platform\b|^[=_-]+ .*coverage.* [=_-]+$|\b(?:[Tt]otal|[Rr]equired test) coverage\b`)
	testSummaryRE    = prefilter.MustCompileLine(`^\s*(?:Test Suites|Tests|Test Files):?\s+.*\b\d+ (?:passed|failed|total)\b`)
	testSummaryLine  = prefilter.MustCompileLine(`^\s*(?:Test Suites|Tests|Snapshots|Time|Test Files|Start at|Duration|Ran all test suites)\b`)
)

// readCoverage claims coverage.py's report: its percentages measure tests,
// not speed.
func readCoverage(t *benchText) []*Bench {
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
func readTestSummary(t *benchText) []*Bench {
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
