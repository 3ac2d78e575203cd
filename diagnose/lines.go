package diagnose

import (
	"regexp"
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
)

// The lines of an output that say why a command failed, when no signature
// says it better.

// firstLine returns the first non-blank line of s, cut to 200 runes.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return termtext.Cut(l, 200)
		}
	}
	return ""
}

var (
	// failureWordRE finds the words with which programs report failure.
	failureWordRE = regexp.MustCompile(`(?i)\b(?:error|fail(?:ed|ure)?|fatal|invalid|cannot|can't|unable to|denied|not found|refused|no such|exception|abort(?:ed)?)\b`)
	// elidedRE matches the marker a console copy of Claude Code puts
	// where it folded lines away.
	elidedRE = regexp.MustCompile(`^… \+\d+ lines? \(ctrl\+r to (?:see all|expand)\)$`)
)

// failureLine returns the line of out that best says why a command failed
// with no signature retrace knows: the last that reports a failure in so
// many words, or else the last of all; cut to 200 runes.
func failureLine(out string) string {
	last := ""
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || elidedRE.MatchString(l) {
			continue
		}
		if failureWordRE.MatchString(l) {
			return termtext.Cut(l, 200)
		}
		if last == "" {
			last = l
		}
	}
	return termtext.Cut(last, 200)
}

// lastLine returns the last non-blank line of s, cut to 200 runes.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return termtext.Cut(strings.TrimSpace(s), 200)
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}
