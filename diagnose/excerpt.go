package diagnose

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
)

// MaxExcerpt bounds the lines of an excerpt.
const MaxExcerpt = 12

// ExcerptOf returns the lines of output, the failed call's, that matter
// to a reviewer of d: a usage error's usage text and error line, the end of
// a traceback, or the lines around the error message. Escape sequences
// are taken out; lines are cut to 200 runes; at most MaxExcerpt are
// returned.
func (d *Diagnosis) ExcerptOf(output string) []string {
	lines := strings.Split(strings.TrimRight(termtext.StripEscapes(output), "\n"), "\n")
	start, end := -1, -1
	switch {
	case d.Category == CLIUsage:
		end = lastIndex(lines, func(l string) bool { return strings.Contains(l, d.Message) })
		start = lastIndex(lines[:max(end, 0)], func(l string) bool {
			low := strings.ToLower(l)
			return strings.HasPrefix(low, "usage:") || strings.HasPrefix(l, "Usage of ")
		})
		if start < 0 {
			start = end
		}
	case d.Exception != nil:
		end = lastIndex(lines, func(l string) bool { return strings.HasPrefix(l, d.Exception.Type) })
		start = lastIndex(lines[:max(end, 0)], func(l string) bool { return strings.Contains(l, "Traceback (most recent call last)") })
		if start < 0 || end-start > MaxExcerpt {
			start = end - MaxExcerpt + 1
		}
	default:
		at := lastIndex(lines, func(l string) bool { return d.Message != "" && strings.Contains(l, d.Message) })
		if at < 0 {
			at = len(lines) - 1
		}
		start, end = at-3, at+2
	}
	if end < 0 {
		end = len(lines) - 1
	}
	start = max(start, 0, end-MaxExcerpt+1)
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
