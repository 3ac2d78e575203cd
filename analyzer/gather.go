package analyzer

// A Gathering assembles the Report of sessions added one at a time, as
// they are analyzed, holding of each only what a post-mortem of them all
// reads: a session is counted in the summary while it has all its calls,
// then the calls the post-mortem does not quote are let go. The zero
// Gathering has no sessions.
type Gathering struct {
	sessions []*SessionReport
	sum      *Summary
}

// Add takes the report of one more session, whole (not a part). Its
// Session.Calls keeps only the calls of its failures and fixes, and of
// those only what a post-mortem quotes; its chains' BetweenCalls and its
// Program return nothing.
func (g *Gathering) Add(sr *SessionReport) {
	if g.sum == nil {
		g.sum = NewSummary()
	}
	g.sum.Add(sr)
	sr.pruneCalls()
	g.sessions = append(g.sessions, sr)
}

// Report returns the Report of the sessions added, as Combine returns it
// of the sessions whole. f, when not nil, is first applied to every text
// they hold that came from a transcript (see SessionReport.MapStrings), as
// masking the secrets that the inputs read last taught does; it must give
// back unchanged what it has already given.
func (g *Gathering) Report(f func(string) string) *Report {
	if g.sum == nil {
		g.sum = NewSummary()
	}
	if f != nil {
		g.sum.MapStrings(f)
		for _, sr := range g.sessions {
			sr.MapStrings(f)
		}
	}
	for _, sr := range g.sessions {
		sr.Timelines = Timelines([]*SessionReport{sr})
	}
	return &Report{Sessions: g.sessions, Summary: g.sum, Lessons: Lessons(g.sessions), Timelines: Timelines(g.sessions)}
}
