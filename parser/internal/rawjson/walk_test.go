package rawjson

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
		`{"t\u0069me":{"start":5}}`, `{"a" : { "b" : "c\"}" } , "d":[ "]" ,{}] }`,
		`{"a":[{"b":1},{"b":[2,{"c":3}]}],"0":{"b":5}}`)
	for _, dir := range []string{"gemini", "opencode", "swe-agent", "mini-swe-agent", "openhands", "openai-messages"} {
		files, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", dir, "*.json*"))
		traj, _ := filepath.Glob(filepath.Join("..", "..", "..", "testdata", dir, "*.traj"))
		for _, f := range append(files, traj...) {
			if strings.HasSuffix(f, ".golden") || strings.HasSuffix(f, ".jsonl") {
				continue
			}
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
			if want := len(strings.TrimRight(s[:n], " \t\r\n")); Valid(s) && Prefix(s[:n]) < want {
				t.Fatalf("Prefix(%q) = %d, want %d", s[:n], Prefix(s[:n]), want)
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

// checkWalk checks that the walkers find in s, cut at Prefix, what gjson
// finds in it: in its Doc, in its Peek, and, when s is valid, with its
// index.
func checkWalk(t *testing.T, s string) {
	cut := s[:Prefix(s)]
	i := skipSpace(cut, 0)
	if i == len(cut) || cut[i] != '{' && cut[i] != '[' {
		return
	}
	r := gjson.Parse(cut)
	compareWalk(t, cut, NewDoc(cut).Root(), r, true)
	compareWalk(t, cut, Peek(cut), r, false)
	if x, ok := Index(cut); ok != Valid(cut) {
		t.Fatalf("Index(%q) reports %v, Valid %v", cut, ok, !ok)
	} else if ok {
		checkIndex(t, x)
		compareWalk(t, cut, x.Root(), r, true)
	}
}

// checkIndex checks that each value x records is one that starts where it
// says, and ends where a scan ends it.
func checkIndex(t *testing.T, x *Doc) {
	for k, sp := range x.spans {
		start := sp.start
		end, ok := (*Doc)(nil).endValue(x.text, start)
		if !ok || sp.end != end || end-start < minSpan {
			t.Fatalf("in %q: the index ends the value at %d at %d; a scan ends it at %d (%v)", x.text, start, sp.end, end, ok)
		}
		if k > 0 && x.spans[k-1].start >= start {
			t.Fatalf("in %q: the index is out of order at %d", x.text, k)
		}
	}
}

// compareWalk compares the walk of v, a value of s, with gjson's of r,
// offsets too when offsets is set, and goes down into the values.
func compareWalk(t *testing.T, s string, v Value, r gjson.Result, offsets bool) {
	var want []gjson.Result
	r.ForEach(func(_, e gjson.Result) bool {
		want = append(want, e)
		return true
	})
	i := 0
	for e := range v.Values() {
		if i == len(want) {
			t.Fatalf("in %q: Values gives more values of %q than gjson's %d", s, v.Raw(), len(want))
		}
		w := want[i]
		i++
		if e.Raw() != w.Raw || offsets && e.Offset() != w.Index || !offsets && e.Offset() != -1 {
			t.Fatalf("in %q: value %d is %q at %d, gjson finds %q at %d", s, i-1, e.Raw(), e.Offset(), w.Raw, w.Index)
		}
		if e.Kind() == String && e.Text() != w.String() {
			t.Fatalf("in %q: string %q reads %q, gjson %q", s, e.Raw(), e.Text(), w.String())
		}
		if k := e.Kind(); k == Object || k == Array {
			compareWalk(t, s, e, w, offsets)
		}
	}
	if i != len(want) {
		t.Fatalf("in %q: Values gives %d values of %q, gjson %d", s, i, v.Raw(), len(want))
	}
	if v.Kind() == Object {
		compareFields(t, s, v, r)
	}
}

// compareFields checks Pick, Fields.Path and Value.Path on the object v,
// a value of s, against gjson's Get on r, for its keys that are plain
// words.
func compareFields(t *testing.T, s string, v Value, r gjson.Result) {
	var names []string
	seen := make(map[string]bool)
	for key := range v.Members() {
		if plainKey(key) && !seen[key] && len(names) < maxFields {
			seen[key] = true
			names = append(names, key)
		}
	}
	var f Fields
	v.Pick(NewNames(names...), &f)
	for i, n := range names {
		w := r.Get(n)
		if got := f.Get(i); got.Raw() != w.Raw || got.Exists() && got.Offset() != w.Index && got.Offset() >= 0 {
			t.Fatalf("in %q: field %q is %q at %d, gjson finds %q at %d", s, n, got.Raw(), got.Offset(), w.Raw, w.Index)
		}
		if f.Get(i).Kind() != Object {
			continue
		}
		for key := range f.Get(i).Members() {
			if !plainKey(key) {
				continue
			}
			want := r.Get(n + "." + key).Raw
			if got := v.Path(n, key).Raw(); got != want {
				t.Fatalf("in %q: Path %s.%s is %q, gjson finds %q", s, n, key, got, want)
			}
			if got := f.Path(i, key).Raw(); got != want {
				t.Fatalf("in %q: Fields.Path %s.%s is %q, gjson finds %q", s, n, key, got, want)
			}
		}
	}
	for e := range v.Members() {
		if plainKey(e) {
			for _, idx := range []string{"0", "1"} {
				if got, want := v.Path(e, idx).Raw(), r.Get(e+"."+idx).Raw; got != want {
					t.Fatalf("in %q: Path %s.%s is %q, gjson finds %q", s, e, idx, got, want)
				}
			}
		}
	}
}

// TestDocIndex checks that an index answers for values of its text seen
// through any part of it that holds them, and for no other text.
func TestDocIndex(t *testing.T) {
	long := strings.Repeat("x", minSpan)
	doc := `{"a": [1, {"b": "` + long + `"}], "c": {"d": 2}, "e": "` + long + `"}`
	x, ok := Index(doc)
	if !ok {
		t.Fatalf("Index(%q) finds it invalid", doc)
	}
	checkIndex(t, x)
	if len(x.spans) != 5 {
		t.Fatalf("the index of %q records %d values, want 5 (the document, a, its object, b and e)", doc, len(x.spans))
	}
	// In document order, backwards, and again.
	var order []int
	for k := range x.spans {
		order = append(order, k)
	}
	for k := range x.spans {
		order = append(order, len(x.spans)-1-k, len(x.spans)-1-k)
	}
	for _, k := range order {
		start, end := x.spans[k].start, x.spans[k].end
		for _, from := range []int{0, start} {
			part := doc[from:]
			if e, ok := x.end(part, start-from); !ok || from+e != end {
				t.Errorf("end of the value at %d seen from %d = %d, %v; want %d", start, from, from+e, ok, end)
			}
		}
		// A part that stops before the value ends cannot hold it.
		if _, ok := x.end(doc[:end-1], start); ok {
			t.Errorf("end of the value at %d found in a part cut before its end", start)
		}
	}
	copied := strings.Clone(doc)
	if _, ok := x.end(copied, 0); ok {
		t.Error("an index answers for text outside its document")
	}
	if _, ok := (*Doc)(nil).end(doc, 0); ok {
		t.Error("no index answers")
	}
}

// TestKeep checks that Keep copies what lies in the text of a record, and
// only that.
func TestKeep(t *testing.T) {
	line := []byte(`{"type":"a\nb","id":"x"}`)
	var d Doc
	var f Fields
	if _, ok := d.Record(string(line), NewNames("type", "id"), &f); !ok {
		t.Fatal("Record finds a valid record invalid")
	}
	text := `{"type":"a\nb","id":"x"}`
	if _, ok := d.Record(text, NewNames("type", "id"), &f); !ok {
		t.Fatal("Record finds a valid record invalid")
	}
	id := f.Get(1).Text()
	if kept := d.Keep(id); kept != id || within(kept, text) {
		t.Errorf("Keep(%q) = %q, in the record's memory: %v", id, kept, within(kept, text))
	}
	typ := f.Get(0).Text() // decoded: memory of its own
	if within(typ, text) || d.Keep(typ) != typ {
		t.Errorf("the text of an escaped string lies in its record")
	}
	d.Release()
	if !within(d.Keep(id), text) {
		t.Error("after Release, Keep still copies")
	}
}
