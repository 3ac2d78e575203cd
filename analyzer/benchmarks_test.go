package analyzer

import (
	"fmt"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/bench"
	"github.com/retrace-dev/retrace/parser"
)

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
		t.Errorf("benchmarks = %v, want one without a time", numberLabels(got))
	}
}

// TestEscapesReadAlike checks that failure diagnosis and benchmark reading
// take the same escape sequences out of an output: an xterm key mode
// ("\x1b[>4;2m"), a character set ("\x1b(B", which tput sgr0 prints), a
// saved cursor ("\x1b7") and a title without its terminator.
func TestEscapesReadAlike(t *testing.T) {
	const escapes = "\x1b[>4;2m\x1b(B\x1b7"
	rep := AnalyzeSession(session(
		step{cmd: "python3 b.py", out: escapes + "Throughput:\x1b[0m 86.8 tok/s\n\x1b]0;done"},
		step{cmd: "make", exit: 2, out: escapes + "make: *** No rule to make target 'x'.  Stop.\n"},
	))
	if got, want := numberLabels(rep.Benchmarks), []string{"Throughput = 86.8 tok/s"}; !slices.Equal(got, want) {
		t.Errorf("numbers = %q, want %q", got, want)
	}
	if len(rep.Failures) != 1 || rep.Failures[0].Parser != "make" || rep.Failures[0].Message != "No rule to make target 'x'." {
		t.Errorf("failures = %+v, want make's usage error", rep.Failures)
	}
}

// numberLabels prints numbers as "label = value unit".
func numberLabels(bs []*Bench) []string {
	var out []string
	for _, b := range bs {
		out = append(out, fmt.Sprintf("%s = %g %s", b.Label, b.Value, b.Unit))
	}
	return out
}

// TestBenchSkipsViewers checks that numbers in files being read, searched
// or listed, or in help text, are not taken as results.
func TestBenchSkipsViewers(t *testing.T) {
	out := "Average: 71.1 tok/s\n"
	for _, tt := range []struct {
		cmd  string
		want int
	}{
		{"python bench.py", 1},
		{"cat results.txt", 0},
		{"grep tok/s bench.log", 0},
		{"head -30 bench.py", 0},
		{"python bench.py --help", 0},
	} {
		rep := AnalyzeSession(session(step{cmd: tt.cmd, out: out}))
		if got := len(rep.Benchmarks); got != tt.want {
			t.Errorf("%s: %d numbers, want %d", tt.cmd, got, tt.want)
		}
	}
}

func TestBenchOfFailedRun(t *testing.T) {
	rep := AnalyzeSession(session(step{cmd: "python bench.py --n 5", exit: 1, out: "Average: 12.5 tok/s\nTraceback (most recent call last):\n  File \"bench.py\", line 3, in <module>\nRuntimeError: server went away\n"}))
	if len(rep.Benchmarks) != 1 || !rep.Benchmarks[0].Failed {
		t.Errorf("benchmarks = %v, want one marked failed", numberLabels(rep.Benchmarks))
	}
	if got := rep.Benchmarks[0].Context["n"]; got != "5" {
		t.Errorf("context n = %q, want the command's --n 5", got)
	}
}

// TestGPUOptionInSession checks that nvidia-smi's readings count in a
// session only when asked for.
func TestGPUOptionInSession(t *testing.T) {
	s := session(step{cmd: "nvidia-smi --query-gpu=index,utilization.gpu --format=csv",
		out: "index, utilization.gpu [%]\n0, 45 %\n1, 2 %\n"})
	if got := len(AnalyzeSession(s).Benchmarks); got != 0 {
		t.Errorf("AnalyzeSession: %d numbers from nvidia-smi, want none by default", got)
	}
	if got := len(Benchmarks(s, bench.Options{GPU: true})); got != 2 {
		t.Errorf("Benchmarks with GPU: %d numbers, want 2", got)
	}
}
