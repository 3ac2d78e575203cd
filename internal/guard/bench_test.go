package guard

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/retrace-dev/retrace/internal/cputime"
	"github.com/retrace-dev/retrace/internal/synth"
)

// benchSize is the size of the transcript BenchmarkGuard answers about.
const benchSize = 50 << 20

// benchLessons is the number of lessons in its store.
const benchLessons = 10000

// BenchmarkGuard measures what the guard takes to answer one PreToolUse
// payload, in the process (the start of a process is not counted): about
// a Claude Code session of 50 MB with a store of 10 000 lessons. "cold"
// has no state for the transcript, and reads it whole; "warm" answers
// after each call of the session appended its records (about 8 KB), as
// an agent's calls come one after the other. It reports the median and
// the 99th percentile of the calls (p50-ms, p99-ms) and of the CPU time
// each took; run it with a count of calls: go test -run '^$' -bench Guard
// -benchtime 200x ./internal/guard.
func BenchmarkGuard(b *testing.B) {
	dir := b.TempDir()
	head, tail := benchTranscript(b)
	store := Store{Path: filepath.Join(dir, "lessons.jsonl")}
	if _, err := store.Replace(nil, benchStore()); err != nil {
		b.Fatal(err)
	}
	path := filepath.Join(dir, "session.jsonl")
	p := &Payload{Agent: ClaudeCode, Event: "PreToolUse", Before: true, Transcript: path,
		Tool: "Bash", Command: "python train.py --epochs 3 --out /tmp/run"}
	g := Guard{Store: store}
	b.Run("cold", func(b *testing.B) {
		if err := os.WriteFile(path, head, 0o644); err != nil {
			b.Fatal(err)
		}
		var times, cpu []time.Duration
		for b.Loop() {
			if err := os.RemoveAll(store.stateDir()); err != nil {
				b.Fatal(err)
			}
			start, used := time.Now(), cputime.Used()
			if _, err := g.Handle(p); err != nil {
				b.Fatal(err)
			}
			times, cpu = append(times, time.Since(start)), append(cpu, cputime.Used()-used)
		}
		percentiles(b, times, cpu)
	})
	b.Run("warm", func(b *testing.B) {
		if err := os.WriteFile(path, head, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := g.Handle(p); err != nil {
			b.Fatal(err)
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		defer f.Close()
		var times, cpu []time.Duration
		i := 0
		for b.Loop() {
			// The records of the next call: its tool_use, its result
			// and what came between, taken in turn from the rest of
			// the session (replayed ones are read as such).
			b.StopTimer()
			if _, err := f.Write(tail[i%len(tail)]); err != nil {
				b.Fatal(err)
			}
			i++
			b.StartTimer()
			start, used := time.Now(), cputime.Used()
			if _, err := g.Handle(p); err != nil {
				b.Fatal(err)
			}
			times, cpu = append(times, time.Since(start)), append(cpu, cputime.Used()-used)
		}
		percentiles(b, times, cpu)
	})
}

// percentiles reports the median and the 99th percentile of the calls'
// times, and of the CPU time the process used during each (steadier on a
// machine that is shared).
func percentiles(b *testing.B, times, cpu []time.Duration) {
	if len(times) == 0 {
		return
	}
	at := func(d []time.Duration, q float64) float64 {
		slices.Sort(d)
		return float64(d[min(len(d)-1, int(q*float64(len(d))))]) / 1e6
	}
	b.ReportMetric(at(times, 0.50), "p50-ms")
	b.ReportMetric(at(times, 0.99), "p99-ms")
	b.ReportMetric(at(cpu, 0.50), "cpu-p50-ms")
	b.ReportMetric(at(cpu, 0.99), "cpu-p99-ms")
}

// benchTranscript returns a Claude Code session of benchSize bytes, as
// synth writes it (the generated sessions of seed 1, one after the other,
// as parts of one, as `gencorpus -single` writes them), and the records
// of the calls of a few more, one call's records to an element.
func benchTranscript(b *testing.B) (head []byte, tail [][]byte) {
	b.Helper()
	var buf bytes.Buffer
	first := synth.Corpus(1, 0)
	start := first.Start
	n := 0
	for ; buf.Len() < benchSize; n++ {
		s := synth.Corpus(1, n)
		s.ID, s.Cwd = first.ID, first.Cwd
		s.Seed = first.ID + "/part/" + strconv.Itoa(n)
		s.Start = start
		start = start.Add(24 * time.Hour)
		if err := synth.WriteClaude(&buf, s); err != nil {
			b.Fatal(err)
		}
	}
	head = bytes.Clone(buf.Bytes())
	buf.Reset()
	for k := range 3 {
		s := synth.Corpus(1, n+k)
		s.ID, s.Cwd = first.ID, first.Cwd
		s.Seed = fmt.Sprintf("%s/part/%d", first.ID, n+k)
		s.Start = start
		start = start.Add(24 * time.Hour)
		if err := synth.WriteClaude(&buf, s); err != nil {
			b.Fatal(err)
		}
	}
	// A call's records start with the assistant record of its tool_use.
	var cur []byte
	sc := bufio.NewScanner(&buf)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := append(sc.Bytes(), '\n')
		if bytes.Contains(line, []byte(`"type":"tool_use"`)) && len(cur) > 0 {
			tail = append(tail, cur)
			cur = nil
		}
		cur = append(cur, line...)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	return head, append(tail, cur)
}

// benchStore returns benchLessons lessons: ten for each of a thousand
// scripts, and some for train.py, the target the benchmark's command runs.
func benchStore() []Lesson {
	var out []Lesson
	for i := range benchLessons {
		target := fmt.Sprintf("tool_%03d.py", i/10)
		if i%100 == 0 {
			target = "train.py"
		}
		out = append(out, Lesson{Target: target, Kind: "flag", Wrong: fmt.Sprintf("--wrong-%d", i),
			Right: fmt.Sprintf("--right-%d", i), Session: fmt.Sprintf("/home/dev/.claude/projects/p/%05d.jsonl", i/40),
			Failed: i % 500, Fixed: i%500 + 2, With: fmt.Sprintf("with --right-%d 5", i),
			ValidFlags: []string{"--help", fmt.Sprintf("--right-%d", i), "--epochs", "--out"}})
	}
	return out
}
