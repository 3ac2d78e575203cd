package analyzer

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"slices"
	"strings"
	"testing"
	"unicode"

	"github.com/rogpeppe/go-internal/txtar"
)

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
		p := mustPre(tt.expr)
		prefilters = prefilters[:len(prefilters)-1]
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

// prefilterTexts returns texts to check the pre-filters on: the outputs of
// the failure and benchmark cases, each also with the Kelvin sign and the
// long s for k and s, and cut at a random place.
func prefilterTexts(t testing.TB) []string {
	var texts []string
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "failures", "*.txtar"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "bench", "*.txtar"))
	for _, file := range append(files, more...) {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".out") {
				texts = append(texts, string(f.Data))
			}
		}
	}
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range texts[:len(texts):len(texts)] {
		texts = append(texts, strings.NewReplacer("k", "\u212a", "s", "\u017f").Replace(s))
		if len(s) > 2 {
			i := r.IntN(len(s))
			texts = append(texts, s[i:]+"\n"+s[:i])
		}
	}
	return texts
}

// TestPrefilters checks that every pre-filtered expression finds what its
// expression finds, on every text of the test cases.
func TestPrefilters(t *testing.T) {
	texts := prefilterTexts(t)
	for _, p := range prefilters {
		for _, s := range texts {
			if d := prefilterDiff(p, s); d != "" {
				t.Fatalf("%s on %q: %s", p, s, d)
			}
		}
	}
}

// FuzzPrefilters checks the pre-filtered expressions against their
// expressions on any text.
func FuzzPrefilters(f *testing.F) {
	for _, s := range prefilterTexts(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, p := range prefilters {
			if d := prefilterDiff(p, s); d != "" {
				t.Fatalf("%s on %q: %s", p, s, d)
			}
		}
	})
}

// prefilterDiff says how p's methods differ from its expression's on s.
func prefilterDiff(p *pre, s string) string {
	re := p.Regexp
	i, ok := p.from(s)
	switch {
	case !ok:
		if re.MatchString(s) {
			return "ruled out a text the expression matches"
		}
		return ""
	case i == 0:
		return "" // the methods run the expression on s itself
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"MatchString", p.MatchString(s), re.MatchString(s)},
		{"FindString", p.FindString(s), re.FindString(s)},
		{"FindStringIndex", p.FindStringIndex(s), re.FindStringIndex(s)},
		{"FindStringSubmatch", p.FindStringSubmatch(s), re.FindStringSubmatch(s)},
		{"FindStringSubmatchIndex", p.FindStringSubmatchIndex(s), re.FindStringSubmatchIndex(s)},
		{"FindAllStringIndex", p.FindAllStringIndex(s, -1), re.FindAllStringIndex(s, -1)},
		{"FindAllStringSubmatch", p.FindAllStringSubmatch(s, -1), re.FindAllStringSubmatch(s, -1)},
		{"FindAllStringSubmatchIndex", p.FindAllStringSubmatchIndex(s, -1), re.FindAllStringSubmatchIndex(s, -1)},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			return c.name + " differs"
		}
	}
	return ""
}

// TestPrefiltersUseful lists the expressions run on whole outputs that
// found no needle, so that a change that loses one is seen.
func TestPrefiltersUseful(t *testing.T) {
	none := 0
	for _, p := range prefilters {
		if p.needles == nil {
			none++
			re, _ := syntax.Parse(p.String(), syntax.Perl)
			t.Logf("no needles: %s (%v)", p, re.Op)
		}
	}
	if none > len(prefilters)/2 {
		t.Errorf("%d of %d expressions have no needles", none, len(prefilters))
	}
}
