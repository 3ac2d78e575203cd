// Package termtext reads text written for a terminal: it knows the grammar
// of the escape sequences programs print into their output (colours,
// cursor moves, window titles, links, character sets) and takes them out,
// and it cuts text to a number of runes. Failure diagnosis, benchmark
// reading and the reports all read transcript text through it, so that
// they see the same text for the same output.
//
// Making text safe to show (control characters, invisible ones) is the
// report's business; what counts as an escape sequence is decided here
// only.
package termtext

import "strings"

// EscapeLen returns the length of the escape sequence s starts with, or 0
// when it starts with none. The sequences are those of ECMA-48 that
// terminals act on, the matches of
//
//	\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]+[0-~]|[0-Z\\-~])|\x{9b}[0-?]*[ -/]*[@-~]
//
// in order: a control sequence (CSI: colours, cursor moves), which needs
// its final byte; an operating system command (OSC: titles, links) to its
// BEL or string terminator, or to the next escape; a device control
// string or another string (DCS, SOS, PM, APC) to its terminator or the
// next escape; an escape with intermediate bytes and a final one ("\x1b(B"
// selects a character set); an escape and one byte ("\x1b7", "\x1bM"); and
// a control sequence introduced by the single character U+009B.
func EscapeLen[T ~string | ~[]byte](s T) int {
	if len(s) >= 2 && s[0] == 0xc2 && s[1] == 0x9b { // U+009B in UTF-8
		return csiLen(s, 2)
	}
	if len(s) < 2 || s[0] != '\x1b' {
		return 0
	}
	switch c := s[1]; {
	case c == '[':
		return csiLen(s, 2)
	case c == ']':
		i := 2
		for i < len(s) && s[i] != '\x07' && s[i] != '\x1b' {
			i++
		}
		switch {
		case i < len(s) && s[i] == '\x07':
			return i + 1
		case i+1 < len(s) && s[i] == '\x1b' && s[i+1] == '\\':
			return i + 2
		}
		return i
	case c == 'P' || c == 'X' || c == '^' || c == '_':
		i := 2
		for i < len(s) && s[i] != '\x1b' {
			i++
		}
		if i+1 < len(s) && s[i+1] == '\\' {
			return i + 2
		}
		return i
	case ' ' <= c && c <= '/':
		i := 2
		for i < len(s) && ' ' <= s[i] && s[i] <= '/' {
			i++
		}
		if i < len(s) && '0' <= s[i] && s[i] <= '~' {
			return i + 1
		}
		return 0
	case '0' <= c && c <= '~':
		return 2
	}
	return 0
}

// csiLen returns the length of the control sequence whose parameters start
// at s[i]: parameter bytes, intermediate bytes and a final byte; 0 when
// the final byte is missing.
func csiLen[T ~string | ~[]byte](s T, i int) int {
	for i < len(s) && '0' <= s[i] && s[i] <= '?' {
		i++
	}
	for i < len(s) && ' ' <= s[i] && s[i] <= '/' {
		i++
	}
	if i < len(s) && '@' <= s[i] && s[i] <= '~' {
		return i + 1
	}
	return 0
}

// c1CSI is the control sequence introducer as one character, U+009B.
const c1CSI = "\u009b"

// StripEscapes returns s without its escape sequences (see EscapeLen). A
// text with none is returned as it is.
func StripEscapes(s string) string {
	esc, c1 := strings.IndexByte(s, '\x1b'), strings.Index(s, c1CSI)
	if esc < 0 && c1 < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0 // s[last:] is not written yet
	for esc >= 0 || c1 >= 0 {
		i := esc
		if i < 0 || c1 >= 0 && c1 < i {
			i = c1
		}
		next := i + 1
		if n := EscapeLen(s[i:]); n > 0 {
			b.WriteString(s[last:i])
			last, next = i+n, i+n
		}
		if esc >= 0 && esc < next {
			esc = indexFrom(s, next, func(s string) int { return strings.IndexByte(s, '\x1b') })
		}
		if c1 >= 0 && c1 < next {
			c1 = indexFrom(s, next, func(s string) int { return strings.Index(s, c1CSI) })
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// indexFrom returns index(s[from:]) as an index in s, or -1.
func indexFrom(s string, from int, index func(string) int) int {
	if from > len(s) {
		return -1
	}
	if i := index(s[from:]); i >= 0 {
		return from + i
	}
	return -1
}

// Cut shortens s to at most n runes, marking the cut with an ellipsis,
// which counts as one of them. n must be at least 1.
func Cut(s string, n int) string {
	i, last := 0, 0 // last: where rune n-1 starts
	for j := range s {
		if i == n-1 {
			last = j
		}
		if i == n {
			return s[:last] + "…"
		}
		i++
	}
	return s
}
