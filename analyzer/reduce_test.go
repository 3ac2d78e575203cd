package analyzer

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/retrace-dev/retrace/parser"
)

// seedRecords returns the JSON Lines `retrace pairs` and `retrace bench`
// write for the seed sessions, to seed FuzzReadJSONL.
func seedRecords(tb testing.TB) []string {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*"))
	var out []string
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			tb.Fatal(err)
		}
		s, _ := parser.Parse(bytes.NewReader(data), file, nil)
		if s == nil {
			continue // a golden file, not a transcript
		}
		rep := AnalyzeSession(s)
		var b strings.Builder
		for _, ch := range rep.Chains {
			line, err := json.Marshal(ch)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		for _, n := range rep.Benchmarks {
			line, err := json.Marshal(n)
			if err != nil {
				tb.Fatal(err)
			}
			b.Write(line)
			b.WriteByte('\n')
		}
		out = append(out, b.String())
	}
	return out
}

// FuzzIsRecord holds IsRecord's quick look to decoding the line.
func FuzzIsRecord(f *testing.F) {
	for _, s := range seedRecords(f) {
		line, _, _ := strings.Cut(s, "\n")
		f.Add(line)
	}
	f.Add(`{"s\u0065ssion":{"p\u0061th":"x"},"call_id":"c","label":"l","value":1}`)
	f.Add(`{"session":{"path":"x"},"failure":{},"retries":[]}`)
	f.Add(`{"type":"user","sessionId":"s","message":{"content":"\u001b[1m path"}}`)
	f.Fuzz(func(t *testing.T, line string) {
		defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
		if got, want := IsRecord([]byte(line)), isRecord([]byte(line)); got != want {
			t.Fatalf("IsRecord(%q) = %v, decoding says %v", line, got, want)
		}
	})
}

// FuzzReadJSONL checks that no input makes reading retrace's own JSON
// Lines back panic or take the stack deep, that every line is either read
// or skipped with its line number, that it is deterministic, and that what
// it reads can be written out and drawn lessons from.
func FuzzReadJSONL(f *testing.F) {
	for _, s := range seedRecords(f) {
		f.Add(s)
		if i := strings.IndexByte(s, '\n'); i > 0 {
			f.Add(s[:i/2])                    // a record cut short
			f.Add(strings.Repeat(s[:i+1], 3)) // a record three times
		}
	}
	f.Add(`{"session":{"path":"x"},"call_id":"c","label":"l","value":1e400,"unit":"ms"}`)
	f.Add(`{"session":{"path":"x"},"failure":null,"retries":[]}`)
	f.Add(`{"session":{"path":"x"},"failure":{"session":{"path":"x"},"call_id":"c"},"retries":[],"fix":{"call_id":"d","kind":"argv"},"diff":{"renamed":[{"from":"--a","to":"--b"}]}}`)
	f.Add(`{"session":{"path":"` + strings.Repeat("[", 20000) + `"}}`)
	f.Fuzz(func(t *testing.T, in string) {
		defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
		reports, skipped, more, err := ReadJSONL(strings.NewReader(in), "in.jsonl")
		if err != nil {
			t.Fatalf("ReadJSONL: %v", err)
		}
		lines := 0
		for l := range strings.Lines(in) {
			if strings.TrimSpace(l) != "" {
				lines++
			}
		}
		if len(skipped)+more > lines || more > 0 && len(skipped) < 10 {
			t.Fatalf("%d lines skipped and %d more of %d", len(skipped), more, lines)
		}
		for _, e := range skipped {
			if e.Pos.File != "in.jsonl" || e.Pos.Line < 1 || e.Msg == "" {
				t.Fatalf("skipped line without its place or reason: %+v", e)
			}
		}
		again, _, _, _ := ReadJSONL(strings.NewReader(in), "in.jsonl")
		if !reflect.DeepEqual(reports, again) {
			t.Fatal("ReadJSONL is not deterministic")
		}
		for _, rep := range reports {
			for _, ch := range rep.Chains {
				if _, err := json.Marshal(ch); err != nil {
					t.Fatalf("a chain read back does not marshal: %v", err)
				}
			}
			for _, b := range rep.Benchmarks {
				if _, err := json.Marshal(b); err != nil {
					t.Fatalf("a number read back does not marshal: %v", err)
				}
			}
		}
		_ = Lessons(reports)
	})
}

// TestReadBackPrograms checks that the steps of a chain read back name
// their programs as the chain's own steps do.
func TestReadBackPrograms(t *testing.T) {
	rep := AnalyzeSession(session(
		step{cmd: "python b.py --num-prompts 5", exit: 2, out: usage},
		step{cmd: "ssh h 'head -30 b.py'"},
		step{cmd: "python b.py --num-runs 5", out: "Average: 71.1 tok/s\n"},
	))
	line, err := json.Marshal(rep.Chains[0])
	if err != nil {
		t.Fatal(err)
	}
	reports, skipped, _, err := ReadJSONL(bytes.NewReader(line), "pairs.jsonl")
	if err != nil || len(skipped) > 0 || len(reports) != 1 || len(reports[0].Chains) != 1 {
		t.Fatalf("ReadJSONL = %d reports, skipped %v, %v", len(reports), skipped, err)
	}
	back := reports[0].Chains[0]
	if got, want := back.Between[0].Program(), rep.Chains[0].Between[0].Program(); got != want || want != "head" {
		t.Errorf("read back, the step's program is %q; the chain's is %q, want head", got, want)
	}
}
