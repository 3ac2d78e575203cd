package report

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/retrace-dev/retrace/analyzer"
)

// HTML is the format of a self-contained post-mortem page.
const HTML = "html"

// The marks a post-mortem carries in its first lines, so that a file can be
// known for one PostMortem wrote (IsPostMortem): an HTML comment at the top
// of the Markdown, which renders as nothing, and a generator meta element
// in the page's head.
const (
	markdownMark = "<!-- Written by retrace report. -->"
	htmlMark     = `<meta name="generator" content="retrace report">`
)

// IsPostMortem reports whether head, the first bytes of a file (a KiB is
// enough), is the start of a post-mortem PostMortem wrote, in Markdown or
// in HTML.
func IsPostMortem(head []byte) bool {
	if bytes.HasPrefix(head, []byte(markdownMark+"\n")) {
		return true
	}
	return bytes.HasPrefix(head, []byte("<!DOCTYPE html>\n")) && bytes.Contains(head, []byte("\n"+htmlMark+"\n"))
}

// PostMortem writes the report people share: per session, what went wrong,
// what fixed it, what it cost and what the benchmarks showed; across
// sessions, the totals and the mistakes made most. Its format is Markdown
// or HTML.
func PostMortem(w io.Writer, o Options, r *analyzer.Report) error {
	costs := make([][]chainCost, len(r.Sessions))
	for i, sr := range r.Sessions {
		costs[i] = chainCosts(sr)
	}
	sessions := func(yield func(gathered, error) bool) {
		for _, sr := range r.Sessions {
			if !yield(gathered{sr, viewCalls(sr)}, nil) {
				return
			}
		}
	}
	return writePostMortem(w, o, postMortem{r.Summary, nonNil(r.Lessons), costs, sessions})
}

// A gathered session is one a post-mortem tells: its report, and what the
// post-mortem reads of its calls.
type gathered struct {
	report *analyzer.SessionReport
	view   callView
}

// A postMortem is what a post-mortem is written from.
type postMortem struct {
	sum *analyzer.Summary // of the sessions
	// lessons are the lessons the sessions teach, or nil for those to be
	// drawn from the sessions as they come.
	lessons []*analyzer.Lesson
	costs   [][]chainCost // what each session's chains cost (see chainCosts)
	// sessions yields the sessions in the order sum lists them.
	sessions iter.Seq2[gathered, error]
}

// writePostMortem writes the post-mortem pm as o says. Each session is
// written, and let go of, as it comes; what the head of the post-mortem
// reads of them (their counts, the lessons they teach) is kept, and the
// head written once the last one is in.
func writePostMortem(w io.Writer, o Options, pm postMortem) error {
	b := newDocBuilder(pm.sum, pm.lessons)
	if o.Format == HTML {
		return writeHTML(w, b, pm.costs, pm.sessions)
	}
	if o.Brief {
		return writeBriefMarkdown(w, b, pm.sessions)
	}
	return writeMarkdown(w, b, pm.sessions)
}

// writeMarkdown writes the post-mortem as GitHub-flavoured Markdown. Text
// from transcripts goes in code spans and fences, or is escaped.
func writeMarkdown(w io.Writer, b *docBuilder, sessions iter.Seq2[gathered, error]) error {
	var sections spool
	for s, err := range sessions {
		if err != nil {
			return err
		}
		writeSessionMarkdown(sections.writer(), b.add(s.report, s.view))
	}
	d := b.done()
	bw := bufio.NewWriter(w)
	p := func(format string, args ...any) { fmt.Fprintf(bw, format, args...) }
	writeMarkdownHead(bw, d)
	if len(d.Lessons) > 0 {
		p("## Mistakes made most\n\n| target | wrong | right | times |\n| --- | --- | --- | ---: |\n")
		for _, l := range d.Lessons {
			right := "(drop it)" // an instruction, not code
			if l.Right != "" {
				right = mdCell(code(l.Right))
			}
			p("| %s | %s | %s | %d |\n", mdCell(code(l.Target)), mdCell(code(l.Wrong)), right, l.Count)
		}
		p("\nFor an agent's `AGENTS.md` or `CLAUDE.md`:\n\n%s\n\n", fence(strings.Join(d.Snippet, "\n"), "markdown"))
	}
	if err := sections.writeTo(bw); err != nil {
		return err
	}
	return bw.Flush()
}

// A spool keeps what is written to it compressed, until writeTo writes it
// out: the sessions of a post-mortem, written before its head.
type spool struct {
	buf bytes.Buffer
	zw  *s2.Writer
	bw  *bufio.Writer
}

// writer returns the writer of the spool.
func (s *spool) writer() *bufio.Writer {
	if s.bw == nil {
		s.zw = s2.NewWriter(&s.buf, s2.WriterConcurrency(1))
		s.bw = bufio.NewWriter(s.zw)
	}
	return s.bw
}

// writeTo writes what was written to the spool to w, and empties it.
func (s *spool) writeTo(w io.Writer) error {
	if s.bw == nil {
		return nil
	}
	if err := s.bw.Flush(); err != nil {
		return err
	}
	if err := s.zw.Close(); err != nil {
		return err
	}
	_, err := io.Copy(w, s2.NewReader(&s.buf))
	*s = spool{}
	return err
}

// writeMarkdownHead writes the start of a post-mortem in Markdown: its
// mark, its title, the totals and the failures by category.
func writeMarkdownHead(w *bufio.Writer, d *document) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("%s\n# Post-mortem: %s\n\n", markdownMark, plural(d.Totals.Sessions, "session"))
	p("%s, %s (%d fixed, %d never fixed), %d refused. %s\n\n",
		plural(d.Totals.Calls, "call"), plural(d.Totals.Failures, "failure"),
		d.Totals.Fixed, d.Totals.Unresolved, d.Totals.Rejected, mdEscape(d.Sentence))
	if len(d.Categories) > 0 {
		p("| category | failures |\n| --- | ---: |\n")
		for _, c := range d.Categories {
			p("| %s | %d |\n", c.Category, c.Count)
		}
		p("\n")
	}
}

func writeSessionMarkdown(w io.Writer, s *sessionDoc) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	title := s.Title
	if title == "" {
		title = s.ID
	}
	p("## %s\n\n", mdEscape(clean(title, 120)))
	var facts []string
	facts = append(facts, code(s.Path), s.Format)
	if s.Agent != "" {
		facts = append(facts, "version "+mdEscape(clean(s.Agent, 40)))
	}
	if s.Model != "" {
		facts = append(facts, mdEscape(clean(s.Model, 60)))
	}
	if s.Start != "" {
		facts = append(facts, "started "+s.Start)
	}
	if s.Duration != "" {
		facts = append(facts, "ran "+s.Duration)
	}
	p("%s\n\n", strings.Join(facts, " · "))
	p("%s, %s (%d fixed, %d never fixed), %s.\n\n", plural(s.Calls, "call"), plural(s.Failures, "failure"), s.Fixed, s.Unresolved, s.Lost)
	for _, n := range s.Notes {
		p("> %s\n\n", mdEscape(clean(n, 300)))
	}
	if len(s.Chains) > 0 {
		p("### Failures and their fixes\n\n")
		for _, ch := range s.Chains {
			writeChainMarkdown(w, ch)
		}
	}
	if len(s.Open) > 0 {
		p("### Never fixed\n\n")
		for _, ch := range s.Open {
			writeChainMarkdown(w, ch)
		}
	}
	if len(s.Results) > 0 {
		p("### Benchmark results\n\n| target | metric | unit | context | runs | first | best | last | change | trend | baseline |\n| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | ---: |\n")
		for _, r := range s.Results {
			p("| %s | %s | %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", mdCell(code(r.Target)), mdCell(mdEscape(clean(r.Label, 60))), mdCell(mdEscape(r.Unit)),
				mdCell(code(r.Context)), r.Runs, r.First, r.Best, r.Last, r.Change, r.Trend, r.Baseline)
		}
		p("\n")
	}
}

func writeChainMarkdown(w io.Writer, ch *chainDoc) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format, args...) }
	p("#### %d. %s — %s\n\n", ch.N, code(ch.Target), ch.Outcome)
	for _, f := range ch.Failures {
		if f.Text != "" {
			p("> %s\n\n", mdEscape(clean(f.Text, 300)))
		}
		p("**Failed** at msg %d, %s:\n\n%s\n\n", f.Msg, mdEscape(f.Why), fence(f.Command, "sh"))
		if len(f.Excerpt) > 0 {
			p("%s\n\n", fence(cleanLines(f.Excerpt), "text"))
		}
		for _, n := range f.Notes {
			p("- %s\n", mdEscape(clean(n, 300)))
		}
		if len(f.Notes) > 0 {
			p("\n")
		}
	}
	if len(ch.Between) > 0 {
		p("**Between**:\n\n")
		for _, st := range ch.Between {
			p("- msg %d, %s: %s\n", st.Msg, st.Role, code(clean(st.Command, 160)))
		}
		p("\n")
	}
	if fx := ch.Fix; fx != nil {
		if fx.Text != "" {
			p("> %s\n\n", mdEscape(clean(fx.Text, 300)))
		}
		p("**Fixed** at msg %d:\n\n%s\n\n", fx.Msg, fence(fx.Command, "sh"))
		for _, l := range fx.Lines {
			p("- %s\n", mdEscape(clean(l, 300)))
		}
		if fx.Result != "" {
			p("- result: **%s**\n", mdEscape(fx.Result))
		}
		p("\n")
	}
	p("Cost: %s.\n\n", ch.Cost)
}

// cleanLines cleans each line of an excerpt, keeping its indentation.
func cleanLines(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = cleanLine(l, 200)
	}
	return strings.Join(out, "\n")
}

// fence puts text in a fenced code block whose fence is longer than any
// run of backticks inside it.
func fence(text, lang string) string {
	text = strings.TrimRight(text, "\n")
	f := "```"
	for strings.Contains(text, f) {
		f += "`"
	}
	return f + lang + "\n" + text + "\n" + f
}

// mdEscape escapes what Markdown would read as markup in running text:
// emphasis, code, links, HTML and table pipes anywhere; headings, lists and
// quotes at the start; an ampersand that could start an entity.
func mdEscape(s string) string {
	var b strings.Builder
	for i, r := range s {
		switch {
		case strings.ContainsRune("\\`*_[]<>|~", r),
			i == 0 && strings.ContainsRune("#-+!=>", r),
			r == '&' && i+1 < len(s) && (s[i+1] == '#' || isLetter(s[i+1])):
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// mdCell makes text safe inside a Markdown table cell: no line breaks, and
// pipes escaped.
func mdCell(s string) string {
	s = strings.NewReplacer("\n", " ", "\r", " ").Replace(s)
	return strings.ReplaceAll(s, "|", `\|`)
}
