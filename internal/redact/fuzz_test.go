package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzString checks String's invariants on any input, with and without
// Options.Hosts, and by a Redactor that remembers what it masked in every
// input before: it does not panic; it is idempotent, so its output holds
// nothing more for the rules or the memory to find; its output is valid
// UTF-8 when the input is; and it only replaces, so what lies between the
// masks of the output is the input's own text, in order.
func FuzzString(f *testing.F) {
	for _, tc := range secretCases {
		f.Add(tc.in)
	}
	for _, tc := range hostCases {
		f.Add(tc.in)
	}
	f.Add(secretText(1)[:4096])
	plain, hosts := newTest(false), newTest(true)
	remember := plain.Remembering()
	f.Fuzz(func(t *testing.T, in string) {
		for _, r := range []*Redactor{plain, hosts, remember} {
			out := r.String(in)
			if again := r.String(out); again != out {
				t.Fatalf("hosts=%v: not idempotent on %q:\nonce  %q\ntwice %q", r.hosts, in, out, again)
			}
			if utf8.ValidString(in) && !utf8.ValidString(out) {
				t.Fatalf("hosts=%v: invalid UTF-8 from valid input %q: %q", r.hosts, in, out)
			}
			if !keeps(in, out) {
				t.Fatalf("hosts=%v: output %q is not the input %q with parts replaced by masks", r.hosts, out, in)
			}
		}
		// Study learns what String learns.
		masked, studied := plain.Remembering(), plain.Remembering()
		masked.String(in)
		studied.Study(in)
		if a, b := masked.Known(in), studied.Known(in); a != b {
			t.Fatalf("on %q, Known after String %q, after Study %q", in, a, b)
		}
	})
}

// keeps reports whether out is in with some parts replaced by masks: the
// text between out's masks is found in in, in order, from its start to its
// end.
func keeps(in, out string) bool {
	pieces := masks.Split(out, -1)
	if !strings.HasPrefix(in, pieces[0]) {
		return false
	}
	pos := len(pieces[0])
	if len(pieces) == 1 {
		return pos == len(in)
	}
	for _, p := range pieces[1 : len(pieces)-1] {
		j := strings.Index(in[pos:], p)
		if j < 0 {
			return false
		}
		pos += j + len(p)
	}
	return strings.HasSuffix(in[pos:], pieces[len(pieces)-1])
}

// TestKnownRuneBoundaries checks that a value remembered from text that is
// not UTF-8 is not found inside a character of valid text: a password
// whose last byte starts a character it lacks.
func TestKnownRuneBoundaries(t *testing.T) {
	r := newTest(false).Remembering()
	r.String("password=p\xc3\xa4ssw\xc3 and more")
	for _, in := range []string{"pässwö", "xx pässwö yy", "password=pässwö"} {
		if out := r.String(in); !utf8.ValidString(out) {
			t.Errorf("String(%q) = %q, not UTF-8", in, out)
		}
	}
}

// TestMemorableSpaces checks that a value masked with white space at its
// edge is not remembered: where the memory finds it again, the edges of
// its mask could differ from the rule's, and masking twice would differ
// from masking once (FuzzString found " -pAss \xa5").
func TestMemorableSpaces(t *testing.T) {
	for _, v := range []string{" -pAss", "-pAss ", "\t-pAss1"} {
		if memorable(v, kindPassword) {
			t.Errorf("memorable(%q) = true", v)
		}
	}
	if !memorable("-pAss1", kindPassword) {
		t.Errorf("memorable(%q) = false", "-pAss1")
	}
}
