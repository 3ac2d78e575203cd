package parser

import (
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/tidwall/gjson"
)

// jsonSeeds returns JSON records and near-records to check the walkers
// on: every line of the JSONL samples, and some made by hand.
func jsonSeeds(t testing.TB) []string {
	seeds := []string{
		`{}`, `[]`, `{"a":1}`, ` {"a" : [1, 2.5e-3, -0, true, false, null, "x\"y\\"]} `,
		`{"a":1,}`, `[1,]`, `{"a"}`, `"\u12"`, `"\u00e9"`, "\"a\tb\"", `01`, `-`, `1.`, `1e`, `1e+`,
		`{"type":"user","ty\u0070e":"x"}`, `{"a":{"b":[{"c":"\\\""}]}}`, "\"\x7f\xff\"", `"abcdefgh\"ijklmnop"`,
		`"abcdefghijklmnopqrstuvwxyz0123456789"`, "\"abcdefghij\x01klmnop\"", `nul`, `tru`, `{"a":"b"} x`,
		`"\ud83d\ude00"`, `"\ud83d"`, `"\ude00x"`, `"\ud83d\u0041"`, `"\ud83d\ud83d\ude00"`, `"a\\\"b\/c\b\f\n\r\t"`,
		`["\u00e9\u4e2d", {"k\u0065y": "v\"w"}]`,
		`"abcdefg\u0041bcdefghi\\jklmnopq\"rstuvwx\nyz"`, "\"abcdefghijklmno\x1fpq\"", "\"abcdefghijklmnop\x00\"",
		`"abcdefgh\`, `"abcdefghijklmnopqrstuvw\u00`, "\"abcdefgh\xe9\x80\xff\xc3\xa9ijklmnop\"", `"abcdefgh\q"`,
		`{"abcdefghijklmnopqrstuvwxyz\"":"\\\\\\\\\\\\\\\\\"","b":1}`,
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*.jsonl"))
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		seeds = append(seeds, strings.Split(string(data), "\n")...)
	}
	return seeds
}

// deepSeeds returns records nested as deep as the validators go, and a
// level deeper.
func deepSeeds() []string {
	var seeds []string
	for _, n := range []int{maxNesting, maxNesting + 1} {
		seeds = append(seeds, `{"type":"user","message":{"content":`+strings.Repeat("[", n-2)+strings.Repeat("]", n-2)+"}}",
			strings.Repeat(`{"a":`, n-1)+"0"+strings.Repeat("}", n-1))
	}
	return seeds
}

func TestValidJSON(t *testing.T) {
	for _, s := range append(jsonSeeds(t), deepSeeds()...) {
		checkJSON(t, s)
	}
}

func FuzzValidJSON(f *testing.F) {
	for _, s := range append(jsonSeeds(f), deepSeeds()...) {
		f.Add(s)
	}
	f.Fuzz(checkJSON)
}

// checkJSON checks that validJSON agrees with gjson.ValidBytes on values
// nested at most maxNesting levels deep, and finds deeper ones invalid
// (where gjson's validator, which recurses, is not asked); and that on a
// valid object nested less than 100 levels deep (the checks take time in
// the square of the depth) the walkers find what gjson finds.
func checkJSON(t *testing.T, s string) {
	valid := validJSON([]byte(s))
	depth := nesting(s)
	if want := depth <= maxNesting && gjson.ValidBytes([]byte(s)); valid != want {
		t.Fatalf("validJSON(%q) = %v, gjson says %v", s, valid, want)
	}
	if !valid || depth >= 100 {
		return
	}
	r := gjson.Parse(s)
	checkStrings(t, strings.TrimSpace(s))
	if r.IsObject() {
		// Every key gjson's ForEach sees is found as Get finds it.
		r.ForEach(func(k, _ gjson.Result) bool {
			name := k.String()
			if name == "" || strings.IndexFunc(name, func(r rune) bool {
				return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-')
			}) >= 0 {
				return true // gjson would read a path, not a key; the decoders' keys are words
			}
			if got, want := value(field(s, name)), r.Get(name); got.Raw != want.Raw || got.String() != want.String() {
				t.Fatalf("field(%q, %q) = %q, gjson finds %q", s, name, got.Raw, want.Raw)
			}
			return true
		})
		// validFields finds what fields finds.
		names := append([]string{"type", "message", "content"}, slices.Collect(maps.Keys(r.Map()))...)
		got, want := make([]string, len(names)), make([]string, len(names))
		inner := make([]*fieldSet, len(names))
		innerGot := make([][]string, len(names))
		for i := range names {
			innerGot[i] = make([]string, len(names))
			inner[i] = &fieldSet{names: names, vals: innerGot[i]}
		}
		validFields(s, &fieldSet{names: names, vals: got, inner: inner})
		fields(s, names, want)
		if !slices.Equal(got, want) {
			t.Fatalf("validFields(%q) found %q, fields %q", s, got, want)
		}
		// And in the members' values, what fields finds there.
		for i := range names {
			innerWant := make([]string, len(names))
			fields(want[i], names, innerWant)
			if !slices.Equal(innerGot[i], innerWant) {
				t.Fatalf("validFields(%q) found %q in %q, fields %q", s, innerGot[i], names[i], innerWant)
			}
		}
		var n int
		eachMember(s, func(string, string) bool { n++; return true })
		if want := len(r.Map()); n < want {
			t.Fatalf("eachMember saw %d members of %q, gjson %d distinct", n, s, want)
		}
	}
	checkValueFields(t, strings.TrimSpace(s))
	if r.IsArray() {
		var got []string
		eachElement(s, func(v string) bool { got = append(got, v); return true })
		want := r.Array()
		if len(got) != len(want) {
			t.Fatalf("eachElement saw %d elements of %q, gjson %d", len(got), s, len(want))
		}
		for i := range got {
			if got[i] != want[i].Raw {
				t.Fatalf("element %d of %q: %q, gjson %q", i, s, got[i], want[i].Raw)
			}
		}
	}
}

func TestStringStop(t *testing.T) {
	for n := range 20 {
		for b := 0; b < 256; b++ {
			for pos := range n {
				buf := []byte(strings.Repeat("a", n))
				buf[pos] = byte(b)
				checkStringStop(t, string(buf))
			}
		}
	}
	checkStringStop(t, "\x7f\x80\xff\x20\x21\x7e\x21\x22\x5b\x5d\x5c")
}

func FuzzStringStop(f *testing.F) {
	for _, s := range jsonSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(checkStringStop)
}

// checkStringStop checks stringStop against a plain loop over the bytes,
// from every start.
func checkStringStop(t *testing.T, s string) {
	for i := 0; i <= len(s); i++ {
		want := i
		for want < len(s) && s[want] != '"' && s[want] != '\\' && s[want] >= ' ' {
			want++
		}
		if got := stringStop(s, i); got != want {
			t.Fatalf("stringStop(%q, %d) = %d, want %d", s, i, got, want)
		}
	}
}

// checkStrings checks that value reads every string in the valid JSON
// value raw as gjson does.
func checkStrings(t *testing.T, raw string) {
	if raw == "" {
		return
	}
	switch raw[0] {
	case '"':
		want := gjson.Parse(raw).Str
		if got := value(raw).Str; got != want {
			t.Fatalf("value(%q) = %q, gjson %q", raw, got, want)
		}
		if got, want := argString(raw), cut(validUTF8(want), maxArg); got != want {
			t.Fatalf("argString(%q) = %q, want %q", raw, got, want)
		}
	case '{', '[':
		eachValue(raw, func(v string) bool {
			checkStrings(t, v)
			return true
		})
	}
}

// TestArgString checks argString on long strings whose escapes, surrogate
// pairs, characters and invalid bytes fall around the length of the prefix
// it decodes.
func TestArgString(t *testing.T) {
	pieces := []string{"a", "bc", `\n`, `\"`, `\\`, `\u00e9`, `\ud83d\ude00`, `\ud83d`, `\ude00`,
		"é", "中", "😀", "\xff", "\xe2\x82", "\xf0\x9f\x98", "\x80\x80"}
	r := rand.New(rand.NewPCG(1, 2))
	n := 12 * (maxArg + 2)
	for range 3000 {
		var b strings.Builder
		b.WriteByte('"')
		// Mostly one kind of piece, so that the runes are few or many.
		common := pieces[r.IntN(len(pieces))]
		for b.Len() < n-40+r.IntN(80) {
			if r.IntN(4) == 0 {
				b.WriteString(pieces[r.IntN(len(pieces))])
			} else {
				b.WriteString(common)
			}
		}
		for range r.IntN(300) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		b.WriteByte('"')
		checkArgString(t, b.String())
	}
	// Prefixes that hold about maxArg runes: surrogate pairs and a run of
	// invalid bytes, which makes one rune.
	pair := `\ud83d\ude00`
	for m := maxArg - 12; m <= maxArg+1; m++ {
		for x := range 40 {
			checkArgString(t, `"`+strings.Repeat(pair, m)+strings.Repeat("\xff", x)+strings.Repeat(pair, 10)+`"`)
			checkArgString(t, `"`+strings.Repeat(pair, m)+strings.Repeat("a", x)+strings.Repeat(pair, 10)+`"`)
		}
	}
}

func checkArgString(t *testing.T, raw string) {
	t.Helper()
	if got, want := argString(raw), cut(validUTF8(gjson.Parse(raw).Str), maxArg); got != want {
		t.Fatalf("argString(%q) = %q, want %q", raw, got, want)
	}
}

// checkValueFields checks that eachValueFields finds in each value of the
// valid JSON value raw, and of the values in those, what fields finds.
func checkValueFields(t *testing.T, raw string) {
	if raw == "" || raw[0] != '{' && raw[0] != '[' {
		return
	}
	names := []string{"type", "id", "content", "text", "key", "a", "b"}
	var want [][]string
	eachValue(raw, func(v string) bool {
		vals := make([]string, len(names))
		fields(v, names, vals)
		want = append(want, append([]string{v}, vals...))
		return true
	})
	var got [][]string
	vals := make([]string, len(names))
	eachValueFields(raw, names, vals, func(v string) bool {
		got = append(got, append([]string{v}, vals...))
		return true
	})
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("eachValueFields(%q) saw %q, eachValue and fields %q", raw, got, want)
	}
	for _, w := range want {
		checkValueFields(t, w[0])
	}
}
