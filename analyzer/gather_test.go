package analyzer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// TestGatheringStored checks that a Gathering gives back each session as
// it was added: its failures, chains and numbers as the output contract
// writes them, down to the pointers to zero values and the empty lists
// gob leaves out, and the links the contract does not carry (a failure's
// call and excerpt, a chain's failures and fix, the programs of its
// steps).
func TestGatheringStored(t *testing.T) {
	samples := streamSamples(t)
	names := slices.Sorted(maps.Keys(samples))
	analyze := func(name string) *analyzer.SessionReport {
		s, _ := parser.Parse(bytes.NewReader(samples[name]), name, nil)
		if s == nil {
			return nil
		}
		sr := analyzer.AnalyzeSession(s)
		sr.Compact()
		zeroSome(sr)
		return sr
	}
	var g analyzer.Gathering
	var want []string
	for _, name := range names {
		sr := analyze(name)
		if sr == nil {
			continue
		}
		want = append(want, storedView(t, sr, analyzer.Combine([]*analyzer.SessionReport{sr}).Sessions[0].Timelines))
		g.Add(analyze(name))
	}
	for range 2 { // the sessions can be read back again
		i := 0
		for sr, err := range g.Sessions(nil) {
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(want[i], storedView(t, sr, sr.Timelines)); diff != "" {
				t.Errorf("session %d read back differs (-added +read back):\n%s", i, diff)
			}
			i++
		}
		if i != len(want) {
			t.Fatalf("read back %d sessions, want %d", i, len(want))
		}
	}
	// Stopping early lets the reader go, before Sessions returns: of two
	// sessions, the reader maps the second while the first is yielded, and
	// the race detector sees the next reader map it again.
	var two analyzer.Gathering
	two.Add(analyze(names[0]))
	two.Add(analyze(names[0]))
	before := runtime.NumGoroutine()
	for range 2 {
		for range two.Sessions(strings.ToUpper) {
			break
		}
	}
	for deadline := time.Now().Add(5 * time.Second); runtime.NumGoroutine() > before; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d goroutines left running", runtime.NumGoroutine()-before)
		}
	}
}

// zeroSome points some of the pointers of sr's findings to zero values:
// an exit code of 0, a fix at msg 0 by a call without an id, a fix whose
// files are not in the traceback.
func zeroSome(sr *analyzer.SessionReport) {
	for i, f := range sr.Failures {
		if i%2 == 0 {
			f.Exit, f.FixedMsg, f.FixedBy = new(int), new(int), new(string)
		}
	}
	for _, ch := range sr.Chains {
		if ch.Fix != nil {
			ch.Fix.InTraceback = new(bool)
		}
	}
}

// storedView writes out what a Gathering must keep of a session: its own
// fields, its findings in the output contract, and what the contract does
// not carry.
func storedView(t *testing.T, sr *analyzer.SessionReport, timelines []*analyzer.Timeline) string {
	t.Helper()
	var b strings.Builder
	put := func(label string, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "%s %s\n", label, data)
	}
	call := func(c *parser.Call) any {
		if c == nil {
			return nil
		}
		return []any{c.Ordinal, c.Msg, c.ID, c.Text, c.Start, c.End}
	}
	s := sr.Session
	put("session", []any{s.Path, s.Format, s.ID, s.Title, s.Cwd, s.Model, s.Agent, s.Start, s.End, s.Notes})
	for _, f := range sr.Failures {
		put("failure", f)
		put("  excerpt", f.Excerpt())
		put("  call", call(f.Call()))
	}
	for _, ch := range sr.Chains {
		put("chain", ch)
		var ids, programs []string
		for _, f := range ch.Failures() {
			ids = append(ids, f.CallID)
		}
		for _, st := range ch.Between {
			programs = append(programs, st.Program())
		}
		put("  failures", ids)
		put("  programs", programs)
		put("  fix", call(ch.FixCall()))
		if w := ch.Workaround; w != nil {
			put("  workaround", w.Program())
		}
	}
	put("benchmarks", sr.Benchmarks)
	put("timelines", timelines)
	return b.String()
}
