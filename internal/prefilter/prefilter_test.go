package prefilter

import (
	"flag"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

func TestLiterals(t *testing.T) {
	for _, tt := range []struct {
		expr    string
		needles []string
		fold    bool
		seek    bool
	}{
		{`(?m)^(.+?): error: (.+)$`, []string{": error: "}, false, true},
		{`(?m)^.*(?:syntax error near|unexpected EOF while).*$`, []string{"syntax error near", "unexpected EOF while"}, false, true},
		{`(?mi)^.*(?:permission denied|EACCES).*$`, []string{"eacces", "permission denied"}, true, true},
		{`(?s)ValueError: (Some [^\]]*\])`, []string{"ValueError: "}, false, true},
		{`^Benchmark\S*\s+\d+`, []string{"Benchmark"}, false, false}, // ^ is the text's start
		{`\s*foo bar`, []string{"foo bar"}, false, false},            // \s* may span lines
		{`[^']*' was blocked`, []string{"' was blocked"}, false, false},
		{`(?m)^\d+ (?:failed|errors?)`, []string{"error", "failed"}, false, true},
		{`\b(?:[Ss]erver|[Aa]pp) (?:ready|up)`, []string{"App ", "Server ", "app ", "server "}, false, true},
		{`[Ee]rr [Ee]`, []string{"Err ", "err "}, false, true},
		{`(?i:k)ind`, []string{"Kind", "kind", "\u212aind"}, false, true},
		{`a|b`, nil, false, false},
		{`x*`, nil, false, false},
		{`(?i)straße`, nil, false, false},
		{`(?m)^err|^q\nerr`, []string{"err", "q\nerr"}, false, true}, // "err" is not on the first line of "q\nerr"
	} {
		p := MustCompile(tt.expr)
		all = all[:len(all)-1]
		p.ready()
		if !slices.Equal(p.needles, tt.needles) || p.fold != tt.fold || p.seek != tt.seek {
			t.Errorf("%s: needles %q fold %v seek %v; want %q %v %v", tt.expr, p.needles, p.fold, p.seek, tt.needles, tt.fold, tt.seek)
		}
	}
}

// TestFoldsToASCII checks what foldsToASCII assumes: that the only runes
// outside ASCII that case folding takes for ASCII letters are the Kelvin
// sign and the long s.
// TestWholeLine checks which expressions are known to match the whole
// lines that hold one of a few strings, and so are not run: only
// `^.*X.*$` in multi-line mode, with X one of a few literal strings.
func TestWholeLine(t *testing.T) {
	for _, tt := range []struct {
		expr  string
		words []string // nil when the expression is to be run
	}{
		{`(?mi)^.*(?:connection refused|connection reset|ECONNRESET).*$`, []string{"connection refused", "connection reset", "econnreset"}},
		{`(?m)^.*(?:EACCES|EPERM).*$`, []string{"EACCES", "EPERM"}},
		{`(?mi)^.*(?:timed out|timeout (?:period )?expired).*$`, []string{"timed out", "timeout expired", "timeout period expired"}},
		{`(?m)^.*: unmatched ["'].*$`, []string{`: unmatched "`, ": unmatched '"}},
		{`(?mi)^.*(?:out of memory|JavaScript heap out of memory).*$`, []string{"out of memory"}}, // the longer holds the shorter
		{`(?m)^.*(?:Foo|bar).*$`, []string{"Foo", "bar"}},
		{`(?mi)^.*(?:cannot access '[^']*').*$`, nil}, // not a literal
		{`(?m)^.*(?:EACCES|EPERM)$`, nil},             // the match ends at the needle
		{`(?m)^.*(EACCES).*$`, nil},                   // a group to report
		{`(?ms)^.*(?:EACCES).*$`, nil},                // a match may span lines
		{`(?m)^.*(?:EACCES|).*$`, nil},                // every line matches
		{`(?m)^.*(?:(?i:refused)|Bad).*$`, nil},       // one case in a case-blind set
		{`(?m)^.*(?:line one\nline two).*$`, nil},     // a needle spans lines
		{`^.*(?:EACCES).*$`, nil},                     // the text's start, not a line's
	} {
		p := MustCompile(tt.expr)
		all = all[:len(all)-1]
		p.ready()
		if !slices.Equal(p.words, tt.words) {
			t.Errorf("%s: words %q, want %q", tt.expr, p.words, tt.words)
		}
	}
	// A word may hold a letter its needle lacks: "abcd" is the needle of
	// these two words, and the long s is an s to the expression.
	p := MustCompile(`(?mi)^.*(?:abcd1s|abcd2t).*$`)
	all = all[:len(all)-1]
	for _, s := range []string{"x\nABCD1S\n", "abcd1\u017f", "abcd1\u017f\nabcd2t", "abcd3s"} {
		if got, want := p.FindAllStringIndex(s, -1), p.Regexp().FindAllStringIndex(s, -1); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("%s on %q: %v, want %v", p, s, got, want)
		}
	}
}

// TestTryAt checks the expressions tried at the lines of their needles:
// those whose every match starts a line that holds a needle, and which a
// match may not end on the same line. They find what the expression finds,
// also on texts with more lines of needles than are tried.
func TestTryAt(t *testing.T) {
	for _, tt := range []struct {
		expr string
		at   bool
	}{
		{`(?m)^error: unknown option '([^']+)'`, true},
		{`(?m)^(?:a|b)?error: '[^']*'`, true},
		{`(?m)(?:^|, )error: '[^']*'`, false}, // a match may start mid-line
		{`(?m)^(?:x: )?error: '[^']*'|^fatal: '[^']*'`, true},
		{`(?m)^error: \S+$`, false}, // by line
		{`error: '[^']*'`, false},   // not at a line's start
		{`^error: '[^']*'`, false},  // the text's start, not a line's
		{`(?m)^[^']*'`, false},      // no needle
	} {
		p := MustCompile(tt.expr)
		all = all[:len(all)-1]
		if got := p.tryAt(""); got != tt.at {
			t.Errorf("%s: tried at needles %v, want %v", tt.expr, got, tt.at)
		}
	}
	p := MustCompile(`(?m)^(?:(\w+): )?error: unknown option '([^']+)'`)
	all = all[:len(all)-1]
	unclosed := strings.Repeat("x: error: unknown option 'y\n", maxTries/2)
	misses := strings.Repeat(" error: unknown option 'm'\n", maxTries) // needles, no match
	for _, s := range []string{
		"",
		"error: unknown option 'a'",
		"ok\nerror: unknown option 'a\nb'\n",
		"error: unknown command\ngit: error: unknown option 'z'\n",
		unclosed,
		unclosed + "'",
		misses + "error: unknown option 'q'\nerror: unknown option 'r'",
		misses + misses + "p: error: unknown option 'q'",
		unclosed + misses + "'\n",
	} {
		re := p.Regexp()
		if got, want := p.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s); !slices.Equal(got, want) {
			t.Errorf("FindStringSubmatchIndex(%q) = %v, want %v", s, got, want)
		}
		if got, want := p.FindString(s), re.FindString(s); got != want {
			t.Errorf("FindString(%q) = %q, want %q", s, got, want)
		}
		if got, want := p.MatchString(s), re.MatchString(s); got != want {
			t.Errorf("MatchString(%q) = %v, want %v", s, got, want)
		}
	}
}

// TestFoldedFirst checks an expression whose first match is spelled with a
// rune that folds to an ASCII letter of its needle, before an occurrence
// of the needle in ASCII.
func TestFoldedFirst(t *testing.T) {
	p := MustCompile(`(?mi)^.*no such file.*$`)
	all = all[:len(all)-1]
	for _, s := range []string{
		"cat: a: No \u017fuch file\ncat: b: No such file",
		"x\nno such file \u212a\nNO SUCH FILE",
	} {
		if got, want := p.FindStringIndex(s), p.Regexp().FindStringIndex(s); !slices.Equal(got, want) {
			t.Errorf("FindStringIndex(%q) = %v, want %v", s, got, want)
		}
	}
	q := MustCompile(`(?i)kind: x`)
	all = all[:len(all)-1]
	if s := "\u212aind: x\nkind: x"; q.FindString(s) != q.Regexp().FindString(s) {
		t.Errorf("FindString(%q) = %q, want %q", s, q.FindString(s), q.Regexp().FindString(s))
	}
}

func TestFoldsToASCII(t *testing.T) {
	for c := 'a'; c <= 'z'; c++ {
		for r := unicode.SimpleFold(c); r != c; r = unicode.SimpleFold(r) {
			if r >= 0x80 && !(c == 'k' && r == '\u212a' || c == 's' && r == '\u017f') {
				t.Errorf("%c folds to %U", c, r)
			}
		}
	}
}

func TestIndexFold(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "aAbBkKsS e:\u212a\u017f"
	for range 20000 {
		s := randomText(r, alphabet, r.IntN(40))
		needle := strings.ToLower(randomText(r, "abks :", 1+r.IntN(4)))
		want := -1
		for i := 0; i+len(needle) <= len(s); i++ {
			if strings.EqualFold(s[i:i+len(needle)], needle) && isASCII(s[i:i+len(needle)]) {
				want = i
				break
			}
		}
		if got := indexFold(s, needle, rarest(needle, true)); got != want {
			t.Fatalf("indexFold(%q, %q) = %d, want %d", s, needle, got, want)
		}
	}
}

func TestIndexRare(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for range 20000 {
		s := randomText(r, "ab :e\u00e9", r.IntN(200))
		needle := randomText(r, "ab :e\u00e9", r.IntN(5))
		for k := range len(needle) {
			if got, want := indexRare(s, needle, k), strings.Index(s, needle); got != want {
				t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", s, needle, k, got, want)
			}
		}
	}
}

// FuzzIndexRare checks indexRare against strings.Index, looking for each
// byte of the needle in turn.
func FuzzIndexRare(f *testing.F) {
	f.Add("error: x\nerror: y", "error: ")
	f.Add("eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeex", "eex")
	f.Fuzz(func(t *testing.T, s, needle string) {
		for k := range len(needle) {
			if got, want := indexRare(s, needle, k), strings.Index(s, needle); got != want {
				t.Fatalf("indexRare(%q, %q, %d) = %d, want %d", s, needle, k, got, want)
			}
		}
	})
}

func randomText(r *rand.Rand, alphabet string, n int) string {
	runes := []rune(alphabet)
	var b strings.Builder
	for range n {
		b.WriteRune(runes[r.IntN(len(runes))])
	}
	return b.String()
}

// TestCompileAll compiles every expression made in this package's tests
// and in the packages that import it: one that does not compile fails here
// rather than on the first output a run reads.
func TestCompileAll(t *testing.T) {
	for _, p := range all {
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Errorf("%s: %v", p.expr, r)
				}
			}()
			p.ready()
		}()
	}
}
