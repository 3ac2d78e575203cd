package parser

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// walkSeeds returns the JSON seeds and the whole-document samples.
func walkSeeds(t testing.TB) []string {
	seeds := append(jsonSeeds(t),
		`{"a":{"x":1},"a":{"b":2}}`, `{"a":"s","a":{"b":[1]},"b":3}`, `{"a":[{"b":1}],"a":{"b":4}}`,
		`{"t\u0069me":{"start":5}}`, `{"a" : { "b" : "c\"}" } , "d":[ "]" ,{}] }`)
	for _, dir := range []string{"gemini", "opencode"} {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*.json"))
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			seeds = append(seeds, string(data))
		}
	}
	return seeds
}

// TestWalk checks the walkers on the seeds and on every start of them.
func TestWalk(t *testing.T) {
	for _, s := range walkSeeds(t) {
		step := max(1, len(s)/100)
		for n := 0; n <= len(s); n += step {
			checkWalk(t, s[:n])
			if want := len(strings.TrimRight(s[:n], " \t\r\n")); validJSON([]byte(s)) && jsonPrefix([]byte(s[:n])) < want {
				t.Fatalf("jsonPrefix(%q) = %d, want %d", s[:n], jsonPrefix([]byte(s[:n])), want)
			}
		}
		checkWalk(t, s)
	}
}

func FuzzWalk(f *testing.F) {
	for _, s := range walkSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkWalk)
}

// checkWalk checks that the walkers find in s, cut at jsonPrefix, what
// gjson finds in it, with no index and, when s is valid, with its index.
func checkWalk(t *testing.T, s string) {
	cut := s[:jsonPrefix([]byte(s))]
	i := skipSpace(cut, 0)
	if i == len(cut) || cut[i] != '{' && cut[i] != '[' {
		return
	}
	compareWalk(t, noIndex, cut, cut[i:], gjson.Parse(cut), i)
	if x, ok := indexJSON(cut); ok != validJSON([]byte(cut)) {
		t.Fatalf("indexJSON(%q) reports %v, validJSON %v", cut, ok, !ok)
	} else if ok {
		checkIndex(t, x)
		compareWalk(t, x, cut, cut[i:], gjson.Parse(cut), i)
	}
}

// checkIndex checks that each value x records is one that starts where it
// says, and ends where a scan ends it.
func checkIndex(t *testing.T, x *docIndex) {
	for k, start := range x.starts {
		end, ok := noIndex.endValue(x.doc, start)
		if !ok || x.ends[k] != end || end-start < minSpan {
			t.Fatalf("in %q: the index ends the value at %d at %d; a scan ends it at %d (%v)", x.doc, start, x.ends[k], end, ok)
		}
		if k > 0 && x.starts[k-1] >= start {
			t.Fatalf("in %q: the index is out of order at %d", x.doc, k)
		}
	}
}

// compareWalk compares the walk of raw, found at offset at of s, with
// gjson's of r, and goes down into the values.
func compareWalk(t *testing.T, x *docIndex, s, raw string, r gjson.Result, at int) {
	type item struct {
		off int
		raw string
	}
	var got []item
	var want []gjson.Result
	x.eachValueAt(raw, func(off int, v string) bool {
		got = append(got, item{at + off, v})
		return true
	})
	r.ForEach(func(_, v gjson.Result) bool {
		want = append(want, v)
		return true
	})
	if len(got) != len(want) {
		t.Fatalf("in %q: eachValueAt gives %d values of %q, gjson %d", s, len(got), raw, len(want))
	}
	for i, g := range got {
		w := want[i]
		if g.off != w.Index || g.raw != w.Raw {
			t.Fatalf("in %q: value %d is %q at %d, gjson finds %q at %d", s, i, g.raw, g.off, w.Raw, w.Index)
		}
		if isString(g.raw) && value(g.raw).String() != w.String() {
			t.Fatalf("in %q: string %q reads %q, gjson %q", s, g.raw, value(g.raw).String(), w.String())
		}
		if isObject(g.raw) || isArray(g.raw) {
			compareWalk(t, x, s, g.raw, w, g.off)
		}
	}
	if isObject(raw) {
		compareFields(t, x, s, raw, r, at)
	}
}

// compareFields checks fieldsAt and dig on the object raw, at offset at of
// s, against gjson's Get on r, for its keys that are plain words.
func compareFields(t *testing.T, x *docIndex, s, raw string, r gjson.Result, at int) {
	var names []string
	seen := make(map[string]bool)
	x.eachMemberAt(raw, func(key string, _ int, _ string) bool {
		if plainKey(key) && !seen[key] {
			seen[key] = true
			names = append(names, key)
		}
		return true
	})
	if len(names) > 64 {
		names = names[:64]
	}
	vals := make([]string, len(names))
	offs := make([]int, len(names))
	x.fieldsAt(raw, names, vals, offs)
	for i, n := range names {
		w := r.Get(n)
		if vals[i] != w.Raw || w.Raw != "" && at+offs[i] != w.Index {
			t.Fatalf("in %q: field %q is %q at %d, gjson finds %q at %d", s, n, vals[i], at+offs[i], w.Raw, w.Index)
		}
		if !isObject(vals[i]) {
			continue
		}
		x.eachMemberAt(vals[i], func(key string, _ int, _ string) bool {
			if !plainKey(key) {
				return true
			}
			if got, want := x.dig(raw, n, key), r.Get(n+"."+key).Raw; got != want {
				t.Fatalf("in %q: dig %s.%s is %q, gjson finds %q", s, n, key, got, want)
			}
			return true
		})
	}
}

// plainKey reports whether gjson reads key as a member name rather than a
// path with wildcards, modifiers or escapes.
func plainKey(key string) bool {
	return key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' || r == '$')
	}) < 0
}

// TestDocIndex checks that an index answers for values of its document
// seen through any part of it that holds them, and for no other text.
func TestDocIndex(t *testing.T) {
	long := strings.Repeat("x", minSpan)
	doc := `{"a": [1, {"b": "` + long + `"}], "c": {"d": 2}, "e": "` + long + `"}`
	x, ok := indexJSON(doc)
	if !ok {
		t.Fatalf("indexJSON(%q) finds it invalid", doc)
	}
	checkIndex(t, x)
	if len(x.starts) != 5 {
		t.Fatalf("the index of %q records %d values, want 5 (the document, a, its object, b and e)", doc, len(x.starts))
	}
	// In document order, backwards, and again.
	var order []int
	for k := range x.starts {
		order = append(order, k)
	}
	for k := range x.starts {
		order = append(order, len(x.starts)-1-k, len(x.starts)-1-k)
	}
	for _, k := range order {
		start := x.starts[k]
		for _, from := range []int{0, start} {
			part := doc[from:]
			if end, ok := x.end(part, start-from); !ok || from+end != x.ends[k] {
				t.Errorf("end of the value at %d seen from %d = %d, %v; want %d", start, from, from+end, ok, x.ends[k])
			}
		}
		// A part that stops before the value ends cannot hold it.
		if _, ok := x.end(doc[:x.ends[k]-1], start); ok {
			t.Errorf("end of the value at %d found in a part cut before its end", start)
		}
	}
	copied := strings.Clone(doc)
	if _, ok := x.end(copied, 0); ok {
		t.Error("an index answers for text outside its document")
	}
	if _, ok := noIndex.end(doc, 0); ok {
		t.Error("no index answers")
	}
}
