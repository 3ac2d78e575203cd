package bench

import (
	"math/big"
	"strconv"
	"strings"

	"golang.org/x/perf/benchfmt"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// Go's benchmarks: go test -bench, read with golang.org/x/perf/benchfmt,
// and benchstat's comparisons. Cases: testdata/bench/go-test.txtar.

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
func readGoBench(t *output) []*Result {
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
	var found []*Result
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
			found = appendResult(found, newResult(name+" "+un, num, unit(un), text+" "+un, n, copyContext(ctx)))
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
func readBenchstat(t *output) []*Result {
	var found []*Result
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
					found = appendResult(found, newResult(label, m[1], benchstatUnit(metric[j], m[2]), tok[i]+" "+metric[j], end, copyContext(ctx)))
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
						found = appendResult(found, newResult(tok[0]+" "+metric[j]+" vs base", num, unit("%"), d, end, copyContext(ctx)))
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
