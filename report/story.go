package report

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/diagnose"
)

// Text is the format of `retrace show`: chains told as stories.
const Text = "text"

// Show writes each chain as a story: the failed command and the error lines
// that matter, every call between with its role, the fix and what it
// changed, the cost and the fix's benchmark results.
func Show(w io.Writer, o Options, chains []*analyzer.Chain) error {
	switch o.Format {
	case JSON:
		return writeJSON(w, "pairs", nonNil(chains))
	case JSONL:
		return writeJSONL(w, slices.Values(chains))
	}
	s := &storyWriter{w: w, o: o}
	for i, ch := range chains {
		if i > 0 {
			s.printf("\n")
		}
		s.story(ch)
	}
	return s.err
}

type storyWriter struct {
	w   io.Writer
	o   Options
	err error
}

func (s *storyWriter) printf(format string, args ...any) {
	if s.err == nil {
		_, s.err = fmt.Fprintf(s.w, format, args...)
	}
}

func (s *storyWriter) story(ch *analyzer.Chain) {
	f := ch.Failure
	outcome := paint(s.o, yellow, "never fixed")
	if ch.Fix != nil {
		outcome = paint(s.o, green, fmt.Sprintf("fixed at msg %d", ch.Fix.Msg))
	}
	s.printf("%s — %s %s\n", paint(s.o, bold, clean(f.Target, 80)), outcome, paint(s.o, dim, "("+clean(f.Session.Path, 120)+")"))
	for _, g := range ch.Failures() {
		s.failure(g)
	}
	for i, st := range ch.Between {
		c := ch.BetweenCalls()[i]
		if st.Role == analyzer.RoleRetry {
			continue // told with the failures above
		}
		s.printf("\n  msg %-5d %-11s %s\n", st.Msg, st.Role, clean(st.Command, 160))
		if c.Text != "" {
			s.printf("            %s\n", paint(s.o, dim, "“"+clean(c.Text, 140)+"”"))
		}
	}
	switch {
	case ch.Fix != nil:
		s.fix(ch)
	case ch.Workaround != nil:
		s.printf("\n%s msg %-5d %s\n", paint(s.o, green, "↷"), ch.Workaround.Msg, clean(ch.Workaround.Command, 160))
		s.printf("            %s\n", clean(workaroundLine(ch), 300))
	default:
		s.printf("\n  no later call of %s succeeded\n", clean(f.Target, 80))
	}
	cost := fmt.Sprintf("%s, %s", plural(ch.Cost.Messages, "message"), plural(ch.Cost.Calls, "call"))
	if ch.Cost.Seconds > 0 {
		cost += ", " + duration(ch.Cost.Seconds)
	}
	if ch.Cost.Tokens > 0 {
		cost += fmt.Sprintf(", %d output tokens", ch.Cost.Tokens)
	}
	s.printf("\n  cost: %s\n", cost)
}

// failure tells one failed call: its command, why it failed, the lines of
// its output that matter.
func (s *storyWriter) failure(f *analyzer.Failure) {
	s.printf("\n%s msg %-5d %s\n", paint(s.o, red, "✗"), f.Msg, clean(f.Command, 160))
	if c := f.Call(); c != nil && c.Text != "" {
		s.printf("            %s\n", paint(s.o, dim, "“"+clean(c.Text, 140)+"”"))
	}
	why := string(f.Category)
	if f.Parser != "" {
		why += " (" + f.Parser + ")"
	}
	s.printf("            %s: %s\n", f.Evidence, why)
	for _, l := range f.Excerpt() {
		s.printf("            │ %s\n", cleanLine(l, 200))
	}
	if len(f.BadFlags) > 0 {
		line := "rejected " + strings.Join(f.BadFlags, ", ")
		if len(f.ValidFlags) > 0 {
			line += "; the usage text offered " + strings.Join(f.ValidFlags, ", ")
		}
		s.printf("            %s\n", clean(line, 300))
	}
	if len(f.Suggestions) > 0 {
		s.printf("            the parser suggested %s\n", clean(strings.Join(f.Suggestions, ", "), 200))
	}
	if e := f.Exception; e != nil && e.File != "" {
		s.printf("            %s\n", clean(raisedAt(e), 300))
	}
}

// raisedAt says where an exception was raised: "raised at app.py:12 in
// load", the function left out where the traceback does not name it.
func raisedAt(e *diagnose.ExceptionInfo) string {
	at := fmt.Sprintf("raised at %s:%d", clean(e.File, 160), e.Line)
	if e.Func != "" {
		at += " in " + clean(e.Func, 60)
	}
	return at
}

func (s *storyWriter) fix(ch *analyzer.Chain) {
	fix := ch.Fix
	s.printf("\n%s msg %-5d %s\n", paint(s.o, green, "✓"), fix.Msg, clean(fix.Command, 160))
	if c := ch.FixCall(); c != nil && c.Text != "" {
		s.printf("            %s\n", paint(s.o, dim, "“"+clean(c.Text, 140)+"”"))
	}
	for _, l := range fixLines(ch) {
		s.printf("            %s\n", clean(l, 300))
	}
	if n := len(ch.Benchmarks); n > 0 {
		result := headline(ch.Benchmarks)
		if n > 1 {
			result += fmt.Sprintf(" (%d numbers in all: retrace bench)", n)
		}
		s.printf("            result: %s\n", result)
	}
}

// fixLines says what the fix changed, one line per change.
func fixLines(ch *analyzer.Chain) []string {
	fix := ch.Fix
	var lines []string
	switch fix.Kind {
	case analyzer.FixEdit:
		line := "the same command, after editing " + strings.Join(fix.Files, ", ")
		if len(fix.Because) == 1 && fix.Because[0] == fix.CallID {
			line = "the same command, with " + strings.Join(fix.Files, ", ") + " written anew on its line"
		}
		if fix.InTraceback != nil {
			if *fix.InTraceback {
				line += ", the file the traceback pointed to"
			} else {
				line += ", not the file the traceback pointed to"
			}
		}
		return append(lines, line)
	case analyzer.FixEnvironment:
		if len(fix.Because) == 1 && fix.Because[0] == fix.CallID {
			if len(fix.Changes) == 0 {
				return append(lines, "the same command, with other commands around it on its line")
			}
			return append(lines, "the same command, with "+strings.Join(fix.Changes, "; ")+" added to its line")
		}
		return append(lines, "the same command, after: "+strings.Join(fix.Changes, "; "))
	case analyzer.FixWait:
		return append(lines, "the same command, after waiting: "+strings.Join(fix.Changes, "; "))
	case analyzer.FixSame:
		if fs := ch.Failures(); len(fs) > 0 && fs[len(fs)-1].Command != fix.Command {
			return append(lines, "the same command, written differently: the failure did not repeat")
		}
		return append(lines, "the same command, unchanged: the failure did not repeat")
	}
	d := ch.Diff
	if d == nil {
		return lines
	}
	if w := d.Wrapper; w != nil {
		lines = append(lines, "the same command, "+wrapperChange(w))
	}
	if in := d.Input; in != nil {
		lines = append(lines, fmt.Sprintf("its standard input changed: %s dropped, %s added",
			plural(in.RemovedLines, "line"), plural(in.AddedLines, "line")))
		for _, l := range in.Removed[:min(len(in.Removed), 3)] {
			lines = append(lines, "  - "+l)
		}
		for _, l := range in.Added[:min(len(in.Added), 3)] {
			lines = append(lines, "  + "+l)
		}
	}
	for _, r := range d.Renamed {
		how := map[analyzer.RenameBy]string{analyzer.RenameByValue: "same value", analyzer.RenameByContainment: "the value carried over", analyzer.RenameByName: "similar name"}[r.By]
		lines = append(lines, fmt.Sprintf("renamed %s → %s (%s)",
			strings.TrimSpace(r.From+" "+r.FromValue), strings.TrimSpace(r.To+" "+r.ToValue), how))
	}
	for _, c := range d.Changed {
		lines = append(lines, fmt.Sprintf("changed %s %s → %s", c.Flag, c.From, c.To))
	}
	for _, r := range d.Removed {
		lines = append(lines, "dropped "+r)
	}
	for _, a := range d.Added {
		lines = append(lines, "added "+a)
	}
	if ch.OfferedByUsage {
		lines = append(lines, "the usage text printed with the error already named every new flag")
	}
	for _, st := range ch.Between {
		if st.Role == analyzer.RoleDiagnostic && ch.OfferedByUsage {
			lines = append(lines, fmt.Sprintf("msg %d (%s) was not needed: the error had the answer", st.Msg, st.Program()))
			break
		}
	}
	return lines
}

// wrapperChange says how a command's wrappers changed: "run through
// powershell.exe -Command instead of cmd.exe /c".
func wrapperChange(w *analyzer.WrapperChange) string {
	switch {
	case w.From == "":
		return "run through " + w.To + " instead of directly"
	case w.To == "":
		return "run directly instead of through " + w.From
	}
	return "run through " + w.To + " instead of " + w.From
}

// workaroundLine says what did an unresolved chain's job: the program that
// replaced one not found, or the call that did the job another way.
func workaroundLine(ch *analyzer.Chain) string {
	w, f := ch.Workaround, ch.Failure
	if fs := ch.Failures(); len(fs) > 0 {
		f = fs[len(fs)-1]
	}
	switch {
	case w.Program() == "":
		return "did the job another way"
	case f.Category == diagnose.CommandNotFound && f.Program != "":
		return fmt.Sprintf("did the job with %s instead: %s was not found", w.Program(), f.Program)
	}
	return "did the job another way, with " + w.Program()
}
