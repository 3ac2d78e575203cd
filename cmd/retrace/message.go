package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/report"
)

// say prints one message on w, standard error: the text format makes of
// args, with everything in it that could act on a terminal or hide from the
// reader shown escaped (see visible), and a line feed. Every message
// retrace prints goes through it, so that no name a message quotes (an
// argument, a file name, a transcript's text) reaches the terminal raw.
func say(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, visible(fmt.Sprintf(format, args...)))
}

// sayError prints err after prefix. An error that errors.Join made is
// printed as its Error method writes it, one line per error it holds, the
// prefix on the first.
func sayError(w io.Writer, prefix string, err error) {
	for i, line := range errorLines(err) {
		if i > 0 {
			prefix = ""
		}
		say(w, "%s%s", prefix, line)
	}
}

// errorLines returns the lines of err's message: one per error of an
// error that errors.Join made, and err's message alone for any other,
// whatever line breaks it holds (which say then shows escaped).
func errorLines(err error) []string {
	j, ok := err.(interface{ Unwrap() []error })
	if !ok {
		return []string{err.Error()}
	}
	var lines, parts []string
	for _, e := range j.Unwrap() {
		lines = append(lines, errorLines(e)...)
		parts = append(parts, e.Error())
	}
	if strings.Join(parts, "\n") != err.Error() {
		return []string{err.Error()} // several %w in one message
	}
	return lines
}

// visible escapes what in a message could act on a terminal or hide from
// the reader, as Go quotes strings: control characters (the line feed
// included, so that a message stays one line), the characters that print
// nothing or turn the text around them (report.Invisible, and whatever
// else strconv.IsPrint refuses), and bytes that are not UTF-8, which file
// names may hold, become \x1b, \u202e, \xff and the like. A tab stays.
func visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\t' || strconv.IsPrint(r) && !report.Invisible(r):
			b.WriteRune(r)
		case r > 0xffff:
			fmt.Fprintf(&b, `\U%08x`, r)
		case r > 0x7f:
			fmt.Fprintf(&b, `\u%04x`, r)
		default: // \x1b, \a, \n
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += size
	}
	return b.String()
}
