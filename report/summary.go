package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/termtext"
)

// The orders of the summary's sessions and chains (Options.Sort).
const (
	SortCost  = "cost"  // calls lost, the most first
	SortCount = "count" // failures (or a chain's attempts), the most first
	SortTime  = "time"  // time lost, the most first
)

// DefaultTop is how many sessions, targets, chains and lessons the summary
// shows of each by default.
const DefaultTop = 10

// summaryTable writes the summary a person reads: the sessions that cost
// most, the totals, the failures by category, the targets that failed most,
// the costliest chains and the top lessons, each list cut to o.Top with a
// line saying how to see the rest.
func summaryTable(w io.Writer, o Options, s *analyzer.Summary, r *analyzer.Report) error {
	top, ranked := o.Top, o.Top > 0
	if !ranked {
		top = math.MaxInt // every one, in input order
	}
	sessions := slices.Clone(s.Sessions)
	if o.By != "" {
		sessions = groups(sessions, o.By)
	}
	slices.SortStableFunc(sessions, func(a, b analyzer.SessionSummary) int {
		switch {
		case o.By == ByDay || o.By == ByWeek:
			// The latest first; sessions without times last.
			return cmp.Compare(dated(b), dated(a))
		case !ranked:
			return 0
		case o.Sort == SortCount:
			return cmp.Compare(b.Failures, a.Failures)
		case o.Sort == SortTime:
			return cmp.Compare(b.SecondsLost, a.SecondsLost)
		}
		return cmp.Or(cmp.Compare(b.CallsLost, a.CallsLost), cmp.Compare(b.Failures, a.Failures))
	})
	t := newTable("SESSION", "FORMAT", "DATE", "CALLS", "FAILED", "FIXED", "UNRESOLVED", "REJECTED", "LOST")
	labels := sessionLabels(s.Sessions)
	if o.By != "" {
		t = newTable(strings.ToUpper(o.By), "SESSIONS", "CALLS", "FAILED", "FIXED", "UNRESOLVED", "REJECTED", "LOST")
	}
	for _, ss := range sessions[:min(top, len(sessions))] {
		if o.By != "" {
			t.add(clean(ss.Path, 80), ss.ID, strconv.Itoa(ss.Calls), strconv.Itoa(ss.Failures),
				paint(o, green, strconv.Itoa(ss.Fixed)), unresolved(o, ss.Unresolved),
				strconv.Itoa(ss.Rejected), lost(ss.SecondsLost, ss.Untimed))
			continue
		}
		date := ""
		if !ss.Start.IsZero() {
			date = ss.Start.UTC().Format("2006-01-02")
		}
		t.add(labels[ss.Path+"\x00"+ss.ID], ss.Format, date, strconv.Itoa(ss.Calls), strconv.Itoa(ss.Failures),
			paint(o, green, strconv.Itoa(ss.Fixed)), unresolved(o, ss.Unresolved),
			strconv.Itoa(ss.Rejected), lost(ss.SecondsLost, ss.Untimed))
	}
	tot := s.Totals
	switch {
	case o.By != "":
		t.add("total", strconv.Itoa(tot.Sessions), strconv.Itoa(tot.Calls), strconv.Itoa(tot.Failures),
			paint(o, green, strconv.Itoa(tot.Fixed)), unresolved(o, tot.Unresolved), strconv.Itoa(tot.Rejected), lost(tot.SecondsLost, tot.UntimedSessions == tot.Sessions))
	case len(s.Sessions) > 1:
		t.add(fmt.Sprintf("total (%d sessions)", tot.Sessions), "", "", strconv.Itoa(tot.Calls), strconv.Itoa(tot.Failures),
			paint(o, green, strconv.Itoa(tot.Fixed)), unresolved(o, tot.Unresolved), strconv.Itoa(tot.Rejected), lost(tot.SecondsLost, tot.UntimedSessions == tot.Sessions))
	}
	if err := t.render(w, o); err != nil {
		return err
	}
	what := "session"
	if o.By != "" {
		what = o.By
	}
	if err := more(w, len(sessions)-top, what, "--top 0 shows every one"); err != nil {
		return err
	}
	if _, err := fmt.Fprintf(w, "\n%s\n", wrap(costSentence(tot), o.Width)); err != nil {
		return err
	}

	if len(tot.ByCategory) > 0 {
		if err := heading(w, o, "FAILURES BY CATEGORY"); err != nil {
			return err
		}
		c := newTable("CATEGORY", "COUNT")
		for _, cat := range diagnose.Categories {
			if n := tot.ByCategory[cat]; n > 0 {
				c.add(string(cat), strconv.Itoa(n))
			}
		}
		if err := c.render(w, o); err != nil {
			return err
		}
	}

	var chains []*analyzer.Chain
	for _, sr := range r.Sessions {
		chains = append(chains, sr.Chains...)
	}
	if len(chains) > 0 {
		if err := targetsTable(w, o, chains, top); err != nil {
			return err
		}
		slices.SortStableFunc(chains, func(a, b *analyzer.Chain) int {
			if !ranked {
				return 0
			}
			switch o.Sort {
			case SortCount:
				return cmp.Compare(len(b.Retries), len(a.Retries))
			case SortTime:
				return cmp.Compare(b.Cost.Seconds, a.Cost.Seconds)
			}
			return cmp.Or(cmp.Compare(b.Cost.Calls, a.Cost.Calls), cmp.Compare(b.Cost.Seconds, a.Cost.Seconds))
		})
		title := "FAILURES AND THEIR FIXES"
		if len(chains) > top {
			title = fmt.Sprintf("THE %d COSTLIEST FAILURES AND THEIR FIXES", top)
		}
		if err := heading(w, o, title); err != nil {
			return err
		}
		if err := pairsTable(w, o, chains[:min(top, len(chains))]); err != nil {
			return err
		}
		if err := more(w, len(chains)-top, "failure chain", `"retrace pairs" lists every one`); err != nil {
			return err
		}
	}
	if len(r.Lessons) > 0 {
		if err := heading(w, o, "LESSONS"); err != nil {
			return err
		}
		n := min(top, len(r.Lessons))
		if err := lessonsTable(w, o, r.Lessons[:n]); err != nil {
			return err
		}
		return more(w, len(r.Lessons)-n, "lesson", `"retrace lessons" lists every one`)
	}
	return nil
}

// The groups of the summary's sessions (Options.By).
const (
	ByProject = "project" // the folder the agent worked in
	ByDay     = "day"     // the day the session began, in UTC
	ByWeek    = "week"    // the ISO week the session began
	ByAgent   = "agent"   // the transcript format: the agent that wrote it
)

// groups adds up sessions by the key by names. A group's row is a SessionSummary
// whose Path is the group's name and whose ID counts its sessions.
func groups(sessions []analyzer.SessionSummary, by string) []analyzer.SessionSummary {
	var out []analyzer.SessionSummary
	at := map[string]int{}
	count := map[string]int{}
	for _, ss := range sessions {
		k := groupKey(ss, by)
		i, ok := at[k]
		if !ok {
			i = len(out)
			at[k] = i
			out = append(out, analyzer.SessionSummary{Path: k, Untimed: true})
		}
		g := &out[i]
		count[k]++
		g.ID = strconv.Itoa(count[k])
		g.Calls += ss.Calls
		g.Failures += ss.Failures
		g.Fixed += ss.Fixed
		g.Unresolved += ss.Unresolved
		g.Rejected += ss.Rejected
		g.CallsLost += ss.CallsLost
		g.SecondsLost += ss.SecondsLost
		g.Untimed = g.Untimed && ss.Untimed
	}
	return out
}

// dated returns the date of a group by day or week, or "" for the group of
// sessions without times, which sorts below every date.
func dated(g analyzer.SessionSummary) string {
	if strings.HasPrefix(g.Path, "(") {
		return ""
	}
	return g.Path
}

// groupKey names the group of a session.
func groupKey(ss analyzer.SessionSummary, by string) string {
	switch by {
	case ByProject:
		return cmp.Or(ss.Project, "(no project recorded)")
	case ByAgent:
		return ss.Format
	}
	if ss.Start.IsZero() {
		return "(no time recorded)"
	}
	if by == ByWeek {
		y, w := ss.Start.UTC().ISOWeek()
		return fmt.Sprintf("%d-W%02d", y, w)
	}
	return ss.Start.UTC().Format("2006-01-02")
}

// more writes the line that says how many rows of a list were left out,
// and how to see them; nothing when none was.
func more(w io.Writer, n int, what, how string) error {
	if n <= 0 {
		return nil
	}
	_, err := fmt.Fprintf(w, "… and %s; %s.\n", nMore(n, what), how)
	return err
}

// nMore counts what a list left out: "1 more session", "3 more sessions".
func nMore(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return fmt.Sprintf("%d more %s", n, what)
}

// targetsTable writes the targets with the most failure chains, up to
// top: how many, how many were fixed, in how many sessions.
func targetsTable(w io.Writer, o Options, chains []*analyzer.Chain, top int) error {
	type row struct {
		target                    string
		chains, fixed, unresolved int
		sessions                  map[string]bool
	}
	var rows []*row
	byTarget := map[string]*row{}
	for _, ch := range chains {
		r := byTarget[ch.Failure.Target]
		if r == nil {
			r = &row{target: ch.Failure.Target, sessions: map[string]bool{}}
			byTarget[r.target] = r
			rows = append(rows, r)
		}
		r.chains++
		if ch.Fix != nil {
			r.fixed++
		} else {
			r.unresolved++
		}
		r.sessions[ch.Session.Path+"\x00"+ch.Session.ID] = true
	}
	if len(rows) < 2 {
		return nil // the chains' table says it all
	}
	slices.SortStableFunc(rows, func(a, b *row) int { return cmp.Compare(b.chains, a.chains) })
	if err := heading(w, o, "TARGETS THAT FAILED MOST"); err != nil {
		return err
	}
	t := newTable("TARGET", "CHAINS", "FIXED", "UNRESOLVED", "SESSIONS")
	for _, r := range rows[:min(top, len(rows))] {
		t.add(clean(r.target, 60), strconv.Itoa(r.chains), paint(o, green, strconv.Itoa(r.fixed)),
			unresolved(o, r.unresolved), strconv.Itoa(len(r.sessions)))
	}
	if err := t.render(w, o); err != nil {
		return err
	}
	return more(w, len(rows)-top, "target", `"retrace errors" lists every failure`)
}

// sessionLabels names each session so that a reader tells them apart: the
// project the agent worked in and the start of the session's id, or else
// the file's name, or else its path, whichever first names it alone. Keys
// are path and id joined by a NUL byte.
func sessionLabels(sessions []analyzer.SessionSummary) map[string]string {
	names := func(ss analyzer.SessionSummary) []string {
		var ns []string
		if ss.Project != "" && ss.ID != "" {
			ns = append(ns, ss.Project+" "+shortID(ss.ID))
		}
		return append(ns, filepath.Base(ss.Path), ss.Path)
	}
	count := map[string]int{}
	for _, ss := range sessions {
		for _, n := range names(ss) {
			count[n]++
		}
	}
	labels := make(map[string]string, len(sessions))
	for _, ss := range sessions {
		ns := names(ss)
		l := ns[len(ns)-1]
		for _, n := range ns {
			if count[n] == 1 {
				l = n
				break
			}
		}
		labels[ss.Path+"\x00"+ss.ID] = clean(l, 80)
	}
	return labels
}

// shortID returns the start of an id, enough to tell sessions apart:
// eight characters of a generated one (a UUID, opencode's "ses_…"), up to
// 24 of a name such as SWE-bench's "django__django-11099".
func shortID(id string) string {
	id = strings.TrimPrefix(id, "ses_")
	if len(id) >= 8 && strings.Trim(id[:8], "0123456789abcdefABCDEF") == "" {
		return id[:8]
	}
	return termtext.Cut(id, 24)
}
