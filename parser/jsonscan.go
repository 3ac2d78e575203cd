package parser

import (
	"math/bits"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/tidwall/gjson"
)

// This file reads JSON records faster than gjson does where transcripts
// spend their bytes: in long strings (outputs, file contents, images).
// validJSON accepts what gjson.ValidBytes accepts, nested at most
// maxNesting levels deep, and checks strings eight bytes at a time;
// validFields also picks out a record's members as it goes. field and
// eachElement walk a record that is known to be valid, skipping strings
// with a vectorized search for their closing quote.
// What they find is handed to gjson (gjson.Parse of the raw value),
// so that values read exactly as gjson.Get would give them.

// validJSON reports whether data is a valid JSON value, surrounded by
// white space or not, and nested at most maxNesting levels deep: the answer
// of gjson.ValidBytes, which transcripts' decoders must give on every record
// (the style guide's rule 5), but for the depth, which gjson does not limit.
func validJSON(data []byte) bool {
	return validFields(bytesString(data), nil)
}

// validJSONString is validJSON of a string.
func validJSONString(s string) bool {
	return validFields(s, nil)
}

// maxNesting is how deep the validators let arrays and objects nest, as
// encoding/json does: a record nested deeper is invalid, and skipped with
// the message of jsonError. The validators recurse once per level and Go
// cannot recover from a stack overflow, so every JSON value retrace walks
// passes through them first: gjson.Valid, which recurses without a limit,
// is not used, and the walkers that recurse (gjson's included) take only
// what the validators accepted.
const maxNesting = 10000

// bytesString returns the bytes of b as a string, without copying them: b
// must not change while the string, or any part of it, is in use.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// A fieldSet is what validFields finds in an object: in vals[i] the raw
// value of its first member named names[i], as fields does, and, when
// inner[i] is not nil and that value is an object, what inner[i] names in
// it.
type fieldSet struct {
	names, vals []string
	inner       []*fieldSet
}

// validFields is validJSON of data that, in the same pass, fills in set
// when data is an object. It may store values in set before it finds data
// invalid.
func validFields(data string, set *fieldSet) bool {
	i := skipSpace(data, 0)
	if i == len(data) {
		return false
	}
	var ok bool
	if data[i] == '{' {
		i, ok = validObject(data, i+1, 1, set, nil)
	} else {
		i, ok = validValue(data, i, 0, nil)
	}
	return ok && skipSpace(data, i) == len(data)
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace[T string | []byte](data T, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipIndent returns the index of the first byte at or after i that is not
// a space, counting spaces eight at a time: pretty-printed documents indent
// deep values by many.
func skipIndent[T string | []byte](data T, i int) int {
	for len(data)-i >= 8 {
		b := data[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if m := w ^ (ones * ' '); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
		i += 8
	}
	return i
}

// validValue validates the value that starts at data[i], inside depth
// arrays and objects, and returns the index after it. It records the long
// values it finds in x, which may be nil.
func validValue(data string, i, depth int, x *docIndex) (int, bool) {
	switch data[i] {
	case '{':
		if depth >= maxNesting {
			return i, false
		}
		k := x.open(i)
		end, ok := validObject(data, i+1, depth+1, nil, x)
		x.close(k, end)
		return end, ok
	case '[':
		if depth >= maxNesting {
			return i, false
		}
		k := x.open(i)
		end, ok := validArray(data, i+1, depth+1, x)
		x.close(k, end)
		return end, ok
	case '"':
		end, ok := validString(data, i+1)
		x.add(i, end)
		return end, ok
	case 't':
		return validWord(data, i, "true")
	case 'f':
		return validWord(data, i, "false")
	case 'n':
		return validWord(data, i, "null")
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		return validNumber(data, i)
	}
	return i, false
}

func validWord(data string, i int, word string) (int, bool) {
	if len(data)-i >= len(word) && data[i:i+len(word)] == word {
		return i + len(word), true
	}
	return i, false
}

// validObject validates the rest of an object whose opening brace is at
// data[i-1], depth levels deep (1 at the top), and returns the index after
// its closing brace. It fills in set and
// records long values in x; either may be nil.
func validObject(data string, i, depth int, set *fieldSet, x *docIndex) (int, bool) {
	i = skipSpace(data, i)
	if i < len(data) && data[i] == '}' {
		return i + 1, true
	}
	for {
		if i == len(data) || data[i] != '"' {
			return i, false
		}
		key := i + 1
		var ok bool
		if i, ok = validString(data, key); !ok {
			return i, false
		}
		keyEnd := i - 1
		i = skipSpace(data, i)
		if i == len(data) || data[i] != ':' {
			return i, false
		}
		i = skipSpace(data, i+1)
		if i == len(data) {
			return i, false
		}
		val, f := i, -1
		if set != nil {
			f = fieldIndex(data[key:keyEnd], set.names, set.vals)
		}
		if f >= 0 && set.inner != nil && set.inner[f] != nil && data[i] == '{' && depth < maxNesting {
			i, ok = validObject(data, i+1, depth+1, set.inner[f], x)
		} else {
			i, ok = validValue(data, i, depth, x)
		}
		if !ok {
			return i, false
		}
		if f >= 0 {
			set.vals[f] = data[val:i]
		}
		i = skipSpace(data, i)
		if i == len(data) {
			return i, false
		}
		switch data[i] {
		case '}':
			return i + 1, true
		case ',':
			i = skipSpace(data, i+1)
		default:
			return i, false
		}
	}
}

// validArray is validObject for an array.
func validArray(data string, i, depth int, x *docIndex) (int, bool) {
	i = skipSpace(data, i)
	if i < len(data) && data[i] == ']' {
		return i + 1, true
	}
	for {
		i = skipSpace(data, i)
		if i == len(data) {
			return i, false
		}
		var ok bool
		if i, ok = validValue(data, i, depth, x); !ok {
			return i, false
		}
		i = skipSpace(data, i)
		if i == len(data) {
			return i, false
		}
		switch data[i] {
		case ']':
			return i + 1, true
		case ',':
			i++
		default:
			return i, false
		}
	}
}

const (
	ones  = 0x0101010101010101
	highs = 0x8080808080808080
)

// validString validates the rest of a string whose opening quote is at
// data[i-1], and returns the index after its closing quote.
func validString(data string, i int) (int, bool) {
	for {
		i = stringStop(data, i)
		if i == len(data) || data[i] < ' ' {
			return i, false
		}
		if data[i] == '"' {
			return i + 1, true
		}
		i++ // the escaped character
		if i == len(data) {
			return i, false
		}
		switch data[i] {
		case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		case 'u':
			for range 4 {
				i++
				if i == len(data) || !isHex(data[i]) {
					return i, false
				}
			}
		default:
			return i, false
		}
		i++
	}
}

// stringStop returns the index of the first byte at or after i that ends
// a run of plain text in a JSON string: a quote, a backslash or a control
// character; len(s) when there is none. Escapes come every few bytes in
// transcripts' outputs and code, too often for bytes.IndexByte to pay, so
// it reads eight bytes at a time and finds all three in one pass.
func stringStop(s string, i int) int {
	for ; len(s)-i >= 8; i += 8 {
		b := s[i : i+8]
		w := uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
			uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
		if m := stops(w); m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' || c < ' ' {
			return i
		}
	}
	return len(s)
}

// stops returns a word whose high bits mark, in the eight bytes of w read
// as little-endian, the bytes that are '"', '\\' or below ' '. Only the
// lowest marked byte is sure to be one: a borrow can mark bytes above it.
func stops(w uint64) uint64 {
	q := w ^ (ones * '"')
	b := w ^ (ones * '\\')
	return ((q-ones)&^q | (b-ones)&^b | (w-ones*' ')&^w) & highs
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// validNumber validates the number that starts at data[i]: an optional
// minus, a zero or digits, then an optional fraction and exponent.
func validNumber(data string, i int) (int, bool) {
	if data[i] == '-' {
		i++
		if i == len(data) || !isDigitByte(data[i]) {
			return i, false
		}
	}
	if data[i] == '0' {
		i++
	} else {
		for i < len(data) && isDigitByte(data[i]) {
			i++
		}
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i == len(data) || !isDigitByte(data[i]) {
			return i, false
		}
		for i < len(data) && isDigitByte(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i == len(data) || !isDigitByte(data[i]) {
			return i, false
		}
		for i < len(data) && isDigitByte(data[i]) {
			i++
		}
	}
	return i, true
}

func isDigitByte(c byte) bool { return '0' <= c && c <= '9' }

// The walkers below take valid JSON; on anything else they return what
// they can without failing.

// skipStr returns the index after the string whose opening quote is at
// s[i].
func skipStr(s string, i int) int {
	end, _ := endString(s, i)
	return end
}

// endString returns the index after the string whose opening quote is at
// s[i], and false when s ends before the string does.
func endString(s string, i int) (int, bool) {
	start := i + 1
	i = start
	for {
		q := strings.IndexByte(s[i:], '"')
		if q < 0 {
			return len(s), false
		}
		i += q
		// The quote ends the string unless an odd number of
		// backslashes escapes it.
		n := 0
		for k := i - 1; k >= start && s[k] == '\\'; k-- {
			n++
		}
		if n%2 == 0 {
			return i + 1, true
		}
		i++
	}
}

// skipVal returns the index after the value that starts at s[i].
func skipVal(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '"':
		return skipStr(s, i)
	case '{', '[':
		depth := 0
		for i < len(s) {
			switch s[i] {
			case '"':
				i = skipStr(s, i)
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return i
	}
	for i < len(s) && !isDelim(s[i]) {
		i++
	}
	return i
}

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// eachMember calls fn with the raw key (between its quotes) and the raw
// value of each member of the object obj, in order, until fn returns
// false. It does nothing when obj is not an object.
func eachMember(obj string, fn func(key, val string) bool) {
	i := skipSpace(obj, 0)
	if i == len(obj) || obj[i] != '{' {
		return
	}
	i++
	for {
		i = skipSpace(obj, i)
		if i >= len(obj) || obj[i] != '"' {
			return
		}
		end := skipStr(obj, i)
		key := obj[i+1 : max(end-1, i+1)]
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return
		}
		i = skipSpace(obj, i+1)
		vend := skipVal(obj, i)
		if !fn(key, obj[i:vend]) {
			return
		}
		i = skipSpace(obj, vend)
		if i >= len(obj) || obj[i] != ',' {
			return
		}
		i++
	}
}

// eachElement calls fn with the raw value of each element of the array
// arr, in order, until fn returns false. It does nothing when arr is not
// an array.
func eachElement(arr string, fn func(val string) bool) {
	eachElementFields(arr, nil, nil, fn)
}

// eachElementFields is eachElement storing in vals, before it calls fn
// with an element, what fields(element, names, vals) stores, in the walk
// that finds where the element ends.
func eachElementFields(arr string, names, vals []string, fn func(val string) bool) {
	i := skipSpace(arr, 0)
	if i == len(arr) || arr[i] != '[' {
		return
	}
	i++
	for {
		i = skipSpace(arr, i)
		if i >= len(arr) || arr[i] == ']' {
			return
		}
		var end int
		if names != nil {
			clear(vals)
		}
		if names != nil && arr[i] == '{' {
			end = objectFields(arr, i, names, vals)
		} else {
			end = skipVal(arr, i)
		}
		if !fn(arr[i:end]) {
			return
		}
		i = skipSpace(arr, end)
		if i >= len(arr) || arr[i] != ',' {
			return
		}
		i++
	}
}

// keyIs reports whether a raw key names name, reading its escapes as
// gjson does.
func keyIs(raw, name string) bool {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw == name
	}
	return gjson.Parse(`"`+raw+`"`).Str == name
}

// field returns the raw value of the first member of obj named name, as
// gjson.Get(obj, name) finds it; "" when there is none or obj is not an
// object.
func field(obj, name string) string {
	var out string
	eachMember(obj, func(key, val string) bool {
		if keyIs(key, name) {
			out = val
			return false
		}
		return true
	})
	return out
}

// fields stores in vals[i] the raw value of the first member of obj named
// names[i], in one walk of obj.
func fields(obj string, names []string, vals []string) {
	left := len(names)
	eachMember(obj, func(key, val string) bool {
		if i := fieldIndex(key, names, vals); i >= 0 {
			vals[i] = val
			left--
		}
		return left > 0
	})
}

// objectFields does what fields(s[i:], names, vals) does to the object
// that starts at s[i], walking all of it, and returns the index after it.
func objectFields(s string, i int, names, vals []string) int {
	for i++; ; i++ {
		i = skipSpace(s, i)
		if i >= len(s) || s[i] != '"' {
			break
		}
		end := skipStr(s, i)
		key := s[i+1 : max(end-1, i+1)]
		i = skipSpace(s, end)
		if i >= len(s) || s[i] != ':' {
			return i
		}
		i = skipSpace(s, i+1)
		vend := skipVal(s, i)
		if f := fieldIndex(key, names, vals); f >= 0 {
			vals[f] = s[i:vend]
		}
		i = skipSpace(s, vend)
		if i >= len(s) || s[i] != ',' {
			break
		}
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return i
}

// fieldIndex returns the i for which the raw key names names[i] and
// vals[i] is still "", or -1.
func fieldIndex(key string, names, vals []string) int {
	if i := keyIndex(key, names); i >= 0 && vals[i] == "" {
		return i
	}
	return -1
}

// keyIndex returns the i for which the raw key names names[i], reading its
// escapes as gjson does, or -1.
func keyIndex(key string, names []string) int {
	for i, n := range names {
		if key == n {
			return i
		}
	}
	if strings.IndexByte(key, '\\') < 0 {
		return -1
	}
	key = gjson.Parse(`"` + key + `"`).Str
	for i, n := range names {
		if key == n {
			return i
		}
	}
	return -1
}

// value reads a raw value, taken from a valid record, as gjson.Parse does.
func value(raw string) gjson.Result {
	if raw == "" {
		return gjson.Result{}
	}
	if raw[0] == '"' && len(raw) >= 2 {
		return gjson.Result{Type: gjson.String, Raw: raw, Str: unquote(raw)}
	}
	return gjson.Parse(raw)
}

// unquote returns the text of a valid JSON string as gjson reads it: the
// escapes decoded, a surrogate pair as one rune, a lone surrogate as
// U+FFFD. Unlike gjson it copies the runs between escapes whole.
func unquote(raw string) string {
	return unquoteBody(raw[1 : len(raw)-1])
}

// unquoteBody is unquote of the text between a string's quotes.
func unquoteBody(body string) string {
	i := strings.IndexByte(body, '\\')
	if i < 0 {
		return body
	}
	b := make([]byte, 0, len(body))
	for i >= 0 {
		b = append(b, body[:i]...)
		body = body[i+1:]
		c := body[0]
		body = body[1:]
		switch c {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'u':
			r := hex4(body)
			body = body[4:]
			if 0xD800 <= r && r < 0xDC00 && len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
				if r2 := hex4(body[2:]); 0xDC00 <= r2 && r2 < 0xE000 {
					r = utf16.DecodeRune(r, r2)
					body = body[6:]
				}
			}
			b = utf8.AppendRune(b, r)
		default: // '"', '\\', '/'
			b = append(b, c)
		}
		i = strings.IndexByte(body, '\\')
	}
	b = append(b, body...)
	return bytesString(b)
}

// escapeCut returns the last position at or before p in body, the text
// of a valid JSON string, that no escape and no surrogate pair of escapes
// spans: the text of body[:q] and body[q:] is then a prefix and a suffix
// of the text of body.
func escapeCut(body string, p int) int {
	if p >= len(body) {
		return len(body)
	}
	// An escape spanning p starts at most five bytes before it, and the
	// nearest backslash before p tells: an escape's first or second byte.
	for e := p - 1; e >= max(0, p-5); e-- {
		if body[e] == '\\' {
			if escapeStart(body, e) && e+escapeLen(body, e) > p {
				p = e
			}
			break
		}
	}
	if p >= 6 && surrogateEscape(body, p, 0xDC00) && surrogateEscape(body, p-6, 0xD800) {
		p -= 6 // the low half of a pair
	}
	return p
}

// escapeStart reports whether the backslash at e starts an escape: it
// follows an even number of backslashes.
func escapeStart(body string, e int) bool {
	k := 0
	for e-k > 0 && body[e-k-1] == '\\' {
		k++
	}
	return k%2 == 0
}

// escapeLen returns the length of the escape starting at e.
func escapeLen(body string, e int) int {
	if body[e+1] == 'u' {
		return 6
	}
	return 2
}

// surrogateEscape reports whether an escape of a surrogate between lo and
// lo+0x400 starts at e.
func surrogateEscape(body string, e int, lo rune) bool {
	if e+6 > len(body) || body[e] != '\\' || body[e+1] != 'u' || !escapeStart(body, e) {
		return false
	}
	r := hex4(body[e+2:])
	return lo <= r && r < lo+0x400
}

// hex4 reads four hexadecimal digits.
func hex4(s string) rune {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case c <= '9':
			c -= '0'
		case c <= 'F':
			c -= 'A' - 10
		default:
			c -= 'a' - 10
		}
		r = r<<4 | rune(c)
	}
	return r
}

// eachValue calls fn as gjson's ForEach calls its iterator: with each
// element of an array, each member's value of an object, or once with any
// other value; never for "".
func eachValue(raw string, fn func(val string) bool) {
	eachValueFields(raw, nil, nil, fn)
}

// eachValueFields is eachValue storing in vals, before it calls fn with a
// value, what fields(value, names, vals) stores.
func eachValueFields(raw string, names, vals []string, fn func(val string) bool) {
	i := skipSpace(raw, 0)
	switch {
	case i == len(raw):
	case raw[i] == '[':
		eachElementFields(raw, names, vals, fn)
	case raw[i] == '{':
		eachMember(raw, func(_, val string) bool {
			clear(vals)
			fields(val, names, vals)
			return fn(val)
		})
	default:
		clear(vals)
		fn(raw)
	}
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

// setInputRaw is setInput for a raw input value, in one walk of it. What
// it takes goes through keep, and keys through name. Parse makes the
// command and the file valid UTF-8, as setInput does.
func setInputRaw(c *Call, raw string, keep, name func(string) string) {
	if i := skipSpace(raw, 0); i == len(raw) || raw[i] != '{' {
		return
	}
	type member struct{ key, raw string }
	var buf [8]member
	members := buf[:0]
	eachMember(raw, func(k, v string) bool {
		if strings.IndexByte(k, '\\') >= 0 {
			k = gjson.Parse(`"` + k + `"`).Str
		}
		members = append(members, member{k, v})
		return true
	})
	// first reads the first member named key, as gjson.Get does.
	first := func(key string) gjson.Result {
		for _, m := range members {
			if m.key == key {
				return value(m.raw)
			}
		}
		return gjson.Result{}
	}
	if cmd := first("command"); cmd.Type == gjson.String && c.Kind == Shell {
		c.Command = keep(cmd.String())
	}
	for _, k := range fileKeys {
		if v := first(k); v.Type == gjson.String && v.String() != "" {
			c.File = keep(v.String())
			break
		}
	}
	for _, m := range members {
		if (m.key == "command" && c.Command != "") || (c.File != "" && isFileKey(m.key)) {
			continue
		}
		var arg string
		switch v := value(m.raw); v.Type {
		case gjson.String:
			arg = argStringRaw(m.raw)
		case gjson.Number, gjson.True, gjson.False:
			arg = cut(validUTF8(v.String()), maxArg)
		default:
			continue
		}
		if c.Args == nil {
			c.Args = make(map[string]string)
		}
		c.Args[name(validUTF8(m.key))] = keep(arg)
	}
}

// argStringRaw returns cut(validUTF8(s), maxArg) for the text s of the raw
// JSON string raw, without decoding all of a long one. Of the text of a
// prefix of raw, only the last rune can differ from the whole text's: when
// it holds more than maxArg runes, it decides the cut. A rune takes at most
// 12 bytes of JSON (a surrogate pair).
func argStringRaw(raw string) string {
	body := raw[1 : len(raw)-1]
	if n := 12 * (maxArg + 1); len(body) > n {
		if s := validUTF8(unquoteBody(body[:escapeEnd(body, n)])); utf8.RuneCountInString(s) > maxArg {
			return cut(s, maxArg)
		}
	}
	return cut(validUTF8(unquoteBody(body)), maxArg)
}

// escapeEnd returns n, or the index after the escape of the string body
// that n falls in.
func escapeEnd(body string, n int) int {
	for i := 0; i < n; {
		j := strings.IndexByte(body[i:], '\\')
		if j < 0 || i+j >= n {
			break
		}
		i += j + 2
		if body[i-1] == 'u' {
			i += 4
		}
		if i >= n {
			return min(i, len(body))
		}
	}
	return n
}
