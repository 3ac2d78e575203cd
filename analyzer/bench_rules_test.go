package analyzer

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/parser"
)

// markedLines prints numbers as benchLines does, with "(baseline)" after
// those marked as baselines.
func markedLines(bench []*Bench) []string {
	out := benchLines(bench)
	for i, b := range bench {
		if b.Baseline {
			out[i] += " (baseline)"
		}
	}
	return out
}

// TestCallBench covers shapes and traps beyond testdata/bench.
func TestCallBench(t *testing.T) {
	tests := []struct {
		name, cmd, out string
		want           []string
	}{
		{"unitless baseline takes the number before it", "python3 b.py",
			"Throughput: 86.8 tok/s (baseline 92.7)\n",
			[]string{"Throughput = 86.8 tok/s", "Throughput = 92.7 tok/s (baseline)"}},
		{"labelled baseline", "python3 b.py",
			"baseline: 92.7 tok/s\noptimized: 120.1 tok/s\n",
			[]string{"baseline = 92.7 tok/s (baseline)", "optimized = 120.1 tok/s"}},
		{"baseline after the number", "python3 b.py",
			"eager 53.8 ms baseline, fused 23.5 ms\n",
			[]string{"eager = 53.8 ms (baseline)", "fused = 23.5 ms"}},
		{"a comparison with the baseline is a result", "python3 b.py",
			"Speedup vs baseline: 1.3x\n",
			[]string{"Speedup vs baseline = 1.3 x"}},
		{"delays and limits are not results", "python3 b.py",
			"Waiting up to 60s for the server\nretry in 10s\nSleeping 5s\nServer ready in 0.4s\ntimeout 30s\nless than 5 ms\n", nil},
		{"words in titles are not units", "python3 b.py",
			"- Programming iOS 5 Second Edition\n", nil},
		{"minutes", "python3 train.py", "Total time: 12.5 minutes\n", []string{"Total time = 750 s"}},
		{"the words after the last other number label it", "python3 train.py",
			"Step 10/100 loss 2.3 time 0.5s\n", []string{"time = 0.5 s"}},
		{"coverage reports are not results", "pytest --cov=pkg",
			"---------- coverage: platform linux, python 3.11.2-final-0 ----------\nName          Stmts   Miss  Cover\n---------------------------------\npkg/a.py         10      1    90%\nTOTAL            10      1    90%\n", nil},
		{"jest's summary is not a result", "npm test",
			"Test Suites: 1 passed, 1 total\nTests:       5 passed, 5 total\nTime:        6.1 s\n", nil},
		{"benchmark.js", "node bench.js",
			"fib x 1,234,567 ops/sec ±0.52% (95 runs sampled)\nFastest is fib\n",
			[]string{"fib = 1.234567e+06 ops/s"}},
		{"libtest bencher", "cargo bench",
			"running 1 test\ntest bench_a ... bench:       1,234 ns/iter (+/- 56)\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 1 measured; 0 filtered out; finished in 2.31s\n",
			[]string{"bench_a ns/iter = 1.234 us"}},
		{"zsh time", "time python3 b.py",
			"python3 b.py  0.60s user 0.02s system 99% cpu 1:02.50 total\n",
			[]string{"total = 62.5 s"}},
		{"escape sequences", "hyperfine 'sleep 0.1'",
			"Benchmark 1: sleep 0.1\n  \x1b[1mTime \x1b[0m(\x1b[32mmean\x1b[0m ± \x1b[32mσ\x1b[0m):     \x1b[32m102.3 ms\x1b[0m ±   \x1b[32m0.4 ms\x1b[0m    [User: 0.9 ms, System: 1.0 ms]\n",
			[]string{"sleep 0.1 mean = 102.3 ms", "sleep 0.1 σ = 0.4 ms", "sleep 0.1 User = 0.9 ms", "sleep 0.1 System = 1 ms"}},
		{"fio with several jobs", "fio jobs.fio",
			"a: (groupid=0, jobs=1): err= 0: pid=1\n  read: IOPS=100, BW=1MiB/s (1MB/s)(1MiB/1msec)\nb: (groupid=1, jobs=1): err= 0: pid=2\n  read: IOPS=200, BW=2MiB/s (2MB/s)(2MiB/1msec)\n",
			[]string{"read IOPS = 100 ops/s [job=a]", "read BW = 0.001049 GB/s [job=a]", "read IOPS = 200 ops/s [job=b]", "read BW = 0.002097 GB/s [job=b]"}},
		{"a container's command", "docker run --rm --gpus all -e X=1 img python3 bench.py --batch 8",
			"throughput: 1234 samples/sec\n", []string{"throughput = 1234 samples/s [batch=8]"}},
		{"a server's log", "vllm serve m --port 8000",
			"INFO 06-23 13:45:13 [loader.py:272] Loading weights took 1.56 seconds\nAvg generation throughput: 77.2 tokens/s\n", nil},
		{"version control", "git log --stat", "perf: 2.4x faster, p99 18.9s -> 6.5s\n", nil},
		{"network probes", "ping -c 2 host", "64 bytes from host: icmp_seq=1 ttl=64 time=0.05 ms\n", nil},
		{"nvidia-smi without the GPU option", "nvidia-smi --query-gpu=utilization.gpu --format=csv",
			"utilization.gpu [%]\n45 %\n", nil},
		{"a failed build", "go build ./...", "ok  \tx\t0.1s\nbuilt in 1.2s\n", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := markedLines(callBench(ParseCommand(tt.cmd), tt.out, BenchOptions{}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%s: %q (-want +got):\n%s", tt.cmd, tt.out, diff)
			}
		})
	}
}

// smiTable is an nvidia-smi table with two GPUs.
const smiTable = `Mon Apr  3 23:59:20 2023
+-----------------------------------------------------------------------------+
| NVIDIA-SMI 525.105.17   Driver Version: 525.105.17   CUDA Version: 12.0     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla P100-PCIE...  Off  | 00000000:03:00.0 Off |                    0 |
| N/A   35C    P0    31W / 250W |      0MiB / 12288MiB |     57%      Default |
+-------------------------------+----------------------+----------------------+
|   1  Tesla P100-PCIE...  Off  | 00000000:0B:00.0 Off |                    0 |
| N/A   34C    P0    27W / 250W |      0MiB / 12288MiB |      2%      Default |
+-------------------------------+----------------------+----------------------+
`

// TestGPUOption checks that nvidia-smi's readings count only when asked
// for, and only when nvidia-smi is the command run.
func TestGPUOption(t *testing.T) {
	tests := []struct {
		cmd, out string
		gpu      bool
		want     []string
	}{
		{"nvidia-smi", smiTable, false, nil},
		{"nvidia-smi", smiTable, true, []string{"GPU-Util = 57 % [gpu=0]", "GPU-Util = 2 % [gpu=1]"}},
		{"python3 train.py && nvidia-smi", smiTable, true, nil},
		{"nvidia-smi --query-gpu=index,utilization.gpu,memory.used --format=csv",
			"index, utilization.gpu [%], memory.used [MiB]\n0, 45 %, 1234 MiB\n", true,
			[]string{"utilization.gpu = 45 % [format=csv gpu=0 query-gpu=index,utilization.gpu,memory.used]"}},
	}
	for _, tt := range tests {
		got := benchLines(callBench(ParseCommand(tt.cmd), tt.out, BenchOptions{GPU: tt.gpu}))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s, GPU %v (-want +got):\n%s", tt.cmd, tt.gpu, diff)
		}
	}
	s := session(step{cmd: "nvidia-smi", out: smiTable})
	if got := len(AnalyzeSession(s).Benchmarks); got != 0 {
		t.Errorf("AnalyzeSession: %d numbers from nvidia-smi, want none by default", got)
	}
	if got := len(Benchmarks(s, BenchOptions{GPU: true})); got != 2 {
		t.Errorf("Benchmarks with GPU: %d numbers, want 2", got)
	}
}

// TestCommandContext checks which options of a command are context.
func TestCommandContext(t *testing.T) {
	tests := []struct {
		cmd  string
		want map[string]string
	}{
		{"python3 b.py --max-tokens 500 --num-runs=5 --server-url http://h:8000 --ignore-eos",
			map[string]string{"max-tokens": "500", "num-runs": "5"}},
		{"python3 b.py --concurrency 1 2 4 --label fast", map[string]string{"concurrency": "1 2 4", "label": "fast"}},
		{"wrk -t2 -c32 -d5s --latency http://127.0.0.1/", map[string]string{"t": "2", "c": "32", "d": "5s"}},
		{"gzip -c data.bin", map[string]string{}},
		{"go test -run '^$' -bench . -benchmem ./...", map[string]string{"run": "^$", "bench": "."}},
		{"hyperfine -N -P n 1 3 --warmup 2 'seq {n}'", map[string]string{"warmup": "2"}},
		{"cargo bench --bench encode -- --save-baseline main", map[string]string{"bench": "encode"}},
		{"python3 b.py --table_size=10 --api-key sk-123 --hf-token t --max-token 5", map[string]string{"table-size": "10", "max-token": "5"}},
		{"ssh h 'timeout 60 env A=1 python3 b.py --n 5 2>&1 | tail -n 3'", map[string]string{"n": "5"}},
	}
	for _, tt := range tests {
		got := commandContext(ParseCommand(tt.cmd))
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("commandContext(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

// TestBenchInSession checks what the analysis adds to each number: the
// session, the call, the target of the command that printed it, the call's
// start, and the baselines the assistant states in its text.
func TestBenchInSession(t *testing.T) {
	s := session(
		step{cmd: "pip install -r r.txt && python3 bench.py --n 5", out: "Average: 71.1 tok/s\n"},
		step{cmd: "git status", out: ""},
	)
	s.Calls[1].Text = "Still below the 92.7 tok/s baseline."
	got := AnalyzeSession(s).Benchmarks
	var lines []string
	for _, b := range got {
		lines = append(lines, fmt.Sprintf("%s %s %s %s %g %s %v %q %s %v", b.Session.Path, b.CallID, b.Target, b.Label, b.Value, b.Unit,
			slices.Sorted(maps.Keys(b.Context)), b.Source, b.Time.Format(time.TimeOnly), b.Baseline))
	}
	want := []string{
		`t.jsonl c1 bench.py Average 71.1 tok/s [n] "" 00:00:00 false`,
		`t.jsonl c2 bench.py baseline 92.7 tok/s [] "text" 00:00:01 true`,
	}
	if diff := cmp.Diff(want, lines); diff != "" {
		t.Errorf("benchmarks (-want +got):\n%s", diff)
	}
}

// TestBenchNoTime checks that a call without a start gives numbers without
// a time.
func TestBenchNoTime(t *testing.T) {
	s := &parser.Session{Path: "x", Calls: []*parser.Call{{ID: "#1", Kind: parser.KindShell, Tool: "Bash", Command: "python3 b.py", Output: "Average: 1 tok/s\n"}}}
	got := AnalyzeSession(s).Benchmarks
	if len(got) != 1 || !got[0].Time.IsZero() {
		t.Errorf("benchmarks = %v, want one without a time", benchLines(got))
	}
}

// TestBenchLines checks that every number points at the line it was read
// from.
func TestBenchLines(t *testing.T) {
	for _, c := range benchCases(t) {
		lines := outputLines(c.out)
		for _, b := range callBench(ParseCommand(c.cmd), c.out, BenchOptions{}) {
			if b.Line < 1 || b.Line > len(lines) {
				t.Errorf("%s/%s: %s: line %d out of range", c.file, c.name, b.Label, b.Line)
				continue
			}
			num := strings.TrimLeft(b.Text, "+")
			if i := strings.IndexAny(num, " %"); i > 0 {
				num = num[:i]
			}
			if !strings.Contains(lines[b.Line-1], num) {
				t.Errorf("%s/%s: %s: %q not on line %d %q", c.file, c.name, b.Label, num, b.Line, lines[b.Line-1])
			}
		}
	}
}
