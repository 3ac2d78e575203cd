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

// SummaryTable writes the summary a person reads: the sessions that cost
// most, the totals, the failures by category, the targets that failed most,
// the costliest chains and the top lessons, each list cut to o.Top with a
// line saying how to see the rest. d holds the chains, s counts the
// sessions, and d and s were given the same sessions.
func SummaryTable(w io.Writer, o Options, s *analyzer.Summary, d *Digest, lessons []*analyzer.Lesson) error {
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
			paint(o, green, strconv.Itoa(tot.Fixed)), unresolved(o, tot.Unresolved), strconv.Itoa(tot.Rejected), totalLostCell(tot))
	case len(s.Sessions) > 1:
		t.add(fmt.Sprintf("total (%d sessions)", tot.Sessions), "", "", strconv.Itoa(tot.Calls), strconv.Itoa(tot.Failures),
			paint(o, green, strconv.Itoa(tot.Fixed)), unresolved(o, tot.Unresolved), strconv.Itoa(tot.Rejected), totalLostCell(tot))
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

	if d.seen > 0 {
		if err := targetsTable(w, o, d.targets, top); err != nil {
			return err
		}
		title := "FAILURES AND THEIR FIXES"
		if d.seen > top {
			title = fmt.Sprintf("THE %d COSTLIEST FAILURES AND THEIR FIXES", top)
		}
		if err := heading(w, o, title); err != nil {
			return err
		}
		if err := pairsTable(w, o, slices.Values(d.chains[:min(top, len(d.chains))])); err != nil {
			return err
		}
		if err := more(w, d.seen-top, "failure chain", `"retrace pairs" lists every one`); err != nil {
			return err
		}
	}
	if len(lessons) > 0 {
		if err := heading(w, o, "LESSONS"); err != nil {
			return err
		}
		n := min(top, len(lessons))
		if err := lessonsTable(w, o, lessons[:n]); err != nil {
			return err
		}
		return more(w, len(lessons)-n, "lesson", `"retrace lessons" lists every one`)
	}
	return nil
}

// A Digest keeps, of the sessions added one at a time, what SummaryTable
// prints of their failure chains: those it lists (the Options.Top that
// cost most, or all of them in order) and the counts of each target. The
// rest of each session can go, so that the summary of any number of
// sessions holds a few chains.
type Digest struct {
	o        Options
	chains   []*analyzer.Chain // ranked, at most o.Top when it is > 0
	seen     int               // the chains added
	targets  []*targetCount    // in the order first seen
	byTarget map[string]*targetCount
	// pending lists the targets counted for the parts of a session that
	// has not ended (SessionReport.Part): a part knows the path of its
	// session but not its id, which the last part brings.
	pending []*targetCount
}

// A targetCount counts the failure chains of one target.
type targetCount struct {
	target                    string
	chains, fixed, unresolved int
	sessions                  map[string]bool // path and id joined by NUL
}

// NewDigest returns a Digest of no session, to keep what a summary with
// the options o prints.
func NewDigest(o Options) *Digest {
	return &Digest{o: o, byTarget: map[string]*targetCount{}}
}

// Add keeps what the summary prints of the chains of sr. The parts of a
// session count as the session their last part names.
func (d *Digest) Add(sr *analyzer.SessionReport) {
	for _, ch := range sr.Chains {
		tc := d.add(ch)
		if sr.Part {
			d.pending = append(d.pending, tc)
		}
	}
	if sr.Part || len(d.pending) == 0 {
		return
	}
	part, whole := digestKey(sr.Session.Path, ""), digestKey(sr.Session.Path, sr.Session.ID)
	for _, tc := range d.pending {
		if tc.sessions[part] {
			delete(tc.sessions, part)
			tc.sessions[whole] = true
		}
	}
	d.pending = nil
}

// digestKey names a session among those a Digest counts.
func digestKey(path, id string) string { return path + "\x00" + id }

// add keeps what the summary prints of ch, and returns the count of its
// target.
func (d *Digest) add(ch *analyzer.Chain) *targetCount {
	d.seen++
	tc := d.byTarget[ch.Failure.Target]
	if tc == nil {
		tc = &targetCount{target: ch.Failure.Target, sessions: map[string]bool{}}
		d.byTarget[tc.target] = tc
		d.targets = append(d.targets, tc)
	}
	tc.chains++
	if ch.Fix != nil {
		tc.fixed++
	} else {
		tc.unresolved++
	}
	tc.sessions[digestKey(ch.Session.Path, ch.Session.ID)] = true
	if d.o.Top <= 0 {
		d.chains = append(d.chains, ch)
		return tc
	}
	// After the chains that rank as high, so that ties keep their order.
	i := slices.IndexFunc(d.chains, func(c *analyzer.Chain) bool { return d.rank(ch, c) < 0 })
	if i < 0 {
		i = len(d.chains)
	}
	if i < d.o.Top {
		d.chains = slices.Insert(d.chains, i, ch)
		d.chains = d.chains[:min(len(d.chains), d.o.Top)]
	}
	return tc
}

// rank compares two chains as the summary lists them: negative when a
// comes first, by the cost that Options.Sort names.
func (d *Digest) rank(a, b *analyzer.Chain) int {
	switch d.o.Sort {
	case SortCount:
		return cmp.Compare(len(b.Retries), len(a.Retries))
	case SortTime:
		return cmp.Compare(b.Cost.Seconds, a.Cost.Seconds)
	}
	return cmp.Or(cmp.Compare(b.Cost.Calls, a.Cost.Calls), cmp.Compare(b.Cost.Seconds, a.Cost.Seconds))
}

// MapStrings replaces each text the Digest keeps from transcripts with f
// of it, as masking a secret learned after the chain was kept does.
func (d *Digest) MapStrings(f func(string) string) {
	for _, ch := range d.chains {
		ch.MapStrings(f)
	}
	for _, tc := range d.targets {
		tc.target = f(tc.target)
	}
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
func targetsTable(w io.Writer, o Options, targets []*targetCount, top int) error {
	if len(targets) < 2 {
		return nil // the chains' table says it all
	}
	rows := slices.Clone(targets)
	slices.SortStableFunc(rows, func(a, b *targetCount) int { return cmp.Compare(b.chains, a.chains) })
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
