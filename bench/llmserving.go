package bench

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// LLM serving benchmarks: vLLM's and SGLang's bench_serving, SGLang's
// bench_one_batch, vllm bench latency and throughput. Cases:
// testdata/bench/llm-serving.txtar.

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
func readServingResult(t *output) []*Result {
	var found []*Result
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
				found = appendResult(found, newResult(listHead+" "+m[1], m[2], listUnit, m[2], i, nil))
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
			found = appendResult(found, newResult(label, value, unit(u[1]), value, i, nil))
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
func readOneBatch(t *output) []*Result {
	if t.find(obPrefillRE) < 0 {
		return nil
	}
	counting := !slices.ContainsFunc(t.lines, func(l string) bool { return strings.TrimSpace(l) == "Benchmark ..." })
	var found []*Result
	two := func(name, lat, thr string, n int) {
		if counting {
			found = appendResult(found, newResult(name+" latency", lat, unit("s"), lat+" s", n, nil),
				newResult(name+" throughput", thr, unit("token/s"), thr+" token/s", n, nil))
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
func readVLLMLatency(t *output) []*Result {
	has := func(l string) bool { return strings.HasSuffix(strings.TrimSpace(l), " seconds") }
	return t.eachLine(has, vllmLatencyRE, func(m []string, n int) *Result {
		return newResult(m[1], m[2], unit("s"), m[2]+" seconds", n, nil)
	})
}

var (
	vllmThroughputRE = prefilter.MustCompileLine(`^Throughput: ([\d.]+ requests/s(?:, [\d.]+ [\w ]*tokens/s)*)\s*$`)
	vllmRateRE       = prefilter.MustCompileLine(`^([\d.]+) (.+)$`)
)

// readVLLMThroughput reads vllm bench throughput's "Throughput: 70.77
// requests/s, 54350.30 total tokens/s, 18116.77 output tokens/s": the head
// and each unit phrase, "Throughput total tokens/s".
func readVLLMThroughput(t *output) []*Result {
	var found []*Result
	for n, l := range t.lines {
		m := vllmThroughputRE.FindStringSubmatch(l)
		if m == nil || t.claimed[n] {
			continue
		}
		for _, part := range strings.Split(m[1], ", ") {
			if r := vllmRateRE.FindStringSubmatch(part); r != nil {
				f := strings.Fields(r[2])
				found = appendResult(found, newResult("Throughput "+r[2], r[1], unit(f[len(f)-1]), part, n, nil))
			}
		}
		t.claim(n, n+1)
	}
	return found
}
