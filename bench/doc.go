// Package bench reads the numbers benchmarks print, as
// golang.org/x/perf/benchfmt reads Go's: a command and its output in,
// Results out, each a label, a value in a normalized unit (tok/s, req/s,
// ms, s, us, GB/s, it/s, samples/s, ops/s, %, x), the parameters it was
// measured with, and the line it was printed on.
//
// Measured says whether a command line measures at all (a listing, a
// search, help text, an install, a build or a server's log does not) and
// which of its commands; Read reads that command's output: first with the
// readers of the tools it knows by the shape of their output (go test
// -bench, benchstat, hyperfine, wrk, fio, vLLM's and SGLang's benchmarks,
// time …; tools.go lists them in order, one file per family, as
// testdata/bench has one file of cases per family), then the lines none
// of them took with a generic reading of labels, tables and sections.
// Stated baselines ("baseline 92.7 tok/s") are marked, not runs.
package bench
