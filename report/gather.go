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
// the session, compressed, as an analyzer.Gathering does. Write then
// writes the post-mortem PostMortem writes of the sessions' whole report,
// a session at a time. The zero Gathering has no sessions.
type Gathering struct {
	sessions analyzer.Gathering
	views    []callView
	costs    [][]chainCost
}

// Add takes the report of one more session, whole (not a part), and lets
// go of it: sr must not be used after.
func (g *Gathering) Add(sr *analyzer.SessionReport) {
	g.views = append(g.views, viewCalls(sr))
	g.costs = append(g.costs, chainCosts(sr))
	g.sessions.Add(sr)
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

// viewCalls returns what a post-mortem reads of the calls of sr. A session
// without numbers has no series for its edits to caveat.
func viewCalls(sr *analyzer.SessionReport) callView {
	v := callView{timeline: newTimelineView(newTimeline(sr))}
	if len(sr.Benchmarks) == 0 {
		return v
	}
	for _, c := range sr.Session.Calls {
		if (c.Kind == parser.KindEdit || c.Kind == parser.KindWrite) && c.File != "" {
			v.edits = append(v.edits, edit{c.Msg, c.File})
		}
	}
	return v
}

// mapStrings replaces each text of the view that came from a transcript
// with f of it.
func (v *callView) mapStrings(f func(string) string) {
	for i := range v.edits {
		v.edits[i].file = f(v.edits[i].file)
	}
}
