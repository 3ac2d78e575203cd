package analyzer

import "github.com/retrace-dev/retrace/diagnose"

// A Summary counts what the analysis found: the object `retrace summary`
// prints.
type Summary struct {
	Sessions []SessionSummary `json:"sessions"`
	Totals   Totals           `json:"totals"`

	open bool // the last session added was a part, to be continued
}

// A SessionSummary counts the calls and failures of one session.
type SessionSummary struct {
	Path       string `json:"path"`
	Format     string `json:"format"`
	ID         string `json:"id"`
	Title      string `json:"title,omitzero"`
	Calls      int    `json:"calls"`
	Failures   int    `json:"failures"`   // failed calls, rejected ones not included
	Fixed      int    `json:"fixed"`      // failures a later call fixed
	Unresolved int    `json:"unresolved"` // failures nothing fixed
	Rejected   int    `json:"rejected"`   // calls the user or a sandbox refused
	// SecondsLost adds up, over the failure chains, the time from the first
	// failure to the fix, or to the last retry when unresolved.
	SecondsLost  float64  `json:"seconds_lost"`
	CallsLost    int      `json:"calls_lost"` // calls made from first failures to fixes
	SkippedLines int      `json:"skipped_lines"`
	Notes        []string `json:"notes,omitempty"`
}

// Totals adds up the session summaries.
type Totals struct {
	Sessions   int                       `json:"sessions"`
	Calls      int                       `json:"calls"`
	Failures   int                       `json:"failures"`
	Fixed      int                       `json:"fixed"`
	Unresolved int                       `json:"unresolved"`
	Rejected   int                       `json:"rejected"`
	ByCategory map[diagnose.Category]int `json:"by_category"`
	// FixedFirstRetry counts the chains fixed by the first call to run the
	// target again.
	FixedFirstRetry int     `json:"fixed_first_retry"`
	SecondsLost     float64 `json:"seconds_lost"`
	CallsLost       int     `json:"calls_lost"`
	SkippedLines    int     `json:"skipped_lines"`
}

// Summarize counts the findings of a report.
func Summarize(r *Report) *Summary {
	sum := NewSummary()
	for _, sr := range r.Sessions {
		sum.Add(sr)
	}
	return sum
}

// NewSummary returns a Summary of no sessions, to Add them to.
func NewSummary() *Summary {
	return &Summary{Sessions: []SessionSummary{}, Totals: Totals{ByCategory: map[diagnose.Category]int{}}}
}

// Add counts the findings of one more session, which the Summary does not
// keep: sessions can be summed up as they are analyzed. The parts of a
// session (SessionReport.Part) add up to one, as if added whole.
func (sum *Summary) Add(sr *SessionReport) {
	t := &sum.Totals
	var ss SessionSummary
	if sum.open {
		ss = sum.Sessions[len(sum.Sessions)-1] // the row of the parts before
	}
	s := sr.Session
	ss.Path, ss.Format, ss.ID, ss.Title, ss.Notes = s.Path, s.Format, s.ID, s.Title, s.Notes
	ss.Calls += len(s.Calls)
	ss.SkippedLines += s.SkippedCount()
	for _, f := range sr.Failures {
		t.ByCategory[f.Category]++
		switch {
		case f.Category == diagnose.Rejected:
			ss.Rejected++
		case f.Fixed():
			ss.Failures++
			ss.Fixed++
		default:
			ss.Failures++
			ss.Unresolved++
		}
	}
	for _, ch := range sr.Chains {
		ss.SecondsLost += ch.Cost.Seconds
		ss.CallsLost += ch.Cost.Calls
		if ch.Fix != nil && len(ch.Retries) == 0 {
			t.FixedFirstRetry++
		}
	}
	if sum.open {
		sum.Sessions[len(sum.Sessions)-1] = ss
	} else {
		sum.Sessions = append(sum.Sessions, ss)
	}
	sum.open = sr.Part
	if sr.Part {
		return // the totals take the session once it is whole
	}
	t.Sessions++
	t.Calls += ss.Calls
	t.Failures += ss.Failures
	t.Fixed += ss.Fixed
	t.Unresolved += ss.Unresolved
	t.Rejected += ss.Rejected
	t.SecondsLost += ss.SecondsLost
	t.CallsLost += ss.CallsLost
	t.SkippedLines += ss.SkippedLines
}
