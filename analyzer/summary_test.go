package analyzer

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestSummaryLost checks that time and calls lost count each stretch of a
// session once, however many chains overlap on it, and that a session
// without times says so rather than lose zero seconds.
func TestSummaryLost(t *testing.T) {
	fail := func(script string) step {
		return step{cmd: "python " + script + " --num-prompts 5", exit: 2,
			out: "usage: " + script + " [-h] [--num-runs N]\n" + script + ": error: unrecognized arguments: --num-prompts 5\n"}
	}
	fix := func(script string) step { return step{cmd: "python " + script + " --num-runs 5", out: "ok\n"} }
	tests := []struct {
		name    string
		steps   []step
		untimed bool
		seconds float64
		calls   int
		chains  int
	}{
		{"apart", []step{fail("a.py"), fix("a.py"), fail("b.py"), fix("b.py")}, false, 2, 2, 2},
		// a.py's chain covers calls 1–3, b.py's 2–4: 3 s and 3 calls, not 4.
		{"interleaved", []step{fail("a.py"), fail("b.py"), fix("a.py"), fix("b.py")}, false, 3, 3, 2},
		// b.py's chain lies within a.py's.
		{"nested", []step{fail("a.py"), fail("b.py"), fix("b.py"), fix("a.py")}, false, 3, 3, 2},
		{"untimed", []step{fail("a.py"), fail("b.py"), fix("a.py"), fix("b.py")}, true, 0, 3, 2},
		// Without failures, nothing was lost, times or not.
		{"untimed without failures", []step{fix("a.py")}, false, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := session(tt.steps...)
			if tt.untimed || strings.HasPrefix(tt.name, "untimed") {
				for _, c := range s.Calls {
					c.Start = time.Time{}
				}
			}
			sr := AnalyzeSession(s)
			if len(sr.Chains) != tt.chains {
				t.Fatalf("%d chains, want %d", len(sr.Chains), tt.chains)
			}
			sum := NewSummary()
			sum.Add(sr)
			ss := sum.Sessions[0]
			if ss.SecondsLost != tt.seconds || ss.CallsLost != tt.calls || ss.Untimed != tt.untimed {
				t.Errorf("lost %vs and %d calls, untimed %v; want %vs, %d calls, untimed %v",
					ss.SecondsLost, ss.CallsLost, ss.Untimed, tt.seconds, tt.calls, tt.untimed)
			}
			if sum.Totals.SecondsLost != tt.seconds || sum.Totals.CallsLost != tt.calls {
				t.Errorf("totals lost %vs and %d calls, want %vs and %d", sum.Totals.SecondsLost, sum.Totals.CallsLost, tt.seconds, tt.calls)
			}
		})
	}
}

// TestSummaryLostPart checks that a session whose last part never came
// (its input was cut short) keeps a row of its own, counted in the
// totals, rather than being joined to the session after it.
func TestSummaryLostPart(t *testing.T) {
	fail := step{cmd: "python a.py --num-prompts 5", exit: 2,
		out: "usage: a.py [-h] [--num-runs N]\na.py: error: unrecognized arguments: --num-prompts 5\n"}
	fix := step{cmd: "python a.py --num-runs 5", out: "ok\n"}
	analyze := func(path string, steps ...step) *SessionReport {
		sr := AnalyzeSession(session(steps...))
		sr.Session.Path = path
		return sr
	}
	for _, last := range []bool{false, true} {
		lost, next := analyze("lost.jsonl", fail, fix), analyze("next.jsonl", fail, fail, fix, fix)
		order := []*SessionReport{lost, next}
		if last {
			order = []*SessionReport{next, lost}
		}
		want := NewSummary()
		for _, sr := range order {
			want.Add(sr)
		}
		got := NewSummary()
		lost.Part = true
		for _, sr := range order {
			got.Add(sr)
		}
		got.End()
		if !reflect.DeepEqual(got.Sessions, want.Sessions) || !reflect.DeepEqual(got.Totals, want.Totals) {
			t.Errorf("after a part whose session was cut short (last input %v):\n%+v\n%+v\nwant\n%+v\n%+v",
				last, got.Sessions, got.Totals, want.Sessions, want.Totals)
		}
	}
}
