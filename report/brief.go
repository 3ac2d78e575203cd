package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"iter"
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
// Of the sessions as they come it keeps the chains that cost most only.
func writeBriefMarkdown(w io.Writer, b *docBuilder, sessions iter.Seq2[gathered, error]) error {
	var top costliest
	for s, err := range sessions {
		if err != nil {
			return err
		}
		sd := b.add(s.report, s.view)
		for _, ch := range sd.rows() {
			top.add(sd.Path, ch)
		}
	}
	d := b.done()
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	writeMarkdownHead(bw, d)
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

	costly := slices.Clone(d.Sessions)
	slices.SortStableFunc(costly, func(a, b *sessionDoc) int {
		return cmp.Or(cmp.Compare(b.CallsLost, a.CallsLost), cmp.Compare(b.Failures, a.Failures))
	})
	if len(costly) > 0 {
		p("## Sessions that cost most\n\n| session | calls | failures | fixed | never fixed | lost |\n| --- | ---: | ---: | ---: | ---: | --- |\n")
		for _, s := range costly[:min(briefTop, len(costly))] {
			name := code(clean(filepath.Base(s.Path), 40))
			if s.Title != "" {
				name += " " + mdEscape(clean(s.Title, 60))
			}
			p("| %s | %d | %d | %d | %d | %s |\n", mdCell(name), s.Calls, s.Failures, s.Fixed, s.Unresolved, strings.TrimSuffix(s.Lost, " lost"))
		}
		p("\n")
		if n := len(costly) - briefTop; n > 0 {
			p("And %s.\n\n", nMore(n, "session"))
		}
	}
	if top.n > 0 {
		p("## Failures that cost most\n\n| session | msg | target | failed with | outcome | change | cost |\n| --- | ---: | --- | --- | --- | --- | --- |\n")
		for _, r := range top.chains {
			p("| %s | %d | %s | %s | %s | %s | %s |\n", mdCell(code(clean(filepath.Base(r.path), 40))), r.ch.Msg,
				mdCell(code(clean(r.ch.Target, 40))), mdCell(mdEscape(clean(r.ch.Message, 80))), r.ch.Outcome,
				mdCell(mdEscape(clean(r.ch.Change, 100))), r.ch.Cost)
		}
		p("\n")
		if n := top.n - briefTop; n > 0 {
			p("And %s.\n\n", nMore(n, "failure chain"))
		}
	}
	p("Every session, failure and fix is in the full report: `retrace report -f html -o report.html`.\n")
	return bw.Flush()
}

// costliest keeps the briefTop chains that cost most of those added: the
// most calls first, then the most time, then the first added.
type costliest struct {
	chains []rankedChain
	n      int // the chains added
}

// A rankedChain is a chain a brief may list, and the session it is of.
type rankedChain struct {
	path string // of the chain's session
	ch   *chainDoc
}

// add takes one more chain, of the session at path.
func (c *costliest) add(path string, ch *chainDoc) {
	c.n++
	cheaper := func(r rankedChain) bool { // than ch
		return cmp.Or(cmp.Compare(ch.Calls, r.ch.Calls), cmp.Compare(ch.Seconds, r.ch.Seconds)) > 0
	}
	i := slices.IndexFunc(c.chains, cheaper)
	if i < 0 {
		i = len(c.chains)
	}
	if i < briefTop {
		c.chains = slices.Insert(c.chains, i, rankedChain{path, ch})
		c.chains = c.chains[:min(len(c.chains), briefTop)]
	}
}
