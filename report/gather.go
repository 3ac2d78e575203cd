package report

import (
	"io"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// A Gathering collects the sessions of a post-mortem one at a time, as
// they are analyzed, so that a long run does not hold every session's
// calls, nor every session's findings: it takes what the post-mortem reads
// of a session's calls (a callView) and what its chains cost, then keeps
// the session, compressed, as an analyzer.Gathering does. A long session
// may come in parts. Write then writes the post-mortem PostMortem writes
// of the sessions' whole report, a session at a time. The zero Gathering
// has no sessions.
type Gathering struct {
	sessions analyzer.Gathering
	views    []callView
	costs    [][]chainCost
	open     *callsSeen // of the session whose parts are being added, or nil
}

// Add takes the report of one more session, or of the next part of one
// (see analyzer.Gathering.Add), and lets go of it: sr must not be used
// after.
func (g *Gathering) Add(sr *analyzer.SessionReport) {
	if g.open == nil {
		g.open = new(callsSeen)
	}
	g.open.add(sr)
	part := sr.Part
	g.sessions.Add(sr)
	if part {
		return
	}
	g.views = append(g.views, g.open.view())
	g.costs = append(g.costs, g.open.costs())
	g.open = nil
}

// Write writes the post-mortem of the sessions added, as o says. mask,
// when not nil, is first applied to every text kept of them that came
// from a transcript, as masking the secrets that the inputs read last
// taught does; it must give back unchanged what it has already given.
func (g *Gathering) Write(w io.Writer, o Options, mask func(string) string) error {
	sum := g.sessions.Summary(mask)
	if mask != nil {
		for i := range g.views {
			g.views[i].mapStrings(mask)
		}
	}
	sessions := func(yield func(gathered, error) bool) {
		i := 0
		for sr, err := range g.sessions.Sessions(mask) {
			if err != nil {
				yield(gathered{}, err)
				return
			}
			if !yield(gathered{sr, g.views[i]}, nil) {
				return
			}
			i++
		}
	}
	return writePostMortem(w, o, postMortem{sum: sum, costs: g.costs, sessions: sessions})
}

// A callView is what a post-mortem reads of a session's calls beside
// those its findings link to: where each call falls on the session's
// timeline, and the files the session edited, for the caveats of its
// benchmark series.
type callView struct {
	timeline *timelineView // nil for a session without times
	edits    []edit
}

// An edit is a call that edited or wrote a file.
type edit struct {
	msg  int
	file string
}

// callsSeen holds what a post-mortem reads of the calls of a session and
// of its chains, gathered a part of the session at a time.
type callsSeen struct {
	marks       []callMark
	edits       []edit
	fixed, open []chainCost // the costs of the fixed chains, and the others'
	numbers     bool        // whether the calls printed numbers
}

// add takes what the post-mortem reads of the calls and chains of sr, the
// session or its next part.
func (cs *callsSeen) add(sr *analyzer.SessionReport) {
	cs.marks = append(cs.marks, callMarks(sr)...)
	for _, c := range sr.Session.Calls {
		if (c.Kind == parser.KindEdit || c.Kind == parser.KindWrite) && c.File != "" {
			cs.edits = append(cs.edits, edit{c.Msg, c.File})
		}
	}
	for _, ch := range sr.Chains {
		c := chainCost{ch.Cost.Seconds, ch.Cost.Calls}
		if ch.Fix != nil {
			cs.fixed = append(cs.fixed, c)
		} else {
			cs.open = append(cs.open, c)
		}
	}
	cs.numbers = cs.numbers || len(sr.Benchmarks) > 0
}

// view returns the view of the calls of the session. A session without
// numbers has no series for its edits to caveat.
func (cs *callsSeen) view() callView {
	v := callView{timeline: newTimelineView(newTimeline(cs.marks))}
	if cs.numbers {
		v.edits = cs.edits
	}
	return v
}

// costs returns the costs of the session's chains, in the order of the
// rows of its document (see sessionDoc.rows).
func (cs *callsSeen) costs() []chainCost {
	return append(cs.fixed, cs.open...)
}

// mapStrings replaces each text of the view that came from a transcript
// with f of it.
func (v *callView) mapStrings(f func(string) string) {
	for i := range v.edits {
		v.edits[i].file = f(v.edits[i].file)
	}
}
