package redact

import (
	"slices"
	"strings"
	"sync"
	"unicode/utf8"
)

// This file holds what a Redactor remembers: the secrets it has masked, so
// that the same value is masked wherever else it appears, found by no rule
// there (a password echoed by a traceback, renamed in a diff, typed again
// in another call).

// minKnown is the length of the shortest secret remembered: a shorter
// value would be masked wherever its few bytes happen to appear.
const minKnown = 6

// maxKnown bounds how many secrets one memory holds; past it, nothing more
// is learned.
const maxKnown = 4096

// maxSameHead bounds how many secrets one memory holds that start with the
// same 4 bytes, so that looking for them where text starts so stays cheap.
const maxSameHead = 8

// A memory holds the secrets a Redactor masked, and the kind each was
// found as. It is safe for concurrent use.
type memory struct {
	mu    sync.Mutex
	kinds map[string]kind     // the values remembered
	heads map[uint32][]string // the values by their first 4 bytes, longest first
	pairs *pairTable          // the first two bytes of the values; nil while empty
}

// memorable reports whether the masked value v, found as k, is worth
// remembering: long enough, on one line, not starting or ending with
// white space (a mask's edges may move), and not a word: it holds a
// letter and a byte that is not one, as generated tokens and most
// passwords do, and words and numbers ("postgres", "123456") do not.
func memorable(v string, k kind) bool {
	if len(v) < minKnown || len(v) > maxValue || k == kindPrivateKey || k >= kindHost ||
		strings.ContainsAny(v, "\n\r") || strings.TrimSpace(v) != v || placeholder(v) {
		return false
	}
	letter, other := false, false
	for i := 0; i < len(v); i++ {
		if isLetter(v[i]) {
			letter = true
		} else if !isSpace(v[i]) {
			other = true
		}
	}
	return letter && other
}

func head4(s string) uint32 {
	return uint32(s[0]) | uint32(s[1])<<8 | uint32(s[2])<<16 | uint32(s[3])<<24
}

// learn remembers the values of s that found masks, but for those that run
// into a cut (their ends are not known) and those that are not UTF-8 (a
// value ending inside a character would be found inside another).
func (m *memory) learn(s string, found []span) {
	for _, f := range found {
		if v := s[f.start:f.end]; !cutAt(s, f.end) && utf8.ValidString(v) && memorable(v, f.kind) {
			m.add(strings.Clone(v), f.kind) // not a slice of a long text
		}
	}
}

// add remembers v, found as k. The caller holds m.mu.
func (m *memory) add(v string, k kind) {
	h := head4(v)
	if _, ok := m.kinds[v]; ok || len(m.kinds) >= maxKnown || len(m.heads[h]) >= maxSameHead {
		return
	}
	if m.kinds == nil {
		m.kinds = make(map[string]kind)
		m.heads = make(map[uint32][]string)
		m.pairs = new(pairTable)
	}
	m.kinds[v] = k
	list := append(m.heads[h], v)
	slices.SortFunc(list, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b)
	})
	m.heads[h] = list
	m.pairs.set(v[0], v[1])
}

// values returns the values m holds and their kinds, in order.
func (m *memory) values() ([]string, map[string]kind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	vs := make([]string, 0, len(m.kinds))
	kinds := make(map[string]kind, len(m.kinds))
	for v, k := range m.kinds {
		vs = append(vs, v)
		kinds[v] = k
	}
	slices.Sort(vs)
	return vs, kinds
}

// A cutKnown is the start of a remembered value cut short in the text: it
// is masked as the whole value is.
type cutKnown struct {
	start int
	value string
}

// find appends to found the spans of s that hold a remembered value, or its
// start where a cut ends it, and returns the starts found so. A value
// counts only as a word of its own: not glued to letters, digits or _ at an
// end where it has one of them itself ("hunter2x" is not found in
// "hunter2xyz"). Masks are passed over. The caller holds m.mu.
func (m *memory) find(s string, found []span, cuts []cutKnown) ([]span, []cutKnown) {
	if m.pairs == nil {
		return found, cuts
	}
	t := m.pairs
	for i := 0; i+4 <= len(s); i++ {
		if s[i] == '[' {
			if e := maskEnd(s, i); e > 0 {
				i = e - 1
				continue
			}
		}
		v := uint(s[i])<<8 | uint(s[i+1])
		if t[v>>6]&(1<<(v&63)) == 0 || i > 0 && is(s[i-1], cUWord) && is(s[i], cUWord) {
			continue
		}
		for _, val := range m.heads[head4(s[i:])] {
			if strings.HasPrefix(s[i:], val) {
				if e := i + len(val); e == len(s) || utf8.RuneStart(s[e]) && !(is(s[e], cUWord) && is(val[len(val)-1], cUWord)) {
					found = append(found, span{i, e, m.kinds[val]})
					i = e - 1
					break
				}
				continue
			}
			// A start of val, cut short.
			n := 4
			for i+n < len(s) && n < len(val) && s[i+n] == val[n] {
				n++
			}
			if cutAt(s, i+n) {
				found = append(found, span{i, i + n, m.kinds[val]})
				cuts = append(cuts, cutKnown{i, val})
				i += n - 1
				break
			}
		}
	}
	return found, cuts
}

// maskEnd returns the index after the mask that starts at i, or 0 if no
// mask starts there.
func maskEnd(s string, i int) int {
	rest := s[i:]
	if !strings.HasPrefix(rest, "[secret:") && !strings.HasPrefix(rest, "[host:") && !strings.HasPrefix(rest, "[user:") {
		return 0
	}
	if j := strings.IndexByte(rest[:min(len(rest), 48)], ']'); j > 0 {
		return i + j + 1
	}
	return 0
}
