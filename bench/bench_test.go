package bench

import (
	"flag"
	"fmt"
	"maps"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/shell"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// callBench reads the numbers of the output of a command line, as the
// analysis of a session does.
func callBench(cmd *shell.Command, out string, opts Options) []*Result {
	return Read(Measured(cmd, opts), out, opts)
}

// extractBench reads the numbers of an output whose command is unknown.
func extractBench(out string) []*Result {
	return extract(nil, out, Options{})
}

// benchLines prints extracted numbers one per line: label = value unit
// [context].
func benchLines(bench []*Result) []string {
	var out []string
	for _, b := range bench {
		s := fmt.Sprintf("%s = %g %s", b.Label, b.Value, b.Unit)
		if len(b.Context) > 0 {
			var ctx []string
			for _, k := range slices.Sorted(maps.Keys(b.Context)) {
				ctx = append(ctx, k+"="+b.Context[k])
			}
			s += " [" + strings.Join(ctx, " ") + "]"
		}
		out = append(out, s)
	}
	return out
}

func TestExtractBench(t *testing.T) {
	tests := []struct {
		name string
		out  string
		want []string
	}{
		{"label colon value unit", "Average: 71.1 tok/s\n", []string{"Average = 71.1 tok/s"}},
		{"several on a line under one head", "Latency: mean 2.30s, p50 2.29s, p99 2.41s\n",
			[]string{"Latency mean = 2.3 s", "Latency p50 = 2.29 s", "Latency p99 = 2.41 s"}},
		{"units normalized", "throughput: 1200 tokens/sec\nlatency: 850 µs\nbw: 3.2 GiB/s\nstep: 500 ns\n",
			[]string{"throughput = 1200 tok/s", "latency = 850 us", "bw = 3.435974 GB/s", "step = 0.5 us"}},
		{"ratio and percent", "Speedup: 2.88x\naccept rate: 47.0%\n", []string{"Speedup = 2.88 x", "accept rate = 47 %"}},
		{"key=value context on the line", "C=1: throughput 86.8 tok/s\n", []string{"throughput = 86.8 tok/s [c=1]"}},
		{"at context", "Peak: 775.0 tok/s at concurrency 64\n", []string{"Peak = 775 tok/s [concurrency=64]"}},
		{"section header context", "=== Concurrency 4 ===\nThroughput: 268.9 tok/s\n=== Concurrency 8 ===\nThroughput: 402.6 tok/s\n",
			[]string{"Throughput = 268.9 tok/s [concurrency=4]", "Throughput = 402.6 tok/s [concurrency=8]"}},
		{"table with unit columns", "Concurrency | Requests | Total tok/s | Mean latency (s)\n------------+----------+-------------+-----------------\n          1 |       20 |        87.1 |             2.30\n         64 |       20 |       775.0 |            16.52\nDone.\n",
			[]string{"Total tok/s = 87.1 tok/s [concurrency=1]", "Mean latency (s) = 2.3 s [concurrency=1]", "Total tok/s = 775 tok/s [concurrency=64]", "Mean latency (s) = 16.52 s [concurrency=64]"}},
		{"space-aligned table", "batch  samples/s  latency (ms)\n8      1520.5     5.26\n16     2210.0     7.24\n",
			[]string{"samples/s = 1520.5 samples/s [batch=8]", "latency (ms) = 5.26 ms [batch=8]", "samples/s = 2210 samples/s [batch=16]", "latency (ms) = 7.24 ms [batch=16]"}},
		// Numbers that are not results.
		{"pip download", "Collecting torch\n  Downloading torch-2.5.1-cp311-cp311-manylinux1_x86_64.whl (906.4 MB)\n     ━━━━━━━━━━━━━━━━━━━━━━ 906.4/906.4 MB 48.3 MB/s eta 0:00:00\n", nil},
		{"tqdm progress", "100%|██████████| 50/50 [00:12<00:00,  4.01it/s]\n", nil},
		{"unlabelled", "71.1 tok/s\n", nil},
		{"versions ports and times", "Python 3.11.7 on port 30000 at 10:43:09.635\n", nil},
		{"per-run lines with a comma list", "Run 1: 500 tokens, 7.04s, 71.0 tok/s\n", []string{"Run 1 = 7.04 s", "Run 1 = 71 tok/s"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := benchLines(extractBench(tt.out))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("extractBench(%q) (-want +got):\n%s", tt.out, diff)
			}
		})
	}
}

// TestConvert checks how a printed number reads: six decimals where they
// keep its digits, its own digits where they would not, and no value out
// of float64's range.
func TestConvert(t *testing.T) {
	mib := big.NewRat(1048576, 1000000000)
	for _, tt := range []struct {
		num    string
		factor *big.Rat
		want   float64
		ok     bool
	}{
		{"1,234.5", nil, 1234.5, true},
		{"−2.5", nil, -2.5, true},
		{"1.23456789", nil, 1.234568, true},
		{"4.158", mib, 0.00436, true},
		{"2.5e+03", nil, 2500, true},
		{"1E6", nil, 1e6, true},
		{"3e-7", nil, 3e-7, true},
		{"1e-320", nil, 1e-320, true},
		{"1e-400", nil, 0, false},
		{"1e309", nil, 0, false},
		{"1e999999999", nil, 0, false},
		{"", nil, 0, false},
	} {
		got, ok := convert(tt.num, tt.factor)
		if got != tt.want || ok != tt.ok {
			t.Errorf("convert(%q) = %v, %v; want %v, %v", tt.num, got, ok, tt.want, tt.ok)
		}
	}
}
