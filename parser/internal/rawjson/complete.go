package rawjson

import (
	"slices"
	"strings"
	"unicode/utf8"
)

// A Cut says where Complete closed an object cut short.
type Cut struct {
	// At is the length of the start of the object that the text keeps.
	At int
	// Key names the member whose string value the cut fell in; "" when
	// the cut fell elsewhere (the member or element it fell in is
	// dropped) or in a string of an array.
	Key string
}

// Complete closes s, the start of a JSON object cut short, so that it is
// valid JSON: the string value it was cut in ends where it was cut (less
// an escape or a UTF-8 sequence cut in two), a member or element cut
// before its value was whole is dropped, and the arrays and objects open
// there are closed. It returns false when s is not the start of an object
// or holds a whole one.
func Complete(s string) (string, Cut, bool) {
	i := skipSpace(s, 0)
	if i == len(s) || s[i] != '{' {
		return "", Cut{}, false
	}
	const (
		value      = iota // after ':', or ',' in an array
		valueOrEnd        // after '['
		key               // after ',' in an object
		keyOrEnd          // after '{'
		colon
		commaOrEnd
	)
	var closers []byte // of the arrays and objects open, innermost last
	safe := -1         // the end of the last whole value, or of the last opening
	name := ""         // the name of the member whose value is next
	want := value
	for i = skipSpace(s, i); i < len(s); i = skipSpace(s, i) {
		c := s[i]
		switch want {
		case key, keyOrEnd:
			if c == '}' && want == keyOrEnd {
				break // closed below
			}
			if c != '"' {
				return "", Cut{}, false
			}
			end, ok := validString(s, i+1)
			if !ok && end < len(s) {
				return "", Cut{}, false
			}
			if ok {
				name = unquote(s[i:end])
			}
			i, want = end, colon
			continue
		case colon:
			if c != ':' {
				return "", Cut{}, false
			}
			i, want = i+1, value
			continue
		case commaOrEnd:
			if c == ',' {
				i, want = i+1, value
				if closers[len(closers)-1] == '}' {
					want = key
				}
				continue
			}
		case value, valueOrEnd:
			switch {
			case c == ']' && want == valueOrEnd:
				// closed below
			case c == '{' || c == '[':
				if len(closers) >= MaxDepth {
					return "", Cut{}, false
				}
				want = keyOrEnd
				if c == '[' {
					want = valueOrEnd
				}
				closers = append(closers, c+2) // '}' and ']' follow '{' and '[' by two
				i++
				safe = i
				continue
			case c == '"':
				end, ok := validString(s, i+1)
				if !ok {
					if end < len(s) {
						return "", Cut{}, false
					}
					kept := s[:i+1] + cutText(s[i+1:])
					cut := Cut{At: len(kept)}
					if closers[len(closers)-1] == '}' {
						cut.Key = name
					}
					return kept + `"` + closing(closers), cut, true
				}
				i, want, safe = end, commaOrEnd, end
				continue
			default:
				end, ok := validValue(s, i, len(closers), picker{}, nil)
				switch {
				case ok && end < len(s):
					i, want, safe = end, commaOrEnd, end
					continue
				case ok || wordStart(s[i:]) || strings.Trim(s[i:], "0123456789+-.eE") == "":
					i = len(s) // a number or a word that may be cut short
					continue
				}
				return "", Cut{}, false
			}
		}
		// A closer, where one may come.
		if c != closers[len(closers)-1] {
			return "", Cut{}, false
		}
		closers = closers[:len(closers)-1]
		i++
		if len(closers) == 0 {
			return "", Cut{}, false // whole
		}
		want, safe = commaOrEnd, i
	}
	if safe < 0 {
		return "", Cut{}, false
	}
	return s[:safe] + closing(closers), Cut{At: safe}, true
}

// closing returns the closers of the open arrays and objects, innermost
// first.
func closing(closers []byte) string {
	b := slices.Clone(closers)
	slices.Reverse(b)
	return string(b)
}

// wordStart reports whether s is true, false or null cut short.
func wordStart(s string) bool {
	for _, w := range []string{"true", "false", "null"} {
		if len(s) < len(w) && strings.HasPrefix(w, s) {
			return true
		}
	}
	return false
}

// cutText returns body, the text of a JSON string cut short, without an
// escape or a UTF-8 sequence that the cut split.
func cutText(body string) string {
	p := len(body)
	for e := p - 1; e >= max(0, p-6); e-- {
		if body[e] == '\\' {
			n := 2
			if e+1 < p && body[e+1] == 'u' {
				n = 6
			}
			if escapeStart(body, e) && e+n > p {
				p = e
			}
			break
		}
	}
	body = body[:p]
	for k := 1; k <= min(utf8.UTFMax, len(body)); k++ {
		if utf8.RuneStart(body[len(body)-k]) {
			if !utf8.FullRuneInString(body[len(body)-k:]) {
				body = body[:len(body)-k]
			}
			break
		}
	}
	return body
}
