package rawjson

import (
	"maps"
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
		`[1.5e3, -0.0, 12345678901234567890, 1e400, "12", "1.5", "true", "no", 0]`,
		`{"type":"a","type":"b","message":{"id":1},"message":{"id":2,"content":[]}}`,
	}
	files, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", "*", "*.jsonl"))
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
	for _, n := range []int{MaxDepth, MaxDepth + 1} {
		seeds = append(seeds, `{"type":"user","message":{"content":`+strings.Repeat("[", n-2)+strings.Repeat("]", n-2)+"}}",
			strings.Repeat(`{"a":`, n-1)+"0"+strings.Repeat("}", n-1))
	}
	return seeds
}

// nesting returns how deep the arrays and objects of the JSON text s nest.
func nesting(s string) int {
	depth, deepest := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			end, _ := endString(s, i)
			i = end - 1
		case '[', '{':
			depth++
			deepest = max(deepest, depth)
		case ']', '}':
			depth--
		}
	}
	return deepest
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

// checkJSON checks that Valid agrees with gjson.ValidBytes on values
// nested at most MaxDepth levels deep, and finds deeper ones invalid
// (where gjson's validator, which recurses, is not asked); and that on a
// valid value nested less than 100 levels deep (the checks take time in
// the square of the depth) values read as gjson reads them, and Record
// picks what Pick picks.
func checkJSON(t *testing.T, s string) {
	valid := Valid(s)
	depth := nesting(s)
	if want := depth <= MaxDepth && gjson.ValidBytes([]byte(s)); valid != want {
		t.Fatalf("Valid(%q) = %v, gjson says %v", s, valid, want)
	}
	if _, ok := Index(s); ok != valid {
		t.Fatalf("Index(%q) reports %v, Valid %v", s, ok, valid)
	}
	if !valid || depth >= 100 {
		return
	}
	v, _ := Parse(s)
	r := gjson.Parse(s)
	checkValues(t, v, r)
	if r.IsObject() {
		// Every key gjson's ForEach sees is found as Get finds it.
		r.ForEach(func(k, _ gjson.Result) bool {
			name := k.String()
			if !plainKey(name) {
				return true // gjson would read a path, not a key; the decoders' keys are words
			}
			if got, want := v.Get(name), r.Get(name); got.Raw() != want.Raw || got.Text() != want.String() {
				t.Fatalf("Get(%q, %q) = %q, gjson finds %q", s, name, got.Raw(), want.Raw)
			}
			return true
		})
		var n int
		for range v.Members() {
			n++
		}
		if want := len(r.Map()); n < want {
			t.Fatalf("Members saw %d members of %q, gjson %d distinct", n, s, want)
		}
	}
	checkRecord(t, s)
	checkPickEach(t, v)
	if r.IsArray() {
		var got []string
		for e := range v.Elements() {
			got = append(got, e.Raw())
		}
		want := r.Array()
		if len(got) != len(want) {
			t.Fatalf("Elements saw %d elements of %q, gjson %d", len(got), s, len(want))
		}
		for i := range got {
			if got[i] != want[i].Raw {
				t.Fatalf("element %d of %q: %q, gjson %q", i, s, got[i], want[i].Raw)
			}
		}
	}
}

// checkRecord checks that Doc.Record picks from the record s, in the pass
// that validates it, what Pick picks in s and in the objects of its
// members.
func checkRecord(t *testing.T, s string) {
	v, _ := Parse(s)
	names := []string{"type", "message", "content"}
	for k := range v.Members() {
		if len(names) < maxFields && !slices.Contains(names, k) {
			names = append(names, k)
		}
	}
	top := NewNames(names...)
	n := top.Nest(slices.Index(names, "message"), top).Nest(slices.Index(names, "content"), top)
	var got, gotMessage, gotContent Fields
	var d Doc
	if _, ok := d.Record(s, n, &got, &gotMessage, &gotContent); !ok {
		t.Fatalf("Record(%q) finds it invalid", s)
	}
	var want Fields
	v.Pick(top, &want)
	for i, name := range names {
		if got.Get(i).Raw() != want.Get(i).Raw() {
			t.Fatalf("Record(%q) picks %q for %q, Pick %q", s, got.Get(i).Raw(), name, want.Get(i).Raw())
		}
		for _, p := range [][]string{{"type"}, {"id"}, {"a", "b"}} {
			if g, w := got.Path(i, p...).Raw(), v.Path(append([]string{name}, p...)...).Raw(); g != w {
				t.Fatalf("in %q, Path(%q, %q) of the record's fields = %q, Value.Path %q", s, name, p, g, w)
			}
			if w := gjson.Get(s, strings.Join(append([]string{name}, p...), ".")).Raw; v.Kind() == Object && plainKey(name) && w != got.Path(i, p...).Raw() {
				t.Fatalf("in %q, Path(%q, %q) = %q, gjson %q", s, name, p, got.Path(i, p...).Raw(), w)
			}
		}
	}
	for _, c := range []struct {
		name string
		got  *Fields
	}{{"message", &gotMessage}, {"content", &gotContent}} {
		var inner Fields
		want.Get(slices.Index(names, c.name)).Pick(top, &inner)
		for i := range names {
			if c.got.Get(i).Raw() != inner.Get(i).Raw() {
				t.Fatalf("Record(%q) picks %q for %s.%s, Pick %q", s, c.got.Get(i).Raw(), c.name, names[i], inner.Get(i).Raw())
			}
		}
	}
}

// checkPickEach checks that PickEach picks in each value Values yields
// what Pick picks, and goes into the values.
func checkPickEach(t *testing.T, v Value) {
	if k := v.Kind(); k != Object && k != Array {
		return
	}
	names := NewNames("type", "id", "content", "text", "key", "a", "b")
	var want [][]string
	for e := range v.Values() {
		var f Fields
		e.Pick(names, &f)
		w := []string{e.Raw()}
		for i := range names.list {
			w = append(w, f.Get(i).Raw())
		}
		want = append(want, w)
	}
	var got [][]string
	var f Fields
	for e := range v.PickEach(names, &f) {
		g := []string{e.Raw()}
		for i := range names.list {
			g = append(g, f.Get(i).Raw())
		}
		got = append(got, g)
	}
	if !slices.EqualFunc(got, want, slices.Equal) {
		t.Fatalf("PickEach(%q) saw %q, Values and Pick %q", v.Raw(), got, want)
	}
	for e := range v.Values() {
		checkPickEach(t, e)
	}
}

// checkValues checks that v, and every value in it, reads as gjson reads
// r, and that the ends of its strings are those of their text.
func checkValues(t *testing.T, v Value, r gjson.Result) {
	if got, want := v.Text(), r.String(); got != want {
		t.Fatalf("Text(%q) = %q, gjson %q", v.Raw(), got, want)
	}
	if v.Int() != r.Int() || v.Bool() != r.Bool() || v.Float() != r.Float() && r.Float() == r.Float() {
		t.Fatalf("%q reads as %d, %v, %v; gjson %d, %v, %v", v.Raw(), v.Int(), v.Bool(), v.Float(), r.Int(), r.Bool(), r.Float())
	}
	kinds := map[gjson.Type]Kind{gjson.Null: Null, gjson.False: Bool, gjson.True: Bool, gjson.Number: Number, gjson.String: String}
	if want, ok := kinds[r.Type]; ok && v.Kind() != want || r.IsObject() && v.Kind() != Object || r.IsArray() && v.Kind() != Array {
		t.Fatalf("Kind(%q) = %v, gjson's type %v", v.Raw(), v.Kind(), r.Type)
	}
	if v.Kind() == String {
		text := v.Text()
		if v.TextLen() != len(text) {
			t.Fatalf("TextLen(%q) = %d, want %d", v.Raw(), v.TextLen(), len(text))
		}
		for n := 0; n <= len(v.Raw()); n++ {
			if h := v.TextHead(n); !strings.HasPrefix(text, h) || len(h) < len(text) && n > len(v.Raw())-2 {
				t.Fatalf("TextHead(%q, %d) = %q, not a prefix of %q", v.Raw(), n, h, text)
			}
			if tail := v.TextTail(n); !strings.HasSuffix(text, tail) || len(tail) < len(text) && n > len(v.Raw())-2 {
				t.Fatalf("TextTail(%q, %d) = %q, not a suffix of %q", v.Raw(), n, tail, text)
			}
		}
	}
	var want []gjson.Result
	r.ForEach(func(_, e gjson.Result) bool {
		want = append(want, e)
		return true
	})
	if v.Kind() != Object && v.Kind() != Array {
		return
	}
	i := 0
	for e := range v.Values() {
		if i >= len(want) {
			t.Fatalf("Values(%q) yields more than gjson's %d", v.Raw(), len(want))
		}
		checkValues(t, e, want[i])
		i++
	}
	if i != len(want) {
		t.Fatalf("Values(%q) yields %d, gjson %d", v.Raw(), i, len(want))
	}
}

// plainKey reports whether gjson reads key as a member name rather than a
// path with wildcards, modifiers or escapes.
func plainKey(key string) bool {
	return key != "" && strings.IndexFunc(key, func(r rune) bool {
		return !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '_' || r == '-' || r == '$')
	}) < 0
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

// TestNesting checks that the validators accept values nested MaxDepth
// levels deep and no deeper, as encoding/json does, and that Prefix stops
// at the value that goes too deep.
func TestNesting(t *testing.T) {
	arrays := func(n int) string { return strings.Repeat("[", n) + strings.Repeat("]", n) }
	objects := func(n int) string { return strings.Repeat(`{"a":`, n-1) + "{}" + strings.Repeat("}", n-1) }
	mixed := func(n int) string {
		return strings.Repeat("[", n%2) + strings.Repeat(`[{"a":`, n/2) + "0" + strings.Repeat("}]", n/2) + strings.Repeat("]", n%2)
	}
	// The members of a record's message are picked in the pass that
	// validates it, by a validator of their own.
	message := func(n int) string { return `{"type":"user","message":{"content":` + arrays(n-2) + `}}` }
	names := NewNames("type", "message")
	nested := names.Nest(1, NewNames("content"))
	for _, tt := range []struct {
		name string
		make func(int) string
	}{{"arrays", arrays}, {"objects", objects}, {"mixed", mixed}, {"message", message}} {
		for _, depth := range []int{MaxDepth - 1, MaxDepth, MaxDepth + 1, MaxDepth + 2} {
			doc := tt.make(depth)
			if got := nesting(doc); got != depth {
				t.Fatalf("%s(%d) nests %d deep", tt.name, depth, got)
			}
			want := depth <= MaxDepth
			if got := Valid(doc); got != want {
				t.Errorf("Valid of %s at %d levels = %v, want %v", tt.name, depth, got, want)
			}
			var d Doc
			var top, msg Fields
			if _, got := d.Record(doc, nested, &top, &msg); got != want {
				t.Errorf("Record of %s at %d levels = %v, want %v", tt.name, depth, got, want)
			}
			if _, got := Index(doc); got != want {
				t.Errorf("Index of %s at %d levels reports %v, want %v", tt.name, depth, got, want)
			}
			if !want {
				if end := Prefix(doc); nesting(doc[:end]) != MaxDepth {
					t.Errorf("Prefix of %s at %d levels = %d, nesting %d deep", tt.name, depth, end, nesting(doc[:end]))
				}
			}
		}
	}
}

// TestNames checks that names are found by length, escaped or not, and
// that a repeated one is refused.
func TestNames(t *testing.T) {
	n := NewNames("type", "id", "text", "content")
	for key, want := range map[string]int{"type": 0, "id": 1, "text": 2, "content": 3, `t\u0065xt`: 2, "typ": -1, "contents": -1, `\u0069d`: 1, "": -1} {
		if got := n.index(key); got != want {
			t.Errorf("index(%q) = %d, want %d", key, got, want)
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("NewNames takes a name twice")
		}
	}()
	NewNames("a", "b", "a")
}

var _ = maps.Keys[map[string]int]
