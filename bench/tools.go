package bench

import (
	"math/big"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// A reader reads the results of one benchmarking tool, recognized by the
// shape of its output. It claims the lines it reads (all of them when the
// output is the tool's alone), so that the generic reading skips them, and
// returns their numbers labelled with the tool's metric names.
type reader struct {
	name string
	read func(t *output) []*Result
}

// readers lists the tools' readers in the order they run. Each family of
// tools has a file, as its cases have one in testdata/bench.
var readers = []reader{
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
func (t *output) find(re *prefilter.Regexp) int {
	for n, l := range t.lines {
		if !t.claimed[n] && re.MatchString(l) {
			return n
		}
	}
	return -1
}

// eachLine reads the results of a tool that prints one a line: each
// unclaimed line that passes the cheap test has and that re matches gives
// the result read makes of re's submatches and the line's index, and is
// claimed.
func (t *output) eachLine(has func(l string) bool, re *prefilter.Regexp, read func(m []string, n int) *Result) []*Result {
	var found []*Result
	for n, l := range t.lines {
		if !has(l) || t.claimed[n] {
			continue
		}
		if m := re.FindStringSubmatch(l); m != nil {
			found = appendResult(found, read(m, n))
			t.claim(n, n+1)
		}
	}
	return found
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
