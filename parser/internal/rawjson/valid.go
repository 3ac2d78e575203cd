package rawjson

import (
	"math/bits"
	"strings"
)

// MaxDepth is how deep the validators let arrays and objects nest, as
// encoding/json does: a value nested deeper is invalid. The validators
// recurse once per level and Go cannot recover from a stack overflow, so
// every value walked passes through them first: gjson.Valid, which recurses
// without a limit, is not used, and the walkers that recurse take only
// what the validators accepted.
const MaxDepth = 10000

// Valid reports whether s is one valid JSON value, surrounded by white
// space or not, nested at most MaxDepth levels deep: the answer of
// gjson.ValidBytes, but for the depth, which gjson does not limit.
func Valid(s string) bool {
	i := skipSpace(s, 0)
	if i == len(s) {
		return false
	}
	end, ok := validValue(s, i, 0, picker{}, nil)
	return ok && skipSpace(s, end) == len(s)
}

// Prefix returns the length of the start of data that the walkers read as
// gjson reads the whole: the offset at which data stops being valid JSON,
// or the end of the first value when more data follows it. A document
// that is not valid is read up to there.
func Prefix(data string) int {
	i := skipSpace(data, 0)
	if i == len(data) {
		return i
	}
	end, _ := validValue(data, i, 0, picker{}, nil)
	// validValue fails at the start of a word, which may be cut short:
	// then data, with the word completed, is valid up to its end.
	rest := data[end:]
	for _, w := range []string{"true", "false", "null"} {
		if rest != "" && len(rest) < len(w) && strings.HasPrefix(w, rest) {
			whole := data[:end] + w
			if e, _ := validValue(whole, i, 0, picker{}, nil); e > end {
				return len(data)
			}
		}
	}
	return end
}

// A picker stores, as an object is validated, the values of the members
// its Fields name, and of the members of their objects its nested Fields
// name; the values are of no Doc yet. The zero picker picks nothing. It
// holds nothing that the validators keep, so that the Fields stay where
// their owner put them, on its stack.
type picker struct {
	f      *Fields
	nested []*Fields // the Fields of f.names.nested, in order
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(data string, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// skipIndent returns the index of the first byte at or after i that is not
// a space, counting spaces eight at a time: pretty-printed documents indent
// deep values by many.
func skipIndent(data string, i int) int {
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
// values it finds in the index of x, which may be nil, and, when the value
// is an object, picks its members with p.
func validValue(data string, i, depth int, p picker, x *Doc) (int, bool) {
	switch data[i] {
	case '{':
		if depth >= MaxDepth {
			return i, false
		}
		k := x.open(i)
		end, ok := validObject(data, i+1, depth+1, p, x)
		x.close(k, end)
		return end, ok
	case '[':
		if depth >= MaxDepth {
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
// its closing brace. It picks the object's members with p and records long
// values in x, which may be nil.
func validObject(data string, i, depth int, p picker, x *Doc) (int, bool) {
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
		if p.f != nil {
			f = p.f.want(data[key:keyEnd])
		}
		if f >= 0 && data[i] == '{' && depth < MaxDepth && p.f.names.nest[f] >= 0 {
			inner := picker{f: p.nested[p.f.names.nest[f]]}
			i, ok = validObject(data, i+1, depth+1, inner, x)
			inner.f.obj.raw = data[val:i]
		} else {
			i, ok = validValue(data, i, depth, picker{}, x)
		}
		if !ok {
			return i, false
		}
		if f >= 0 {
			p.f.raws[f] = data[val:i]
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
func validArray(data string, i, depth int, x *Doc) (int, bool) {
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
		if i, ok = validValue(data, i, depth, picker{}, x); !ok {
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
		if i == len(data) || !isDigit(data[i]) {
			return i, false
		}
	}
	if data[i] == '0' {
		i++
	} else {
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && data[i] == '.' {
		i++
		if i == len(data) || !isDigit(data[i]) {
			return i, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	if i < len(data) && (data[i] == 'e' || data[i] == 'E') {
		i++
		if i < len(data) && (data[i] == '+' || data[i] == '-') {
			i++
		}
		if i == len(data) || !isDigit(data[i]) {
			return i, false
		}
		for i < len(data) && isDigit(data[i]) {
			i++
		}
	}
	return i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
