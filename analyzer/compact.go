package analyzer

import "github.com/retrace-dev/retrace/parser"

// Compact lets go of what no report reads once a session is analyzed, so
// that the reports of many sessions, held together until they are
// rendered, take little memory: the output of every call (a failure keeps
// its excerpt), and the arguments, text and note of each call that is
// neither a failure nor in a failure chain (the calls of a chain keep the
// text that `show` and `report` quote). Every report prints the same after
// it. The session's calls are changed.
func (r *SessionReport) Compact() {
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
	for _, c := range r.Session.Calls {
		c.Output = ""
		if !keep[c] {
			c.Args, c.Text, c.Note = nil, "", ""
		}
	}
}

// Detach lets go of the links from the report's findings to its session's
// calls, for a command that keeps the findings (failures, chains, numbers)
// past the session and prints none of the calls' texts: Failure.Call,
// Chain.BetweenCalls and Chain.FixCall return nil after it, and every
// other field of the findings is as it was.
func (r *SessionReport) Detach() {
	for _, f := range r.Failures {
		f.call = nil
	}
	for _, ch := range r.Chains {
		for _, f := range ch.failures { // the first is ch.Failure
			f.call = nil
		}
		ch.between, ch.fix = nil, nil
	}
}
