package report

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/analyzer"
)

// lessonsMarkdown writes the lessons as instructions an agent can follow,
// one bullet per target: the flags it takes and the ones it does not.
func lessonsMarkdown(w io.Writer, lessons []*analyzer.Lesson) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "## Lessons from earlier sessions\n\n")
	if len(lessons) == 0 {
		fmt.Fprintf(bw, "No corrected mistakes were found.\n")
		return bw.Flush()
	}
	var targets []string
	byTarget := make(map[string][]*analyzer.Lesson)
	for _, l := range lessons {
		if _, ok := byTarget[l.Target]; !ok {
			targets = append(targets, l.Target)
		}
		byTarget[l.Target] = append(byTarget[l.Target], l)
	}
	for _, t := range targets {
		fmt.Fprintf(bw, "- %s\n", lessonLine(t, byTarget[t]))
	}
	return bw.Flush()
}

// lessonLine writes what a target's lessons teach in one sentence, each
// part setting a wrong thing against a right one of the same kind:
// "`b.py` takes `--num-runs`, `--warmup`; not `--num-prompts` (use
// `--num-runs`)", "`acme` does not take `--yes`", "`tree` is not
// installed: use `find` or `ls`".
func lessonLine(target string, lessons []*analyzer.Lesson) string {
	var not, values, instead []string
	times := 0
	for _, l := range lessons {
		times += l.Count
		switch l.Kind {
		case analyzer.LessonFlag:
			s := code(l.Wrong)
			if l.Right != "" {
				s += " (use " + code(l.Right) + ")"
			}
			not = append(not, s)
		case analyzer.LessonValue:
			values = append(values, code(l.Right)+", not "+code(l.Wrong))
		case analyzer.LessonCommand:
			instead = append(instead, code(l.Right))
		}
	}
	var parts []string
	if len(not) > 0 {
		if valid := lessons[0].ValidFlags; len(valid) > 0 {
			parts = append(parts, code(target)+" takes "+strings.Join(codes(valid), ", ")+"; not "+strings.Join(not, ", "))
		} else {
			parts = append(parts, code(target)+" does not take "+orList(not))
		}
	}
	if len(values) > 0 {
		parts = append(parts, code(target)+": "+strings.Join(values, "; "))
	}
	if len(instead) > 0 {
		parts = append(parts, code(target)+" is not installed: use "+orList(instead))
	}
	return strings.Join(parts, ". ") + fmt.Sprintf(". (Mistaken %s.)", timesWord(times))
}

// orList joins items as a sentence does: "a", "a or b", "a, b or c".
func orList(items []string) string {
	if len(items) < 2 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " or " + items[len(items)-1]
}

func timesWord(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

func codes(s []string) []string {
	out := slices.Clone(s)
	for i := range out {
		out[i] = code(out[i])
	}
	return out
}

// code writes s as Markdown inline code, with a fence longer than any run
// of backticks inside it.
func code(s string) string {
	s = clean(s, 200)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
