package analyzer

import (
	"time"

	"github.com/retrace-dev/retrace/bench"
	"github.com/retrace-dev/retrace/parser"
)

// A Bench is one benchmark number a call printed, or the assistant stated
// before it, in its session: the objects `retrace bench` prints.
type Bench struct {
	Session SessionRef `json:"session"`
	CallID  string     `json:"call_id"`
	Msg     int        `json:"msg"`
	// Target names what the number measures: the target of the command
	// that printed it, or for a stated baseline, of the command it is a
	// reference for.
	Target string    `json:"target"`
	Failed bool      `json:"failed,omitzero"` // printed by a call that failed
	Time   time.Time `json:"time,omitzero"`   // start of the call; zero when unknown
	bench.Result
}

// MarshalJSON writes b as the output contract's bench object, its fields
// in the contract's order.
func (b Bench) MarshalJSON() ([]byte, error) {
	return marshalJSON(benchJSON{
		Session: b.Session, CallID: b.CallID, Msg: b.Msg, Target: b.Target,
		Label: b.Label, Value: b.Value, Unit: b.Unit, Context: b.Context, Text: b.Text,
		Failed: b.Failed, Line: b.Line, Time: b.Time, Baseline: b.Baseline, Source: b.Source,
	})
}

// benchJSON is the bench object of the output contract, in its order.
type benchJSON struct {
	Session  SessionRef        `json:"session"`
	CallID   string            `json:"call_id"`
	Msg      int               `json:"msg"`
	Target   string            `json:"target"`
	Label    string            `json:"label"`
	Value    float64           `json:"value"`
	Unit     string            `json:"unit"`
	Context  map[string]string `json:"context"`
	Text     string            `json:"text"`
	Failed   bool              `json:"failed,omitzero"`
	Line     int               `json:"line,omitzero"`
	Time     time.Time         `json:"time,omitzero"`
	Baseline bool              `json:"baseline,omitzero"`
	Source   string            `json:"source,omitzero"`
}

// Benchmarks extracts the numbers of a session's calls with opts: the
// numbers AnalyzeSession finds with the zero bench.Options.
func Benchmarks(s *parser.Session, opts bench.Options) []*Bench {
	out, _ := newSessionAnalysis(s).benchmarksWith(opts, "")
	return out
}

// benchmarks extracts the numbers the session's shell calls printed.
func (a *sessionAnalysis) benchmarks() []*Bench {
	out, _ := a.benchmarksWith(bench.Options{}, "")
	return out
}

// benchmarksWith extracts the numbers the session's shell calls printed,
// and the baselines the assistant states before its calls, in call order.
// lastTarget is the target of the last call before them that printed
// numbers, when they go on from an earlier part of their session; it
// returns that of the last of them, for the next part.
func (a *sessionAnalysis) benchmarksWith(opts bench.Options, lastTarget string) ([]*Bench, string) {
	var out []*Bench
	for i, c := range a.s.Calls {
		var found []*bench.Result
		target := a.targets[i]
		measures := false
		if f := a.factsOf(i); f != nil && opts == (bench.Options{}) {
			// Read when the call was added, its output since let go.
			found, measures = f.found, f.measures
			if f.other {
				target = f.mcTarget // the benchmark after `pip install … &&`
			}
		} else {
			mc := bench.Measured(a.cmds[i], opts)
			if mc != nil && mc != a.cmds[i] {
				target = mc.Target // the benchmark after `pip install … &&`
			}
			measures = mc != nil
			found = bench.Read(mc, c.Output, opts)
		}
		// A baseline stated in the text before the call belongs to what
		// the call measures, or else to what was measured last.
		stated := bench.TextBaselines(c.Text)
		statedTarget := lastTarget
		if measures {
			statedTarget = target
		}
		if statedTarget == "" {
			stated = nil
		}
		if len(found) > 0 {
			lastTarget = target
		}
		if len(stated)+len(found) == 0 {
			continue
		}
		recs := make([]Bench, 0, len(stated)+len(found))
		for _, r := range stated {
			recs = append(recs, Bench{Target: statedTarget, Result: *r})
		}
		failed := a.failures[i] != nil
		for _, r := range found {
			recs = append(recs, Bench{Target: target, Failed: failed, Result: *r})
		}
		for k := range recs {
			b := &recs[k]
			b.Session, b.CallID, b.Msg, b.Time = a.ref, c.ID, c.Msg, c.Start
			out = append(out, b)
		}
	}
	return out, lastTarget
}

// factsOf returns the facts found of call i when it was added, or nil.
func (a *sessionAnalysis) factsOf(i int) *callFacts {
	if a.facts == nil {
		return nil
	}
	return a.facts[i]
}
