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
