package report

import (
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/termtext"
)

// clean makes transcript text safe and compact for one table cell: escape
// sequences are removed (see termtext.EscapeLen), so none acts on the terminal, other control
// characters and invalid UTF-8 are replaced, characters that print nothing
// or turn the text around them are shown (see Invisible), and the text is
// cut to max runes on one line.
func clean(s string, max int) string {
	s = termtext.StripEscapes(s)
	var b strings.Builder
	n := 0
	space := false
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		text := ""
		switch {
		case r == utf8.RuneError && size == 1:
			r = '�'
		case r == '\n' || r == '\r' || r == '\t' || r == ' ':
			if space || n == 0 {
				continue
			}
			space = true
			r = ' '
		case Invisible(r):
			text = shown(r)
		case unicode.IsControl(r):
			r = '�'
		}
		if text == "" {
			text = string(r)
		}
		if r != ' ' {
			space = false
		}
		w := utf8.RuneCountInString(text)
		if n+w > max {
			return strings.TrimRight(b.String(), " ") + "…"
		}
		b.WriteString(text)
		n += w
	}
	return strings.TrimRight(b.String(), " ")
}

// cleanLine makes one line of transcript output safe for the terminal like
// clean, but keeps its spaces, so indented text stays aligned.
func cleanLine(s string, max int) string {
	s = termtext.StripEscapes(s)
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		text := string(r)
		switch {
		case r == utf8.RuneError && size == 1:
			text = "�"
		case r == '\t':
			text = "    "
		case Invisible(r):
			text = shown(r)
		case unicode.IsControl(r):
			text = "�"
		}
		w := utf8.RuneCountInString(text)
		if n+w > max {
			b.WriteString("…")
			break
		}
		b.WriteString(text)
		n += w
	}
	return strings.TrimRight(b.String(), " ")
}

// Invisible reports whether r prints nothing, or changes how the text
// around it reads, without being a control character: Unicode's format
// characters (zero-width spaces and joiners, bidi overrides and isolates,
// the byte order mark, tags), the line and paragraph separators, and the
// Hangul fillers, which print as blank letters. Any of them can make a
// command read as another. Text for people shows each as its escape
// (shown); JSON escapes it.
func Invisible(r rune) bool {
	switch r {
	case '\u2028', '\u2029', '\u115f', '\u1160', '\u3164', '\uffa0':
		return true
	}
	return r > 0x7f && unicode.Is(unicode.Cf, r)
}

// shown writes an invisible character as Go escapes it: \u202e,
// \U000e0041.
func shown(r rune) string {
	if r > 0xffff {
		return fmt.Sprintf(`\U%08x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// cleanText makes multi-line transcript text safe for a document: escape
// sequences are removed and other control characters replaced, while line
// breaks and tabs stay.
func cleanText(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = cleanLine(strings.TrimSuffix(l, "\r"), 4000)
	}
	return strings.Join(lines, "\n")
}

// duration writes seconds the short way people read them: 45s, 3m12s, 2h05m.
func duration(sec float64) string {
	d := int(math.Round(sec))
	switch {
	case d < 60:
		return fmt.Sprintf("%ds", d)
	case d < 3600:
		return fmt.Sprintf("%dm%02ds", d/60, d%60)
	}
	return fmt.Sprintf("%dh%02dm", d/3600, d%3600/60)
}

// lost prints the time a session's failures cost: "unknown" when the
// session records no times.
func lost(sec float64, untimed bool) string {
	if untimed {
		return "unknown"
	}
	return duration(sec)
}

// totalLostCell prints the time the failures of all sessions cost, for a
// table's total row: "unknown" when no session records times.
func totalLostCell(t analyzer.Totals) string {
	return lost(t.SecondsLost, t.Sessions > 0 && t.UntimedSessions == t.Sessions)
}

// totalLost says what the failures of all sessions cost: "4 calls and
// 2m10s", saying how many sessions the time leaves out for want of times.
func totalLost(t analyzer.Totals) string {
	calls := plural(t.CallsLost, "call")
	switch {
	case t.UntimedSessions == 0:
		return calls + " and " + duration(t.SecondsLost)
	case t.UntimedSessions == t.Sessions:
		return calls + " (no times recorded)"
	}
	return fmt.Sprintf("%s and %s (%s without times not counted)", calls, duration(t.SecondsLost), plural(t.UntimedSessions, "session"))
}

// number prints a value without needless decimals: 71.1, 775, 0.25.
func number(v float64) string {
	return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.3f", v), "0"), ".")
}

// plural writes "1 call" or "3 calls".
func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}
