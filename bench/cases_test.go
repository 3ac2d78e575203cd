package bench

import (
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/retrace-dev/retrace/shell"
)

// A benchCase is one case of testdata/bench: a command line, its output
// and the numbers expected from them.
type benchCase struct {
	file, name string
	cmd, out   string
	want       []string // nil for "none"
}

// benchCases reads testdata/bench/*.txtar. Each case NAME has the files
// NAME.cmd, NAME.out and NAME.want; the archive's comment states the
// conventions its wants follow.
func benchCases(t testing.TB) []benchCase {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "bench", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no bench cases: %v", err)
	}
	var cases []benchCase
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		parts := map[string]map[string]string{}
		var order []string
		for _, f := range ar.Files {
			i := strings.LastIndexByte(f.Name, '.')
			if i < 0 {
				t.Fatalf("%s: file %q has no suffix", file, f.Name)
			}
			name, suffix := f.Name[:i], f.Name[i+1:]
			if parts[name] == nil {
				parts[name] = map[string]string{}
				order = append(order, name)
			}
			parts[name][suffix] = string(f.Data)
		}
		base := strings.TrimSuffix(filepath.Base(file), ".txtar")
		for _, name := range order {
			p := parts[name]
			for _, suffix := range []string{"cmd", "out", "want"} {
				if _, ok := p[suffix]; !ok {
					t.Fatalf("%s: case %s has no %s", file, name, suffix)
				}
			}
			c := benchCase{file: base, name: name, cmd: strings.TrimSpace(p["cmd"]), out: p["out"]}
			for line := range strings.Lines(p["want"]) {
				if line = strings.TrimSpace(line); line != "" && line != "none" {
					c.want = append(c.want, line)
				}
			}
			cases = append(cases, c)
		}
	}
	return cases
}

// TestBenchCases runs every case of testdata/bench through the path a
// successful shell call takes and compares with its want.
func TestBenchCases(t *testing.T) {
	cases := benchCases(t)
	pass := 0
	for _, c := range cases {
		ok := t.Run(c.file+"/"+c.name, func(t *testing.T) {
			got := benchLines(callBench(shell.Parse(c.cmd), c.out, Options{}))
			if diff := cmp.Diff(c.want, got); diff != "" {
				t.Errorf("%s (-want +got):\n%s", c.cmd, diff)
			}
		})
		if ok {
			pass++
		}
	}
	t.Logf("%d/%d cases pass", pass, len(cases))
}

// FuzzCallBench checks that no command line and output make the benchmark
// reading panic, and that every number is finite, labelled, normalized and
// points at a line of the output. It is seeded with testdata/bench.
func FuzzCallBench(f *testing.F) {
	for _, c := range benchCases(f) {
		f.Add(c.cmd, c.out, false)
	}
	f.Add("nvidia-smi", smiTable, true)
	normalized := map[string]bool{"tok/s": true, "req/s": true, "ms": true, "s": true, "us": true, "GB/s": true,
		"it/s": true, "samples/s": true, "ops/s": true, "%": true, "x": true}
	f.Fuzz(func(t *testing.T, cmd, out string, gpu bool) {
		lines := len(outputLines(out))
		for _, b := range callBench(shell.Parse(cmd), out, Options{GPU: gpu}) {
			if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) || b.Label == "" || !normalized[b.Unit] {
				t.Errorf("bad number %+v", b)
			}
			if b.Line < 1 || b.Line > lines {
				t.Errorf("line %d of %d: %+v", b.Line, lines, b)
			}
		}
	})
}

// FuzzExtractBench checks that benchmark extraction never panics and gives
// finite numbers with a unit and a label.
func FuzzExtractBench(f *testing.F) {
	for _, o := range caseOutputs(f) {
		f.Add(o)
	}
	f.Add("Concurrency | Total tok/s\n1 | 87.1\n=== C 4 ===\nAverage: 71.1 tok/s at batch 8")
	f.Fuzz(func(t *testing.T, out string) {
		for _, b := range extractBench(out) {
			if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) || b.Unit == "" || b.Label == "" {
				t.Errorf("bad number %+v", b)
			}
		}
	})
}
