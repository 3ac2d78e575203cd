package analyzer_test

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/synth"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/report"
)

// streamSamples returns transcripts to analyze both ways: every sample of
// ../testdata, every real transcript of the shared corpus when it is
// there and the race detector is off, and a few generated sessions in
// each format synth writes.
func streamSamples(t *testing.T) map[string][]byte {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*"))
	if !raceEnabled {
		real, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*", "*"))
		files = append(files, real...)
	}
	out := map[string][]byte{}
	for _, f := range files {
		if strings.HasSuffix(f, ".golden") || strings.HasSuffix(f, ".txtar") {
			continue
		}
		if fi, err := os.Stat(f); err != nil || fi.IsDir() {
			continue
		}
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[f] = data
	}
	for _, sf := range synth.Formats {
		files, err := synth.Transcripts(sf.Name, 5, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		for i, d := range files {
			out[sf.Name+"/"+string(rune('a'+i))] = d
		}
	}
	return out
}

// render writes every report of rep, in every format.
func render(t *testing.T, rep *analyzer.Report) string {
	var b bytes.Buffer
	var failures []*analyzer.Failure
	var chains []*analyzer.Chain
	var bench []*analyzer.Bench
	for _, s := range rep.Sessions {
		failures = append(failures, s.Failures...)
		chains = append(chains, s.Chains...)
		bench = append(bench, s.Benchmarks...)
	}
	for _, format := range append(report.Formats(), "markdown", "html") {
		o := report.Options{Format: format}
		for _, write := range []func() error{
			func() error { return report.Summary(&b, o, rep) },
			func() error { return report.Errors(&b, o, slices.Values(failures)) },
			func() error { return report.Pairs(&b, o, slices.Values(chains)) },
			func() error { return report.Bench(&b, o, slices.Values(bench)) },
			func() error { return report.Timelines(&b, o, rep.Timelines) },
			func() error { return report.Lessons(&b, o, rep.Lessons) },
			func() error { return report.Show(&b, o, chains) },
			func() error { return report.PostMortem(&b, o, rep) },
		} {
			_ = write() // not every report takes every format
		}
	}
	return b.String()
}

// TestStream checks that a session analyzed call by call as the parser
// finishes them (parser.Each and a SessionStream, which let the
// outputs go), then compacted, gives every report byte for byte as
// AnalyzeSession on the whole session does.
func TestStream(t *testing.T) {
	for name, data := range streamSamples(t) {
		s, err := parser.Parse(bytes.NewReader(data), name, nil)
		if s == nil {
			continue
		}
		_ = err
		whole := analyzer.Combine([]*analyzer.SessionReport{analyzer.AnalyzeSession(s)})

		st := analyzer.NewSessionStream(analyzer.StreamOptions{})
		s2, _ := parser.Parse(bytes.NewReader(data), name, nil, parser.Each(st.Add))
		sr := st.Report(s2)
		sr.Compact()
		streamed := analyzer.Combine([]*analyzer.SessionReport{sr})

		if diff := cmp.Diff(render(t, whole), render(t, streamed)); diff != "" {
			t.Errorf("%s: the streamed and compacted analysis reports otherwise (-whole +streamed):\n%s", name, diff)
		}
	}
}

// TestStreamCounts checks that summing sessions up one by one, as they are
// streamed without their numbers, gives the summary the whole analysis
// gives, byte for byte in JSON and JSON Lines.
func TestStreamCounts(t *testing.T) {
	samples := streamSamples(t)
	var whole []*analyzer.SessionReport
	sum := analyzer.NewSummary()
	for name, data := range samples {
		s, _ := parser.Parse(bytes.NewReader(data), name, nil)
		if s == nil {
			continue
		}
		whole = append(whole, analyzer.AnalyzeSession(s))
		st := analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: true})
		s2, _ := parser.Parse(bytes.NewReader(data), name, nil, parser.Each(st.Add))
		sr := st.Report(s2)
		if len(sr.Benchmarks) > 0 {
			t.Errorf("%s: %d numbers read without numbers", name, len(sr.Benchmarks))
		}
		sum.Add(sr)
	}
	if len(whole) < 20 {
		t.Fatalf("only %d sessions to compare", len(whole))
	}
	rep := analyzer.Combine(whole)
	for _, format := range []string{report.JSON, report.JSONL} {
		var want, got bytes.Buffer
		o := report.Options{Format: format}
		if err := report.Summary(&want, o, rep); err != nil {
			t.Fatal(err)
		}
		if err := report.SummaryCounts(&got, o, sum); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s: the summary counted session by session differs (-whole +streamed):\n%s", format, diff)
		}
	}
}

// TestGathering checks that a post-mortem gathered session by session,
// each letting go of the calls no finding links to, is byte for byte the
// post-mortem of the whole report, in Markdown, brief Markdown and HTML,
// and so when the texts are masked at the end (as the secrets the last
// inputs teach are) rather than before the analysis.
func TestGathering(t *testing.T) {
	samples := streamSamples(t)
	names := slices.Sorted(maps.Keys(samples))
	// mask stands for masking secrets: it gives back what it gave, and
	// no template of a report says "py".
	mask := func(s string) string { return strings.ReplaceAll(s, "py", "[secret:password:0000]") }
	for _, masked := range []bool{false, true} {
		var whole []*analyzer.SessionReport
		var gathered report.Gathering
		pruned := 0
		for _, name := range names {
			analyze := func() *analyzer.SessionReport {
				s, _ := parser.Parse(bytes.NewReader(samples[name]), name, nil)
				if s == nil {
					return nil
				}
				sr := analyzer.AnalyzeSession(s)
				sr.Compact()
				return sr
			}
			sr := analyze()
			if sr == nil {
				continue
			}
			if masked {
				sr.MapStrings(mask)
			}
			whole = append(whole, sr)
			sr = analyze()
			n := len(sr.Session.Calls)
			gathered.Add(sr)
			pruned += n - len(sr.Session.Calls)
		}
		if len(whole) < 20 || pruned == 0 {
			t.Fatalf("%d sessions and %d calls let go: too few to compare", len(whole), pruned)
		}
		rep := analyzer.Combine(whole)
		var f func(string) string
		if masked {
			f = mask
		}
		for _, o := range []report.Options{{Format: "markdown"}, {Format: "markdown", Brief: true}, {Format: report.HTML}} {
			var want, got bytes.Buffer
			if err := report.PostMortem(&want, o, rep); err != nil {
				t.Fatal(err)
			}
			if err := gathered.Write(&got, o, f); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want.String(), got.String()); diff != "" {
				t.Errorf("masked %v, %+v: the gathered post-mortem differs (-whole +gathered):\n%s", masked, o, diff)
			}
		}
	}
}

// TestStreamParts checks that a session handed out in parts as its calls
// are added gives, summed up, the summary and the lessons of the whole
// session, and the same failures and chains in the same order.
func TestStreamParts(t *testing.T) {
	samples := streamSamples(t)
	for _, sf := range synth.Formats {
		files, err := synth.Transcripts(sf.Name, 9, 4<<20)
		if err != nil {
			t.Fatal(err)
		}
		samples[sf.Name+"/large"] = files[0]
	}
	var whole []*analyzer.SessionReport
	sum := analyzer.NewSummary()
	var lessons analyzer.LessonSet
	var failures []*analyzer.Failure
	var chains []*analyzer.Chain
	var numbers []*analyzer.Bench
	// The summary table, of the whole sessions and of their parts.
	table := report.Options{Format: report.Table, Top: 0}
	wholeSum, wholeDigest := analyzer.NewSummary(), report.NewDigest(table)
	partsDigest := report.NewDigest(table)
	parted := 0
	for _, size := range []int{1, 7, 64} {
		noNumbers := size == 7 // the numbers are read at the other sizes
		for name, data := range samples {
			s, _ := parser.Parse(bytes.NewReader(data), name, nil)
			if s == nil {
				continue
			}
			st := analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: noNumbers})
			for _, c := range s.Calls {
				st.Add(c)
			}
			wr := st.Report(s)
			whole = append(whole, wr)
			wholeSum.Add(wr)
			wholeDigest.Add(wr)
			var parts []*analyzer.SessionReport
			st = analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: noNumbers, PartCalls: size, Path: name,
				Part: func(r *analyzer.SessionReport) { parts = append(parts, r) }})
			s2, _ := parser.Parse(bytes.NewReader(data), name, nil, parser.Each(st.Add))
			parts = append(parts, st.Report(s2))
			if len(parts) > 1 {
				parted++
			}
			for _, p := range parts {
				sum.Add(p)
				lessons.Add(p)
				failures = append(failures, p.Failures...)
				chains = append(chains, p.Chains...)
				numbers = append(numbers, p.Benchmarks...)
				partsDigest.Add(p)
			}
		}
	}
	if parted < 10 {
		t.Fatalf("only %d sessions were cut into parts", parted)
	}
	rep := analyzer.Combine(whole)
	var want, got bytes.Buffer
	if err := report.SummaryTable(&want, table, wholeSum, wholeDigest, rep.Lessons); err != nil {
		t.Fatal(err)
	}
	if err := report.SummaryTable(&got, table, sum, partsDigest, lessons.Lessons()); err != nil {
		t.Fatal(err)
	}
	o := report.Options{Format: report.JSON}
	if err := report.Summary(&want, o, rep); err != nil {
		t.Fatal(err)
	}
	if err := report.SummaryCounts(&got, o, sum); err != nil {
		t.Fatal(err)
	}
	if err := report.Lessons(&want, o, rep.Lessons); err != nil {
		t.Fatal(err)
	}
	if err := report.Lessons(&got, o, lessons.Lessons()); err != nil {
		t.Fatal(err)
	}
	// The parts name their session by path alone.
	var wantF []*analyzer.Failure
	var wantC []*analyzer.Chain
	var wantB []*analyzer.Bench
	for _, r := range rep.Sessions {
		wantF = append(wantF, r.Failures...)
		wantC = append(wantC, r.Chains...)
		wantB = append(wantB, r.Benchmarks...)
	}
	if len(wantB) == 0 {
		t.Fatal("the samples print no numbers")
	}
	for _, list := range [][]*analyzer.Bench{wantB, numbers} {
		for _, b := range list {
			b.Session = analyzer.SessionRef{Path: b.Session.Path}
		}
	}
	for _, list := range [][]*analyzer.Failure{wantF, failures} {
		for _, f := range list {
			f.Session = analyzer.SessionRef{Path: f.Session.Path}
		}
	}
	for _, list := range [][]*analyzer.Chain{wantC, chains} {
		for _, ch := range list {
			ch.Session = analyzer.SessionRef{Path: ch.Session.Path}
		}
	}
	if err := report.Errors(&want, o, slices.Values(wantF)); err != nil {
		t.Fatal(err)
	}
	if err := report.Errors(&got, o, slices.Values(failures)); err != nil {
		t.Fatal(err)
	}
	if err := report.Pairs(&want, o, slices.Values(wantC)); err != nil {
		t.Fatal(err)
	}
	if err := report.Pairs(&got, o, slices.Values(chains)); err != nil {
		t.Fatal(err)
	}
	if err := report.Bench(&want, o, slices.Values(wantB)); err != nil {
		t.Fatal(err)
	}
	if err := report.Bench(&got, o, slices.Values(numbers)); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(want.String(), got.String()); diff != "" {
		t.Errorf("the parts report otherwise than the whole sessions (-whole +parts):\n%s", diff)
	}
}

// FuzzStreamParts checks, on sessions of calls drawn from a few commands
// and outcomes that fail, retry and fix each other, that cutting a
// session into parts of any size reports what the whole session does.
// Each byte of the input after the first makes a call: its low three bits
// pick the command, the next one whether the assistant states a baseline
// before it, its high bits the outcome; the first byte sets the part size
// and whether the numbers are read.
func FuzzStreamParts(f *testing.F) {
	f.Add([]byte{1, 0x10, 0x00, 0x21, 0x01, 0x30, 0x12, 0x02, 0x45, 0x05, 0x13, 0x03})
	f.Add([]byte{3, 0x10, 0x11, 0x12, 0x16, 0x06, 0x00, 0x24, 0x04, 0x37, 0x07})
	f.Add(bytes.Repeat([]byte{2, 0x10, 0x00, 0x01, 0x02, 0x03}, 20))
	f.Add([]byte{9, 0x41, 0x0c, 0x48, 0x10, 0x41, 0x0e, 0x49, 0x40, 0x02})
	commands := []string{
		"python bench.py --num-prompts 5", "python bench.py --num-runs 5", "mytool build",
		"pip install mytool", "ls src", "python bench.py --help", "make test", "cat notes.txt",
	}
	outcomes := []struct {
		exit int
		out  string
	}{
		{0, "ok\n"},
		{2, "usage: bench.py [-h] [--num-runs N]\nbench.py: error: unrecognized arguments: --num-prompts 5\n"},
		{127, "bash: mytool: command not found\n"},
		{1, "Traceback (most recent call last):\n  File \"bench.py\", line 3, in <module>\nAttributeError: 'NoneType' object has no attribute 'run'\n"},
		{0, "Throughput: 71.1 tok/s\n"},
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) < 2 || len(data) > 400 {
			return
		}
		size := int(data[0]%8) + 1
		noNumbers := data[0]&8 == 0
		session := func() *parser.Session {
			s := &parser.Session{Path: "fuzz", Format: "claude-code", ID: "s"}
			for i, b := range data[1:] {
				o := outcomes[int(b>>4)%len(outcomes)]
				exit := o.exit
				text := ""
				if b&8 != 0 {
					text = "The baseline was 50 tok/s."
				}
				s.Calls = append(s.Calls, &parser.Call{Ordinal: i + 1, Msg: 2 * i, ID: fmt.Sprintf("c%d", i),
					Tool: "Bash", Kind: parser.KindShell, Command: commands[int(b)%len(commands)],
					Output: o.out, Exit: &exit, IsError: exit != 0, Text: text,
					Start: time.Unix(int64(60*i), 0)})
			}
			return s
		}
		s := session()
		st := analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: noNumbers})
		for _, c := range s.Calls {
			st.Add(c)
		}
		whole := st.Report(s)

		s = session()
		var parts []*analyzer.SessionReport
		st = analyzer.NewSessionStream(analyzer.StreamOptions{NoNumbers: noNumbers, PartCalls: size, Path: "fuzz",
			Part: func(r *analyzer.SessionReport) { parts = append(parts, r) }})
		for _, c := range s.Calls {
			st.Add(c)
		}
		parts = append(parts, st.Report(s))

		render := func(reports []*analyzer.SessionReport) string {
			var b bytes.Buffer
			sum := analyzer.NewSummary()
			var lessons analyzer.LessonSet
			var failures []*analyzer.Failure
			var chains []*analyzer.Chain
			var numbers []*analyzer.Bench
			for _, r := range reports {
				sum.Add(r)
				lessons.Add(r)
				for _, b := range r.Benchmarks {
					b.Session = analyzer.SessionRef{Path: b.Session.Path}
					numbers = append(numbers, b)
				}
				for _, f := range r.Failures {
					f.Session = analyzer.SessionRef{Path: f.Session.Path}
					failures = append(failures, f)
				}
				for _, ch := range r.Chains {
					ch.Session = analyzer.SessionRef{Path: ch.Session.Path}
					chains = append(chains, ch)
				}
			}
			o := report.Options{Format: report.JSON}
			for _, err := range []error{report.SummaryCounts(&b, o, sum), report.Lessons(&b, o, lessons.Lessons()),
				report.Errors(&b, o, slices.Values(failures)), report.Pairs(&b, o, slices.Values(chains)), report.Bench(&b, o, slices.Values(numbers))} {
				if err != nil {
					t.Fatal(err)
				}
			}
			return b.String()
		}
		// The summary names the session as its last part does.
		if diff := cmp.Diff(render([]*analyzer.SessionReport{whole}), render(parts)); diff != "" {
			t.Errorf("parts of %d report otherwise than the whole (-whole +parts):\n%s", size, diff)
		}
	})
}
