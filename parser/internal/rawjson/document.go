package rawjson

import (
	"cmp"
	"slices"
	"strings"
	"unsafe"
)

// A Doc is JSON text that Values are read from: a record, in a buffer its
// reader may reuse (see Record and Keep), or a whole document, which may
// carry an index of where its long values end (see Index).
//
// A decoder that walks a document level by level, scanning each value to
// find where it ends, reads a tool's output once at every level above it:
// ten times in a Gemini CLI record. The index, built as the document is
// validated, tells the walkers where its long values end, so that each of
// its bytes is read about twice.
type Doc struct {
	text  string
	valid bool   // the text was validated, and is valid JSON
	spans []span // the values indexed, by their start
	// next is the place after the value last found. Walkers ask in
	// document order, mostly: for the value at spans[next], or for one
	// between spans[next-1] and it, which the index does not hold.
	next int
}

// A span is where a value of a Doc's text starts, and the offset after it;
// -1 for an object or array not yet closed.
type span struct{ start, end int }

// minSpan is the length from which an index records a value: shorter ones
// take less time to scan than to look up.
const minSpan = 64

// NewDoc returns the Doc of text, which is not validated: its values read
// as gjson reads text, as far as they go. Text cut short at Prefix reads
// as gjson reads the whole; other text that is not valid JSON reads in
// some way that never fails.
func NewDoc(text string) *Doc { return &Doc{text: text} }

// Index reports whether text is one valid JSON value, as Valid does, and
// returns its Doc, with the index of its long values, when it is.
func Index(text string) (*Doc, bool) {
	i := skipSpace(text, 0)
	if i == len(text) {
		return nil, false
	}
	// A long value every few hundred bytes, as transcripts hold them.
	x := &Doc{text: text, valid: true, spans: make([]span, 0, len(text)/512+8)}
	end, ok := validValue(text, i, 0, picker{}, x)
	if !ok || skipSpace(text, end) != len(text) {
		return nil, false
	}
	return x, true
}

// Record reads text, one record of a stream, as d's text: it reports
// whether text is one valid JSON value, as Valid does, and, in the same
// pass, picks into f[0] the members of the value that n names, and into
// f[1], f[2]… those that the Names nested in n (see Names.Nest) name in
// the objects of those members: f holds a Fields for n and one for each
// Names nested in it. It may pick values before it finds text invalid. Values read from d, and the strings they give, share text's
// memory: what outlives the reuse of text's buffer goes through Keep.
func (d *Doc) Record(text string, n *Names, f ...*Fields) (Value, bool) {
	d.text, d.spans, d.next = text, nil, 0
	v, ok := d.record(text, n, f)
	d.valid = ok
	return v, ok
}

// Record is Doc.Record of text read as no Doc's: for JSON text a string
// holds, whose values need no offsets and no Keep.
func Record(text string, n *Names, f ...*Fields) (Value, bool) {
	return (*Doc)(nil).record(text, n, f)
}

// record does what Record does, for d or for no Doc when d is nil.
func (d *Doc) record(text string, n *Names, f []*Fields) (Value, bool) {
	i := skipSpace(text, 0)
	if i == len(text) {
		return Value{}, false
	}
	f[0].reset(Value{}, n)
	for k, inner := range n.nested {
		f[1+k].reset(Value{}, inner)
	}
	var end int
	var ok bool
	if text[i] == '{' {
		end, ok = validObject(text, i+1, 1, picker{f: f[0], nested: f[1:]}, nil)
	} else {
		end, ok = validValue(text, i, 0, picker{}, nil)
	}
	if !ok || skipSpace(text, end) != len(text) {
		return Value{}, false
	}
	v := Value{text[i:end], d}
	f[0].obj = v
	for _, f := range f {
		f.of(d)
	}
	return v, true
}

// Release forgets d's text, so that d no longer holds its memory.
func (d *Doc) Release() { d.text, d.valid = "", false }

// Root returns the value of d's text: what follows any white space or
// control character, as gjson reads it. An object or an array runs to the
// end of the text.
func (d *Doc) Root() Value { return Value{root(d.text), d} }

// root returns the text of the value text holds, as gjson.Parse takes it:
// text less any white space or control character before it, and, unless
// it is an object or an array, any white space after it.
func root(text string) string {
	i := 0
	for i < len(text) && text[i] <= ' ' {
		i++
	}
	if i < len(text) && (text[i] == '{' || text[i] == '[') {
		return text[i:]
	}
	return strings.TrimRight(text[i:], " \t\r\n")
}

// Keep returns s, or a copy of it when it lies in d's text: a string that
// must outlive the reuse of the buffer d was read from goes through Keep,
// which makes sure it holds no more memory than its own.
func (d *Doc) Keep(s string) string {
	if d != nil && within(s, d.text) {
		return strings.Clone(s)
	}
	return s
}

// within reports whether s lies in the memory of buf: whether keeping s
// would keep buf.
func within(s, buf string) bool {
	if len(s) == 0 || len(buf) == 0 {
		return false
	}
	p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
	b := uintptr(unsafe.Pointer(unsafe.StringData(buf)))
	return b <= p && p < b+uintptr(len(buf))
}

// offset returns the offset in d's text of s, a part of it, or -1.
func (d *Doc) offset(s string) int {
	if d == nil || len(s) == 0 || len(d.text) == 0 {
		return -1
	}
	o := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(d.text)))
	if o > uintptr(len(d.text)) || int(o) > len(d.text)-len(s) {
		return -1
	}
	return int(o)
}

// open records the start of an object or array at offset i of the text,
// and returns its place in the index for close.
func (d *Doc) open(i int) int {
	if d == nil {
		return -1
	}
	d.spans = append(d.spans, span{i, -1})
	return len(d.spans) - 1
}

// close records that the value opened at place k ends at offset end, or
// forgets it when it is short.
func (d *Doc) close(k, end int) {
	if d == nil {
		return
	}
	// A short value holds only short ones, which were forgotten as they
	// closed: it is the last recorded.
	if end-d.spans[k].start < minSpan && k == len(d.spans)-1 {
		d.spans = d.spans[:k]
		return
	}
	d.spans[k].end = end
}

// add records a string from offset start to end when it is long.
func (d *Doc) add(start, end int) {
	if d != nil && end-start >= minSpan {
		d.spans = append(d.spans, span{start, end})
	}
}

// end returns the index after the value that starts at s[i], when s is a
// part of d's text and d's index knows where that value ends.
func (d *Doc) end(s string, i int) (int, bool) {
	if d == nil || len(d.spans) == 0 {
		return 0, false
	}
	off := d.offset(s)
	if off < 0 {
		return 0, false
	}
	k, found := d.find(off + i)
	if !found || d.spans[k].end < 0 || d.spans[k].end-off > len(s) {
		return 0, false
	}
	return d.spans[k].end - off, true
}

// find returns the place in d.spans of the value that starts at start, or
// where it would be, and whether it is there.
func (d *Doc) find(start int) (int, bool) {
	k, n := d.next, len(d.spans)
	switch {
	case k < n && d.spans[k].start == start:
	case k > 0 && d.spans[k-1].start == start:
		return k - 1, true
	case (k == 0 || d.spans[k-1].start < start) && (k == n || start < d.spans[k].start):
		return k, false
	default:
		var found bool
		k, found = slices.BinarySearchFunc(d.spans, start, func(s span, start int) int { return cmp.Compare(s.start, start) })
		if !found {
			return k, false
		}
	}
	d.next = k + 1
	return k, true
}
