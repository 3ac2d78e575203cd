package analyzer

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/cputime"
	"github.com/retrace-dev/retrace/internal/synth"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// The analysis benchmarks run each pass over sessions read from three
// corpora: "claude-code", 8 MiB of Claude Code transcripts internal/synth
// draws with the mix of calls real ones have; "mixed", 2 MiB in each format
// synth writes; and "real", the transcripts of ../shared/corpus when they
// are there. MB/s is of the transcript bytes the sessions were read from,
// so that each pass's figure compares with the decoders' and with the
// whole command's.

// A benchCorpus is a set of parsed sessions and the bytes they came from.
type benchCorpus struct {
	name     string
	sessions []*parser.Session
	size     int64
}

var (
	benchCorporaOnce sync.Once
	benchCorpora     []benchCorpus
)

func corpora(b *testing.B) []benchCorpus {
	b.Helper()
	benchCorporaOnce.Do(func() {
		add := func(name string, files [][]byte) {
			c := benchCorpus{name: name}
			for _, d := range files {
				s, err := parser.Parse(bytes.NewReader(d), "bench", nil)
				if err != nil {
					continue // the shared corpus holds a few files of no known format
				}
				c.sessions = append(c.sessions, s)
				c.size += int64(len(d))
			}
			if len(c.sessions) > 0 {
				benchCorpora = append(benchCorpora, c)
			}
		}
		files, err := synth.Transcripts("claude-code", 1, 8<<20)
		if err != nil {
			panic(err)
		}
		add("claude-code", files)
		var mixed [][]byte
		for _, f := range synth.Formats {
			files, err := synth.Transcripts(f.Name, 2, 2<<20)
			if err != nil {
				panic(err)
			}
			mixed = append(mixed, files...)
		}
		add("mixed", mixed)
		paths, _ := filepath.Glob(filepath.Join(corpus, "*", "*"))
		var real [][]byte
		for _, p := range paths {
			if d, err := os.ReadFile(p); err == nil {
				real = append(real, d)
			}
		}
		add("real", real)
	})
	return benchCorpora
}

// runCorpora runs fn as one sub-benchmark per corpus, prepared by prepare
// outside the timer.
func runCorpora[T any](b *testing.B, prepare func(c benchCorpus) T, fn func(T)) {
	for _, c := range corpora(b) {
		b.Run(c.name, func(b *testing.B) {
			data := prepare(c)
			b.SetBytes(c.size)
			b.ReportAllocs()
			cpu := cputime.Used()
			for b.Loop() {
				fn(data)
			}
			if cpu = cputime.Used() - cpu; cpu > 0 {
				b.ReportMetric(float64(c.size)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
			}
		})
	}
}

func sessionsOf(c benchCorpus) []*parser.Session { return c.sessions }

func analysesOf(c benchCorpus) []*sessionAnalysis {
	var as []*sessionAnalysis
	for _, s := range c.sessions {
		as = append(as, newSessionAnalysis(s))
	}
	return as
}

// BenchmarkAnalyzeSession measures every pass over each session: what the
// commands run after parsing.
func BenchmarkAnalyzeSession(b *testing.B) {
	runCorpora(b, sessionsOf, func(ss []*parser.Session) {
		for _, s := range ss {
			AnalyzeSession(s)
		}
	})
}

// BenchmarkParseCommand measures the shell parser on every shell call.
func BenchmarkParseCommand(b *testing.B) {
	runCorpora(b, sessionsOf, func(ss []*parser.Session) {
		for _, s := range ss {
			for _, c := range s.Calls {
				if c.Kind == parser.KindShell {
					shell.Parse(c.Command)
				}
			}
		}
	})
}

// BenchmarkDiagnose measures failure detection on every call, with its
// command already parsed.
func BenchmarkDiagnose(b *testing.B) {
	type call struct {
		c   *parser.Call
		cmd *shell.Command
	}
	runCorpora(b, func(c benchCorpus) []call {
		var calls []call
		for _, s := range c.sessions {
			for _, c := range s.Calls {
				var cmd *shell.Command
				if c.Kind == parser.KindShell {
					cmd = shell.Parse(c.Command)
				}
				calls = append(calls, call{c, cmd})
			}
		}
		return calls
	}, func(calls []call) {
		for _, x := range calls {
			diagnose.Call(x.c, x.cmd)
		}
	})
}

// BenchmarkBenchmarks measures benchmark extraction from every call.
func BenchmarkBenchmarks(b *testing.B) {
	runCorpora(b, analysesOf, func(as []*sessionAnalysis) {
		for _, a := range as {
			a.benchmarks()
		}
	})
}

// BenchmarkPair measures the pairing of failures with their fixes.
func BenchmarkPair(b *testing.B) {
	runCorpora(b, analysesOf, func(as []*sessionAnalysis) {
		for _, a := range as {
			a.pair()
		}
	})
}

// BenchmarkLessons measures drawing the lessons of all the sessions, and
// the benchmark timelines.
func BenchmarkLessons(b *testing.B) {
	runCorpora(b, func(c benchCorpus) []*SessionReport {
		var reps []*SessionReport
		for _, s := range c.sessions {
			reps = append(reps, AnalyzeSession(s))
		}
		return reps
	}, func(reps []*SessionReport) {
		Lessons(reps)
		Timelines(reps)
	})
}
