package redact

import (
	"strings"
	"unicode/utf8"
)

// Byte classes, as bits in class.
const (
	cLower  = 1 << iota // a-z
	cUpper              // A-Z
	cDigit              // 0-9
	cB64URL             // [A-Za-z0-9_-]
	cB64                // [A-Za-z0-9+/=]
	cIdent              // [A-Za-z0-9_.-]: names of variables, flags, keys and users
	cBearer             // [A-Za-z0-9._~+/=-]: RFC 6750 b64token
	cHexIP              // [0-9A-Fa-f:.]: what an IPv6 address is made of
	cStop               // ends an unquoted value: space, quotes, , ; & | ( ) [ ] { } < > \
	cUWord              // [A-Za-z0-9_]
	cEq                 // =
	cHex                // [0-9a-fA-F]
)

var class = buildClass()

func buildClass() (class [256]uint16) {
	for c := 0; c < 256; c++ {
		b := byte(c)
		var m uint16
		switch {
		case 'a' <= b && b <= 'z':
			m = cLower
		case 'A' <= b && b <= 'Z':
			m = cUpper
		case '0' <= b && b <= '9':
			m = cDigit
		}
		if m != 0 || b == '_' || b == '-' {
			m |= cB64URL
		}
		if m&(cLower|cUpper|cDigit) != 0 || b == '_' {
			m |= cUWord
		}
		if b == '=' {
			m |= cEq
		}
		if m&(cLower|cUpper|cDigit) != 0 || b == '+' || b == '/' || b == '=' {
			m |= cB64
		}
		if m&cB64URL != 0 || b == '.' {
			m |= cIdent
		}
		if m&cB64URL != 0 || strings.IndexByte("._~+/=", b) >= 0 {
			m |= cBearer
		}
		if '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F' || b == ':' || b == '.' {
			m |= cHexIP
		}
		if b <= ' ' || strings.IndexByte("\"'`,;&|()[]{}<>\\", b) >= 0 {
			m |= cStop
		}
		if '0' <= b && b <= '9' || 'a' <= b && b <= 'f' || 'A' <= b && b <= 'F' {
			m |= cHex
		}
		class[c] = m
	}
	return class
}

func is(c byte, m uint16) bool { return class[c]&m != 0 }

func isLetter(c byte) bool { return is(c, cLower|cUpper) }
func isDigit(c byte) bool  { return '0' <= c && c <= '9' }
func isAlnum(c byte) bool  { return is(c, cLower|cUpper|cDigit) }
func isSpace(c byte) bool  { return c == ' ' || c == '\t' }

// run returns the end of the run of bytes of class m that starts at i,
// stopping after max bytes.
func run(s string, i int, m uint16, max int) int {
	j := i
	for j < len(s) && j-i < max && is(s[j], m) {
		j++
	}
	return j
}

// before reports whether the byte before i is not of class m, that is
// whether a token of class m can start at i. A ']' counts as part of a
// word, and so does a '[' in after: they are how masks end and start, and
// masking must not make a token stand free that was glued to its
// neighbour before (String must be idempotent).
func before(s string, i int, m uint16) bool {
	return i == 0 || !is(s[i-1], m) && s[i-1] != ']'
}

// after reports whether the byte at i is not of class m, that is whether a
// token of class m can end at i.
func after(s string, i int, m uint16) bool {
	return i >= len(s) || !is(s[i], m) && s[i] != '['
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case; prefix is lower
// case.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// classes returns the bits of cLower, cUpper and cDigit found in v, and
// the number of distinct bytes in v.
func classes(v string) (m uint16, distinct int) {
	var seen [256]bool
	for i := 0; i < len(v); i++ {
		c := v[i]
		m |= class[c] & (cLower | cUpper | cDigit)
		if !seen[c] {
			seen[c] = true
			distinct++
		}
	}
	return m, distinct
}

func count(m uint16) int {
	n := 0
	for ; m != 0; m &= m - 1 {
		n++
	}
	return n
}

// filler reports whether a token body of a known format is a placeholder
// rather than a key: it repeats too few bytes ("xxxx…", "0000…"), holds a
// run of x or X, or says EXAMPLE, as AWS's documentation keys do. Real keys
// are random and long, so these tests do not miss them in practice.
func filler(body string) bool {
	_, distinct := classes(body)
	return distinct < 4 ||
		strings.Contains(body, "xxxx") || strings.Contains(body, "XXXX") ||
		strings.Contains(body, "EXAMPLE")
}

// randomish reports whether v looks like a generated token rather than a
// word, a name or a number: at least 16 bytes, two of upper case, lower
// case and digits, and 8 or more distinct bytes.
func randomish(v string) bool {
	if len(v) < 16 {
		return false
	}
	m, distinct := classes(v)
	return count(m) >= 2 && distinct >= 8
}

// placeholder reports whether a free-form value (a password, a bearer
// token) is a stand-in rather than a secret: empty, a reference to an
// environment variable or a template ($VAR, ${VAR}, %VAR%, {{ .x }},
// <your-key>), an ellipsis, stars, a value that holds an earlier mask, or a
// word such as "changeme" or "null".
func placeholder(v string) bool {
	if v == "" {
		return true
	}
	switch v[0] {
	case '$', '%', '<', '{', '[', '*', '(':
		return true
	}
	if strings.Contains(v, "...") || strings.Contains(v, "…") ||
		strings.Contains(v, "${") || strings.Contains(v, "{{") || strings.Contains(v, "$(") {
		return true
	}
	if strings.Contains(v, "[secret:") || strings.Contains(v, "[host:") || strings.Contains(v, "[user:") {
		return true // masked already, in part or whole
	}
	var buf [64]byte
	lower := buf[:0]
	for i := 0; i < len(v) && i < len(buf); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		lower = append(lower, c)
	}
	l := string(lower)
	for _, w := range placeholderParts {
		if strings.Contains(l, w) {
			return true
		}
	}
	if len(v) <= len(buf) {
		for _, w := range placeholderWords {
			if l == w {
				return true
			}
		}
	}
	_, distinct := classes(v)
	return distinct < 3 && len(v) > 2
}

// placeholderParts are substrings that mark a value as a stand-in.
var placeholderParts = []string{
	"xxxx", "****", "your", "example", "changeme", "change_me", "placeholder",
	"redacted", "dummy", "replace", "secret", "fake", "sample", "<", "•",
}

// placeholderWords are whole values that are not secrets: the name of the
// thing itself, or a literal of some language.
var placeholderWords = []string{
	"password", "passwd", "pass", "pwd", "secret", "token", "key", "apikey", "api_key",
	"none", "null", "nil", "true", "false", "undefined", "required", "optional",
	"string", "str", "hidden", "masked", "empty", "env", "value", "test", "prompt",
}

// backToRune moves end back to the start of a UTF-8 sequence when a length
// limit cut one, so a mask never splits a character.
func backToRune(s string, start, end int) int {
	for end > start && end < len(s) && !utf8.RuneStart(s[end]) {
		end--
	}
	return end
}
