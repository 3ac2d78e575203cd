package prefilter_test

// The differential tests: every expression compiled in the program finds
// what regexp finds with it. The packages whose expressions they check are
// imported for them.

import (
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"regexp/syntax"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

	_ "github.com/retrace-dev/retrace/bench"
	_ "github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/prefilter"
)

// prefilterTexts returns texts to check the pre-filters on: the outputs of
// the failure and benchmark cases, each also with the Kelvin sign and the
// long s for every k and s, and for the first, and cut at a random place.
func prefilterTexts(t testing.TB) []string {
	var texts []string
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "failures", "*.txtar"))
	more, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "bench", "*.txtar"))
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
		texts = append(texts, strings.Replace(strings.Replace(s, "k", "\u212a", 1), "s", "\u017f", 1))
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
	for _, p := range prefilter.All() {
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
		for _, p := range prefilter.All() {
			if d := prefilterDiff(p, s); d != "" {
				t.Fatalf("%s on %q: %s", p, s, d)
			}
		}
	})
}

// prefilterDiff says how p's methods differ from its expression's on s.
func prefilterDiff(p *prefilter.Regexp, s string) string {
	re := p.Regexp()
	i, ok := p.From(s)
	switch {
	case !ok:
		if re.MatchString(s) {
			return "ruled out a text the expression matches"
		}
		return ""
	case i == 0 && !p.ByLine(s) && !p.TryAt(s):
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
	for _, p := range prefilter.All() {
		if p.Needles() == nil {
			none++
			re, _ := syntax.Parse(p.String(), syntax.Perl)
			t.Logf("no needles: %s (%v)", p, re.Op)
		}
	}
	if none > len(prefilter.All())/2 {
		t.Errorf("%d of %d expressions have no needles", none, len(prefilter.All()))
	}
}
