package rawjson

import "strings"

// The walkers below find the members and elements of values: valid JSON,
// or the start of it (see Prefix), read as gjson reads it. A string that is
// not closed ends the walk; an object or array that is not closed is read
// as far as it goes. On other text they return what they can without
// failing. The walkers are methods of the *Doc a value was read from, whose
// index tells where long values end; a nil *Doc knows nothing, and they
// scan.

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

// endValue returns the index after the value that starts at s[i], and
// false when there is none or it is a string that s ends in. An object or
// array that s ends in ends with s.
func (d *Doc) endValue(s string, i int) (int, bool) {
	if i >= len(s) {
		return i, false
	}
	if end, ok := d.end(s, i); ok {
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
			case '\n':
				i = skipIndent(s, i+1)
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

func isDelim(c byte) bool {
	return c == ',' || c == '}' || c == ']' || c == ' ' || c == '\t' || c == '\n' || c == '\r'
}

// eachMember calls fn with the raw key (between its quotes) and the raw
// value of each member of the object that starts at s[i], in order, until
// fn returns false, and returns the index after the object. It does
// nothing when s[i] opens no object.
func (d *Doc) eachMember(s string, i int, fn func(key, val string) bool) int {
	if i >= len(s) || s[i] != '{' {
		return i
	}
	for i = skipBlank(s, i+1); i < len(s) && s[i] == '"'; {
		key, at, ok := member(s, i)
		if !ok {
			return at
		}
		end, ok := d.endValue(s, at)
		if !ok || !fn(key, s[at:end]) {
			return end
		}
		if i, ok = next(s, end); !ok {
			break
		}
	}
	if i < len(s) && s[i] == '}' {
		return i + 1
	}
	return i
}

// member reads the key of the member that starts at s[i], a quote, and
// the colon after it: it returns the raw key (between its quotes) and the
// index of the member's value; or, when s ends or holds something else
// before the value, false and the index where it does.
func member(s string, i int) (key string, at int, ok bool) {
	end, ok := endString(s, i)
	if !ok {
		return "", end, false
	}
	key = s[i+1 : end-1]
	i = skipBlank(s, end)
	if i >= len(s) || s[i] != ':' {
		return "", i, false
	}
	return key, skipBlank(s, i+1), true
}

// next returns the index of what follows the comma after a value that ends
// at s[end], and false, with the index of what is there, when no comma
// follows it.
func next(s string, end int) (int, bool) {
	i := skipBlank(s, end)
	if i >= len(s) || s[i] != ',' {
		return i, false
	}
	return skipBlank(s, i+1), true
}

// eachElement calls fn with the raw value of each element of the array
// that starts at s[i], in order, until fn returns false. It does nothing
// when s[i] opens no array.
func (d *Doc) eachElement(s string, i int, fn func(val string) bool) {
	if i >= len(s) || s[i] != '[' {
		return
	}
	for i = skipBlank(s, i+1); i < len(s) && s[i] != ']'; {
		end, ok := d.endValue(s, i)
		if !ok || !fn(s[i:end]) {
			return
		}
		if i, ok = next(s, end); !ok {
			return
		}
	}
}

// keyIs reports whether a raw key names name, reading its escapes as
// gjson does.
func keyIs(raw, name string) bool {
	if strings.IndexByte(raw, '\\') < 0 {
		return raw == name
	}
	return unquoteBody(raw) == name
}

// dig returns the raw value at a path in v, as gjson.Get(v, "a.b…") finds
// it: a member named path[0] that does not hold the rest of the path is
// passed over for a later one so named, and in an array a path element of
// digits is an index. It goes down into a value without first finding
// where the value ends.
func (d *Doc) dig(v string, path []string) string {
	if len(path) == 0 {
		return v
	}
	i := skipBlank(v, 0)
	switch {
	case i < len(v) && v[i] == '[':
		n, ok := index(path[0])
		if !ok {
			return ""
		}
		var out string
		d.eachElement(v, i, func(val string) bool {
			if n > 0 {
				n--
				return true
			}
			out = d.dig(val, path[1:])
			return false
		})
		return out
	case i < len(v) && v[i] == '{':
		for i = skipBlank(v, i+1); i < len(v) && v[i] == '"'; {
			key, at, ok := member(v, i)
			if !ok {
				return ""
			}
			named := keyIs(key, path[0])
			if named && len(path) > 1 {
				if out := d.dig(v[at:], path[1:]); out != "" {
					return out
				}
			}
			end, ok := d.endValue(v, at)
			if !ok {
				return ""
			}
			if named && len(path) == 1 {
				return v[at:end]
			}
			if i, ok = next(v, end); !ok {
				return ""
			}
		}
	}
	return ""
}

// index reads a path element that is an array index.
func index(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
