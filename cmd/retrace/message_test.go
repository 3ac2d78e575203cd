package main

import (
	"bytes"
	"errors"
	"fmt"
	"testing"
)

func TestVisible(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain words\tand a tab", "plain words\tand a tab"},
		{"x\x1b]0;PWNED\x07\x1b[2J", `x\x1b]0;PWNED\a\x1b[2J`},
		{"two\nlines\r", `two\nlines\r`},
		{"c1 \u009b2J del \x7f", `c1 \u009b2J del \x7f`},
		{"bidi \u202egnp.exe \u2066x\u2069", `bidi \u202egnp.exe \u2066x\u2069`},
		{"zero\u200bwidth\u200d\u2060\ufeff", `zero\u200bwidth\u200d\u2060\ufeff`},
		{"tag \U000E0041 line\u2028 filler\u3164", `tag \U000e0041 line\u2028 filler\u3164`},
		{"bad \xff\xfe utf8", `bad \xff\xfe utf8`},
		{"ünïcode → ✓ 日本", "ünïcode → ✓ 日本"},
	} {
		if got := visible(tt.in); got != tt.want {
			t.Errorf("visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestSayError checks that joined errors print one line each, and that a
// line break inside one error's message is shown escaped, so that a name
// holding one cannot forge a message of its own.
func TestSayError(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want string
	}{
		{errors.New("plain"), "p: plain\n"},
		{errors.New("a.jsonl\nretrace: all good"), "p: a.jsonl\\nretrace: all good\n"},
		{errors.Join(errors.New("one"), errors.New("two\x1b[2J")), "p: one\ntwo\\x1b[2J\n"},
		{fmt.Errorf("x: %w and %w", errors.New("a"), errors.New("b")), "p: x: a and b\n"},
	} {
		var b bytes.Buffer
		sayError(&b, "p: ", tt.err)
		if b.String() != tt.want {
			t.Errorf("sayError(%q) = %q, want %q", tt.err, b.String(), tt.want)
		}
	}
}
