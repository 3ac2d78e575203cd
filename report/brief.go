package report

import (
	"bufio"
	"cmp"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// briefTop is how many sessions and failure chains a brief report lists.
const briefTop = 10

// MaxBrief is the most characters a brief report takes: a pull-request
// comment on GitHub holds 65,536.
const MaxBrief = 60_000

// writeBriefMarkdown writes the post-mortem short enough for a pull-request
// comment: the totals, the failures by category, the mistakes made most,
// the sessions and the failure chains that cost most, and where to find
// the rest. Every cell is cut, so its length does not grow with the input.
func writeBriefMarkdown(w *bufio.Writer, d *document) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	writeMarkdownHead(w, d)
	if len(d.Lessons) > 0 {
		p("## Mistakes made most\n\n| target | wrong | right | times |\n| --- | --- | --- | ---: |\n")
		for _, l := range d.Lessons {
			right := "(drop it)"
			if l.Right != "" {
				right = mdCell(code(clean(l.Right, 60)))
			}
			p("| %s | %s | %s | %d |\n", mdCell(code(clean(l.Target, 60))), mdCell(code(clean(l.Wrong, 60))), right, l.Count)
		}
		p("\n")
	}

	sessions := slices.Clone(d.Sessions)
	slices.SortStableFunc(sessions, func(a, b *sessionDoc) int {
		return cmp.Or(cmp.Compare(b.CallsLost, a.CallsLost), cmp.Compare(b.Failures, a.Failures))
	})
	if len(sessions) > 0 {
		p("## Sessions that cost most\n\n| session | calls | failures | fixed | never fixed | lost |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
		for _, s := range sessions[:min(briefTop, len(sessions))] {
			name := code(clean(filepath.Base(s.Path), 40))
			if s.Title != "" {
				name += " " + mdEscape(clean(s.Title, 60))
			}
			p("| %s | %d | %d | %d | %d | %s |\n", mdCell(name), s.Calls, s.Failures, s.Fixed, s.Unresolved, strings.TrimSuffix(s.Lost, " lost"))
		}
		p("\n")
		if n := len(sessions) - briefTop; n > 0 {
			p("And %s.\n\n", nMore(n, "session"))
		}
	}
	type ranked struct {
		s  *sessionDoc
		ch *chainDoc
	}
	var chains []ranked
	for _, s := range d.Sessions {
		for _, ch := range s.Chains {
			chains = append(chains, ranked{s, ch})
		}
		for _, ch := range s.Open {
			chains = append(chains, ranked{s, ch})
		}
	}
	if len(chains) > 0 {
		slices.SortStableFunc(chains, func(a, b ranked) int {
			return cmp.Or(cmp.Compare(b.ch.Calls, a.ch.Calls), cmp.Compare(b.ch.Seconds, a.ch.Seconds))
		})
		p("## Failures that cost most\n\n| session | msg | target | failed with | outcome | change | cost |\n| --- | ---: | --- | --- | --- | --- | --- |\n")
		for _, r := range chains[:min(briefTop, len(chains))] {
			p("| %s | %d | %s | %s | %s | %s | %s |\n", mdCell(code(clean(filepath.Base(r.s.Path), 40))), r.ch.Msg,
				mdCell(code(clean(r.ch.Target, 40))), mdCell(mdEscape(clean(r.ch.Message, 80))), r.ch.Outcome,
				mdCell(mdEscape(clean(r.ch.Change, 100))), r.ch.Cost)
		}
		p("\n")
		if n := len(chains) - briefTop; n > 0 {
			p("And %s.\n\n", nMore(n, "failure chain"))
		}
	}
	p("Every session, failure and fix is in the full report: `retrace report -f html -o report.html`.\n")
}
