package parser

import (
	"slices"
	"strings"
	"unsafe"
)

// This file walks JSON documents that are read whole (a Gemini CLI
// record, an opencode export) in one pass per object, as jsonscan.go's
// walkers do for records. A document may be cut short or broken, and its
// decoder still reads what comes before the trouble: the walkers here take
// valid JSON, or the start of it (see jsonPrefix), and read a cut value as
// gjson does. A string that is not closed ends the walk; an object or array
// that is not closed is passed on as far as it goes. They also give the
// offset of each value, which the decoders turn into a line number.
//
// A decoder that walks a document level by level, scanning each value to
// find where it ends, reads a tool's output once at every level above it:
// ten times in a Gemini CLI record. A docIndex, built as the document is
// validated, tells the walkers where its long values end, so that each of
// its bytes is read about twice (see BenchmarkDecode). The walkers are
// methods of *docIndex; a nil *docIndex knows nothing, and they scan.

// minSpan is the length from which a docIndex records a value: shorter ones
// take less time to scan than to look up.
const minSpan = 64

// A docIndex records where the objects, arrays and strings of at least
// minSpan bytes of a valid document end. indexJSON builds it as it
// validates the document.
type docIndex struct {
	doc    string
	starts []int // offsets in doc of the values, in increasing order
	ends   []int // ends[k] is the offset after the value at starts[k]
	// next is the place after the value last found. Walkers ask in
	// document order, mostly: for the value at starts[next], or for one
	// between starts[next-1] and it, which the index does not hold.
	next int
}

// noIndex is the index of no document, for walking records.
var noIndex *docIndex

// indexJSON reports whether doc is valid JSON, as validJSON does, and
// returns its index when it is.
func indexJSON(doc string) (*docIndex, bool) {
	i := skipSpace(doc, 0)
	if i == len(doc) {
		return nil, false
	}
	x := &docIndex{doc: doc}
	end, ok := validValue(doc, i, 0, x)
	if !ok || skipSpace(doc, end) != len(doc) {
		return nil, false
	}
	return x, true
}

// open records the start of an object or array at offset i of the
// document, and returns its place in x for close.
func (x *docIndex) open(i int) int {
	if x == nil {
		return -1
	}
	x.starts = append(x.starts, i)
	x.ends = append(x.ends, -1)
	return len(x.starts) - 1
}

// close records that the value opened at place k ends at offset end, or
// forgets it when it is short.
func (x *docIndex) close(k, end int) {
	if x == nil {
		return
	}
	// A short value holds only short ones, which were forgotten as they
	// closed: it is the last recorded.
	if end-x.starts[k] < minSpan && k == len(x.starts)-1 {
		x.starts, x.ends = x.starts[:k], x.ends[:k]
		return
	}
	x.ends[k] = end
}

// add records a string from offset start to end when it is long.
func (x *docIndex) add(start, end int) {
	if x != nil && end-start >= minSpan {
		x.starts = append(x.starts, start)
		x.ends = append(x.ends, end)
	}
}

// end returns the index after the value that starts at s[i], when s is a
// part of x's document and x knows where that value ends.
func (x *docIndex) end(s string, i int) (int, bool) {
	if x == nil || len(s) == 0 {
		return 0, false
	}
	// s shares the document's bytes: where they start tells its offset.
	d := uintptr(unsafe.Pointer(unsafe.StringData(s))) - uintptr(unsafe.Pointer(unsafe.StringData(x.doc)))
	if d > uintptr(len(x.doc)) || int(d) > len(x.doc)-len(s) {
		return 0, false
	}
	off := int(d)
	k, found := x.find(off + i)
	if !found || x.ends[k] < 0 || x.ends[k]-off > len(s) {
		return 0, false
	}
	return x.ends[k] - off, true
}

// find returns the place of start in x.starts, or where it would be, and
// whether it is there.
func (x *docIndex) find(start int) (int, bool) {
	k, n := x.next, len(x.starts)
	switch {
	case k < n && x.starts[k] == start:
	case k > 0 && x.starts[k-1] == start:
		return k - 1, true
	case (k == 0 || x.starts[k-1] < start) && (k == n || start < x.starts[k]):
		return k, false
	default:
		var found bool
		if k, found = slices.BinarySearch(x.starts, start); !found {
			return k, false
		}
	}
	x.next = k + 1
	return k, true
}

// jsonPrefix returns the length of the start of data that the walkers
// read as gjson reads the whole: the offset at which data stops being
// valid JSON, or the end of the first value when more data follows it.
func jsonPrefix(data []byte) int {
	i := skipSpace(data, 0)
	if i == len(data) {
		return i
	}
	end, _ := validValue(string(data), i, 0, nil)
	// validValue fails at the start of a word, which may be cut short:
	// then data, with the word completed, is valid up to its end.
	rest := string(data[end:])
	for _, w := range []string{"true", "false", "null"} {
		if rest != "" && len(rest) < len(w) && strings.HasPrefix(w, rest) {
			whole := string(data[:end]) + w
			if e, _ := validValue(whole, i, 0, nil); e > end {
				return len(data)
			}
		}
	}
	return end
}

// endValue returns the index after the value that starts at s[i], and
// false when there is none or it is a string that s ends in. An object or
// array that s ends in ends with s.
func (x *docIndex) endValue(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	if end, ok := x.end(s, i); ok {
		return end, true
	}
	switch s[i] {
	case '"':
		return endString(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i, _ = endString(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1, true
				}
			}
			i++
		}
		return i, true
	}
	for i < len(s) && !isDelim(s[i]) {
		i++
	}
	return i, true
}

// eachMemberAt calls fn with the raw key (between its quotes), the offset
// in obj and the raw value of each member of the object obj, in order,
// until fn returns false. It does nothing when obj is not an object.
func (x *docIndex) eachMemberAt(obj string, fn func(key string, off int, val string) bool) {
	i := skipBlank(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipBlank(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		end, ok := endString(obj, i)
		if !ok {
			return
		}
		key := obj[i+1 : end-1]
		i = skipBlank(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipBlank(obj, i+1)
		end, ok = x.endValue(obj, i)
		if !ok || !fn(key, i, obj[i:end]) {
			return
		}
		i = skipBlank(obj, end)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// eachElementAt calls fn with the offset in arr and the raw value of each
// element of the array arr, in order, until fn returns false. It does
// nothing when arr is not an array.
func (x *docIndex) eachElementAt(arr string, fn func(off int, val string) bool) {
	i := skipBlank(arr, 0)
	if i == len(arr) || arr[i] != '[' {
		return
	}
	i++
	for {
		i = skipBlank(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		end, ok := x.endValue(arr, i)
		if !ok || !fn(i, arr[i:end]) {
			return
		}
		i = skipBlank(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// eachValueAt calls fn as gjson's ForEach calls its iterator, with the
// offset of each value in raw too: with each element of an array, each
// member's value of an object, or once with any other value; never for "".
func (x *docIndex) eachValueAt(raw string, fn func(off int, val string) bool) {
	i := skipBlank(raw, 0)
	switch {
	case i == len(raw):
	case raw[i] == '[':
		x.eachElementAt(raw, fn)
	case raw[i] == '{':
		x.eachMemberAt(raw, func(_ string, off int, val string) bool { return fn(off, val) })
	default:
		fn(i, raw[i:])
	}
}

// fieldsAt stores in vals[i] the raw value of the first member of obj
// named names[i], and in offs[i], unless offs is nil, its offset in obj. It
// walks the whole of obj once, and returns a mask in which bit i is set when
// more than one member is named names[i], for below.
func (x *docIndex) fieldsAt(obj string, names []string, vals []string, offs []int) (dups uint64) {
	x.eachMemberAt(obj, func(key string, off int, val string) bool {
		switch i := keyIndex(key, names); {
		case i < 0:
		case vals[i] != "":
			dups |= 1 << i
		default:
			vals[i] = val
			if offs != nil {
				offs[i] = off
			}
		}
		return true
	})
	return dups
}

// dig returns the raw value at a path of member names in obj, as
// gjson.Get(obj, "name.name…") finds it: a member named path[0] that does
// not hold the rest of the path is passed over for a later one so named.
func (x *docIndex) dig(obj string, path ...string) string {
	if len(path) == 0 {
		return obj
	}
	var out string
	x.eachMemberAt(obj, func(key string, _ int, val string) bool {
		if !keyIs(key, path[0]) {
			return true
		}
		out = x.dig(val, path[1:]...)
		return out == ""
	})
	return out
}

// below returns dig(obj, name, path...) given first, the raw value of the
// first member of obj named name, and dup, whether obj has another: it
// walks obj again only when first does not hold the path and another
// member might.
func (x *docIndex) below(obj, name, first string, dup bool, path ...string) string {
	if v := x.dig(first, path...); v != "" || !dup {
		return v
	}
	return x.dig(obj, append([]string{name}, path...)...)
}

// isString, isObject and isArray tell a raw value's type from its first
// byte, as gjson's Type, IsObject and IsArray do.
func isString(raw string) bool { return raw != "" && raw[0] == '"' }
func isObject(raw string) bool { return raw != "" && raw[0] == '{' }
func isArray(raw string) bool  { return raw != "" && raw[0] == '[' }

// skipBlank is skipSpace for documents, which are often pretty-printed:
// it counts the spaces that indent a line eight at a time.
func skipBlank(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
		if data[i-1] == '\n' {
			i = skipIndent(data, i)
		}
	}
	return i
}
