package analyzer

import (
	"slices"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/diagnose"
)

// A Summary counts what the analysis found: the object `retrace summary`
// prints.
type Summary struct {
	Sessions []SessionSummary `json:"sessions"`
	Totals   Totals           `json:"totals"`

	open  bool   // the last session added was a part, to be continued
	spans []span // the stretches the open session's chains cover
	timed bool   // a call of the open session has a time
}

// A SessionSummary counts the calls and failures of one session.
type SessionSummary struct {
	Path   string `json:"path"`
	Format string `json:"format"`
	ID     string `json:"id"`
	Title  string `json:"title,omitzero"`
	// Project is the folder the agent worked in (the last element of its
	// working directory), when the transcript records it.
	Project    string    `json:"project,omitzero"`
	Start      time.Time `json:"start,omitzero"` // when the session began; zero when unknown
	Calls      int       `json:"calls"`
	Failures   int       `json:"failures"`   // failed calls, rejected ones not included
	Fixed      int       `json:"fixed"`      // failures a later call fixed
	Unresolved int       `json:"unresolved"` // failures nothing fixed
	Rejected   int       `json:"rejected"`   // calls the user or a sandbox refused
	// SecondsLost is the time the failure chains cover, from each first
	// failure to its fix (or to the last retry when unresolved), a stretch
	// of time counted once however many chains overlap on it.
	SecondsLost float64 `json:"seconds_lost"`
	// CallsLost counts the calls made from first failures to fixes, each
	// call once.
	CallsLost int `json:"calls_lost"`
	// Untimed says that the session records no times and its failures
	// cost some: SecondsLost is unknown rather than zero.
	Untimed      bool     `json:"untimed,omitzero"`
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
	// UntimedSessions counts the Untimed sessions, whose time lost is
	// unknown and not in SecondsLost.
	UntimedSessions int `json:"untimed_sessions,omitzero"`
	SkippedLines    int `json:"skipped_lines"`
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
// session (SessionReport.Part) add up to one, as if added whole; a session
// whose last part never came (its input was cut short) is counted as far
// as it went once another session begins, or at End.
func (sum *Summary) Add(sr *SessionReport) {
	if sum.open && sum.Sessions[len(sum.Sessions)-1].Path != sr.Session.Path {
		sum.End()
	}
	t := &sum.Totals
	var ss SessionSummary
	if sum.open {
		ss = sum.Sessions[len(sum.Sessions)-1] // the row of the parts before
	} else {
		sum.spans, sum.timed = sum.spans[:0], false
	}
	s := sr.Session
	for _, c := range s.Calls {
		if sum.timed {
			break
		}
		sum.timed = !c.Start.IsZero()
	}
	ss.Path, ss.Format, ss.ID, ss.Title, ss.Notes = s.Path, s.Format, s.ID, s.Title, s.Notes
	ss.Project, ss.Start = projectOf(s.Cwd), s.Start
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
		sum.spans = append(sum.spans, spanOf(ch))
		if ch.Fix != nil && len(ch.Retries) == 0 {
			t.FixedFirstRetry++
		}
	}
	ss.SecondsLost, ss.CallsLost = covered(sum.spans)
	ss.Untimed = !sum.timed && len(sum.spans) > 0
	if sum.open {
		sum.Sessions[len(sum.Sessions)-1] = ss
	} else {
		sum.Sessions = append(sum.Sessions, ss)
	}
	sum.open = sr.Part
	if !sr.Part { // the totals take the session once it is whole
		sum.total(ss)
	}
}

// End counts, as far as it went, a session whose last part never came:
// call it once every session is added, before the totals are read.
func (sum *Summary) End() {
	if sum.open {
		sum.total(sum.Sessions[len(sum.Sessions)-1])
		sum.open = false
	}
}

// total adds the counts of the session ss to the totals.
func (sum *Summary) total(ss SessionSummary) {
	t := &sum.Totals
	t.Sessions++
	t.Calls += ss.Calls
	t.Failures += ss.Failures
	t.Fixed += ss.Fixed
	t.Unresolved += ss.Unresolved
	t.Rejected += ss.Rejected
	t.SecondsLost += ss.SecondsLost
	t.CallsLost += ss.CallsLost
	if ss.Untimed {
		t.UntimedSessions++
	}
	t.SkippedLines += ss.SkippedLines
}

// A span is the stretch of a session a failure chain covers: from its first
// failure to its fix, or to its last retry, in time and in calls. Chains
// read back from JSON know no call ordinals: their calls are counted as
// their cost says.
type span struct {
	from, to   time.Time
	first, end int // call ordinals; first < 0 when unknown
	calls      int // the chain's Cost.Calls, for when first < 0
}

// spanOf returns the span of ch.
func spanOf(ch *Chain) span {
	sp := span{from: ch.Failure.Time, first: -1, calls: ch.Cost.Calls}
	sp.to = sp.from.Add(time.Duration(ch.Cost.Seconds * float64(time.Second)))
	if c := ch.Failure.call; c != nil {
		sp.first, sp.end = c.Ordinal, c.Ordinal+ch.Cost.Calls
	}
	return sp
}

// covered returns the seconds and the calls the spans cover, each stretch
// counted once.
func covered(spans []span) (seconds float64, calls int) {
	var timed, counted []span
	for _, sp := range spans {
		if !sp.from.IsZero() && sp.to.After(sp.from) {
			timed = append(timed, sp)
		}
		if sp.first >= 0 {
			counted = append(counted, sp)
		} else {
			calls += sp.calls
		}
	}
	slices.SortFunc(timed, func(a, b span) int { return a.from.Compare(b.from) })
	var end time.Time
	for _, sp := range timed {
		if sp.from.After(end) {
			end = sp.from
		}
		if sp.to.After(end) {
			seconds += sp.to.Sub(end).Seconds()
			end = sp.to
		}
	}
	slices.SortFunc(counted, func(a, b span) int { return a.first - b.first })
	next := -1 // the first ordinal not yet counted
	for _, sp := range counted {
		next = max(next, sp.first)
		if sp.end > next {
			calls += sp.end - next
			next = sp.end
		}
	}
	return seconds, calls
}

// projectOf returns the last element of a working directory, written with
// slashes or backslashes: "/home/me/src/shop" and `C:\src\shop` are shop.
func projectOf(cwd string) string {
	cwd = strings.TrimRight(cwd, `/\`)
	return cwd[strings.LastIndexAny(cwd, `/\`)+1:]
}
