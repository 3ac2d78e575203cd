package analyzer

import (
	"slices"

	"github.com/retrace-dev/retrace/parser"
)

// Compact lets go of what no report reads once a session is analyzed, so
// that the reports of many sessions, held together until they are
// rendered, take little memory: the output of every call (a failure keeps
// its excerpt), and the arguments, text and note of each call that is
// neither a failure nor in a failure chain (the calls of a chain keep the
// text that `show` and `report` quote). Every report prints the same after
// it. The session's calls are changed.
func (r *SessionReport) Compact() {
	keep := r.linked()
	for _, c := range r.Session.Calls {
		c.Output = ""
		if !keep[c] {
			c.Args, c.Text, c.Note = nil, "", ""
		}
	}
}

// pruneCalls lets go of the calls of the session that a post-mortem does
// not quote, once what is drawn from them all (their count, their times)
// is drawn: after it, Session.Calls holds only the calls of the failures
// and the fixes, in order, Chain.BetweenCalls returns nil (Chain.Between
// lists them still) and Program returns "". Of the calls kept it keeps
// their ordinals, message indexes, ids, times and the agent's text before
// them, nothing else: the findings hold the rest as they read it. The
// findings are otherwise as they were.
func (r *SessionReport) pruneCalls() {
	for _, ch := range r.Chains {
		ch.between = nil
	}
	keep := r.linked()
	r.Session.Calls = slices.DeleteFunc(r.Session.Calls, func(c *parser.Call) bool { return !keep[c] })
	for _, c := range r.Session.Calls {
		*c = parser.Call{Ordinal: c.Ordinal, Msg: c.Msg, ID: c.ID, Text: c.Text, Start: c.Start, End: c.End}
	}
	r.programs = nil
}

// linked returns the calls the findings link to: those of the failures,
// and of the chains their failures, the calls between and the fix.
func (r *SessionReport) linked() map[*parser.Call]bool {
	keep := make(map[*parser.Call]bool, len(r.Failures))
	for _, f := range r.Failures {
		keep[f.call] = true
	}
	for _, ch := range r.Chains {
		for _, f := range ch.failures {
			keep[f.call] = true
		}
		for _, c := range ch.between {
			keep[c] = true
		}
		if ch.fix != nil {
			keep[ch.fix] = true
		}
	}
	return keep
}
