package termtext

import (
	"flag"
	"regexp"
	"testing"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// escapeRE is the expression whose matches StripEscapes removes: the
// grammar EscapeLen documents.
var escapeRE = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[PX^_][^\x1b]*(?:\x1b\\)?|[ -/]+[0-~]|[0-Z\\-~])|\x{9b}[0-?]*[ -/]*[@-~]`)

var escapeTexts = []string{
	"",
	"\x1b",
	"plain",
	"\x1b[31merror\x1b[0m: x",
	"\x1b[1;2 q\x1b[?25l\x1b[",
	"\x1b[12",
	"\x1b[>4;2mkeys\x1b[<u",
	"\x1b]0;title\x07rest",
	"\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",
	"\x1b]open\x1b[0m",
	"\x1b]\xff\xfe\x1bx",
	"\x1bM\x1b\\\x1b_\x1b^\x1b`\x1b[\x1b]",
	"a\x1b\x1b[0m\x1b",
	"\x1b(Bsgr0\x1b)0\x1b(",
	"\x1b7saved\x1b8\x1b=\x1b>\x1bc",
	"\x1bPq#0;2;0;0;0\x1b\\sixel\x1bXsos\x1b\\",
	"\u009b31mred\u009b0m \u009b",
	"\xe0\xc2\x9b2Jx\x9b2J",
	"\x1b\x7f\x1b\x01\x1b\xc2\x9bm",
}

func TestStripEscapes(t *testing.T) {
	for _, s := range escapeTexts {
		if got, want := StripEscapes(s), escapeRE.ReplaceAllString(s, ""); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", s, got, want)
		}
	}
}

// FuzzStripEscapes checks StripEscapes against the expression it stands
// for, and EscapeLen of bytes against EscapeLen of the same string.
func FuzzStripEscapes(f *testing.F) {
	for _, s := range escapeTexts {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := StripEscapes(s), escapeRE.ReplaceAllString(s, ""); got != want {
			t.Errorf("StripEscapes(%q) = %q, want %q", s, got, want)
		}
		if got, want := EscapeLen([]byte(s)), EscapeLen(s); got != want {
			t.Errorf("EscapeLen([]byte(%q)) = %d, want %d", s, got, want)
		}
	})
}

func TestCut(t *testing.T) {
	for _, tt := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "ab…"},
		{"héllo wörld", 5, "héll…"},
		{"", 1, ""},
		{"ab", 1, "…"},
	} {
		if got := Cut(tt.s, tt.n); got != tt.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tt.s, tt.n, got, tt.want)
		}
	}
}

func BenchmarkStripEscapes(b *testing.B) {
	plain := string(make([]byte, 1<<16))
	coloured := ""
	for range 1000 {
		coloured += "\x1b[1;31merror\x1b[0m: something went wrong here\n"
	}
	for _, c := range []struct{ name, s string }{{"plain", plain}, {"coloured", coloured}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.s)))
			for b.Loop() {
				StripEscapes(c.s)
			}
		})
	}
}
