package rawjson

import (
	"strings"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"
)

// unquote returns the text of a JSON string as gjson reads it: the escapes
// decoded, a surrogate pair as one rune, a lone surrogate as U+FFFD. Unlike
// gjson it copies the runs between escapes whole. A string that is not
// closed gives what follows its quote, as gjson gives it.
func unquote(raw string) string {
	n := len(raw)
	if n < 2 || raw[n-1] != '"' || !escapeStart(raw, n-1) {
		return raw[1:]
	}
	return unquoteBody(raw[1 : n-1])
}

// unquoteBody is unquote of the text between a string's quotes. Where an
// escape is cut short or unknown, which valid JSON never has, it stops, as
// gjson does.
func unquoteBody(body string) string {
	i := strings.IndexByte(body, '\\')
	if i < 0 {
		return body
	}
	b := make([]byte, 0, len(body))
	for i >= 0 {
		b = append(b, body[:i]...)
		if i+1 >= len(body) {
			return bytesString(b)
		}
		c := body[i+1]
		body = body[i+2:]
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
		case '"', '\\', '/':
			b = append(b, c)
		case 'u':
			if len(body) < 4 {
				return bytesString(b)
			}
			var r rune
			r, body = escapedRune(body)
			b = utf8.AppendRune(b, r)
		default:
			return bytesString(b)
		}
		i = strings.IndexByte(body, '\\')
	}
	b = append(b, body...)
	return bytesString(b)
}

// escapedRune reads the rune of a \u escape whose four hexadecimal digits
// body starts with, and of the escape of the low half of a surrogate pair
// after them, and returns it with the rest of body. A lone surrogate is
// returned as it is.
func escapedRune(body string) (rune, string) {
	r := hex4(body)
	body = body[4:]
	if 0xD800 <= r && r < 0xDC00 && len(body) >= 6 && body[0] == '\\' && body[1] == 'u' {
		if r2 := hex4(body[2:]); 0xDC00 <= r2 && r2 < 0xE000 {
			r = utf16.DecodeRune(r, r2)
			body = body[6:]
		}
	}
	return r, body
}

// bytesString returns the bytes of b as a string, without copying them.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// hex4 reads four hexadecimal digits; 0 when they are not, as gjson reads
// them.
func hex4(s string) rune {
	var r rune
	for i := range 4 {
		c := s[i]
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		default:
			return 0
		}
		r = r<<4 | rune(c)
	}
	return r
}

// TextLen returns the length of the text of v, a valid string, without
// decoding it: len(v.Text()).
func (v Value) TextLen() int {
	body := v.raw[1 : len(v.raw)-1]
	n := 0
	for {
		i := strings.IndexByte(body, '\\')
		if i < 0 {
			return n + len(body)
		}
		n += i
		c := body[i+1]
		body = body[i+2:]
		if c != 'u' {
			n++
			continue
		}
		var r rune
		r, body = escapedRune(body)
		if utf16.IsSurrogate(r) {
			r = utf8.RuneError
		}
		n += utf8.RuneLen(r)
	}
}

// TextHead returns the text of the start of v, a valid string, decoded
// from at most n bytes of its JSON, less any escape that those bytes cut:
// a prefix of v.Text(), which may end in the middle of a UTF-8 sequence
// that v's JSON holds as it is.
func (v Value) TextHead(n int) string {
	body := v.raw[1 : len(v.raw)-1]
	return unquoteBody(body[:escapeCut(body, min(len(body), n))])
}

// TextTail returns the text of the end of v, a valid string, decoded from
// at most n bytes of its JSON and any escape that those bytes cut: a
// suffix of v.Text(), which may start in the middle of a UTF-8 sequence.
func (v Value) TextTail(n int) string {
	body := v.raw[1 : len(v.raw)-1]
	return unquoteBody(body[escapeCut(body, max(0, len(body)-n)):])
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
