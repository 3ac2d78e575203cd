package analyzer

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
)

// maxExcerpt bounds the lines of an excerpt.
const maxExcerpt = 12

// Excerpt returns the lines of the failed call's output that matter to a
// reviewer: a usage error's usage text and error line, the end of a
// traceback, or the lines around the error message. Lines are cut to 200
// runes; at most 12 are returned.
func (f *Failure) Excerpt() []string { return f.excerpt }

// excerptOf finds the Excerpt of f in output, the failed call's output.
func excerptOf(f *Failure, output string) []string {
	lines := strings.Split(strings.TrimRight(termtext.StripEscapes(output), "\n"), "\n")
	start, end := -1, -1
	switch {
	case f.Category == CLIUsage:
		end = lastIndex(lines, func(l string) bool { return strings.Contains(l, f.Message) })
		start = lastIndex(lines[:max(end, 0)], func(l string) bool {
			low := strings.ToLower(l)
			return strings.HasPrefix(low, "usage:") || strings.HasPrefix(l, "Usage of ")
		})
		if start < 0 {
			start = end
		}
	case f.Exception != nil:
		end = lastIndex(lines, func(l string) bool { return strings.HasPrefix(l, f.Exception.Type) })
		start = lastIndex(lines[:max(end, 0)], func(l string) bool { return strings.Contains(l, "Traceback (most recent call last)") })
		if start < 0 || end-start > maxExcerpt {
			start = end - maxExcerpt + 1
		}
	default:
		at := lastIndex(lines, func(l string) bool { return f.Message != "" && strings.Contains(l, f.Message) })
		if at < 0 {
			at = len(lines) - 1
		}
		start, end = at-3, at+2
	}
	if end < 0 {
		end = len(lines) - 1
	}
	start = max(start, 0, end-maxExcerpt+1)
	end = min(end, len(lines)-1)
	var out []string
	for _, l := range lines[start : end+1] {
		if l = strings.TrimRight(l, " \t\r"); l != "" || len(out) > 0 {
			out = append(out, termtext.Cut(l, 200))
		}
	}
	return out
}

// lastIndex returns the index of the last line for which ok is true, or -1.
func lastIndex(lines []string, ok func(string) bool) int {
	for i := len(lines) - 1; i >= 0; i-- {
		if ok(lines[i]) {
			return i
		}
	}
	return -1
}
