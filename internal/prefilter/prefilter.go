// Package prefilter runs regular expressions behind a cheap test: from an
// expression's syntax it finds a few literal strings, its needles, one of
// which every match holds, and a text that holds none of them is ruled out
// without running the expression. Failure signatures and benchmark readers
// compile their expressions here; anything else that runs many expressions
// over large texts (redaction) can too.
//
// The differential tests hold every expression compiled in the program to
// what regexp finds, on the test cases' outputs and under fuzzing.
package prefilter

import (
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Most outputs hold none of the failure signatures, and a regular
// expression with no literal prefix (every `(?m)^…` one) costs tens of
// nanoseconds per byte to rule out. A Regexp is a regular expression with
// a cheap test in front: it knows a few literal strings, its needles, one of
// which every match holds, and a text holding none of them is not matched
// at all. The needles are found in the expression's syntax, so they cannot
// drift from it.
//
// When no match can span a newline before its needle, a match starts at or
// after the start of the line that holds the first needle in the text, and
// the expression is run from there: `(?m)^.*(?:A|B).*$` reads one line
// instead of the whole output. When no match can hold a newline at all,
// the expression is run on the lines that hold a needle, one at a time:
// a line that holds a needle but no match (the "failed" of "0 failed")
// does not have it read the rest of the output.

// A Regexp is a regular expression with a literal pre-filter. Its methods
// return what the same methods of regexp.Regexp return. It is compiled
// when first used, not when made: a program holds hundreds of them, and a
// run that never reads an output (retrace guard, retrace --help) should not
// wait for them all. It is safe for concurrent use.
type Regexp struct {
	expr string
	min  int // the shortest needle worth a search
	once sync.Once

	re      *regexp.Regexp
	needles []string // every match holds one; nil when the expression has no useful ones
	rare    []int    // the index in each needle of its rarest byte, which searches look for
	fold    bool     // needles are in lower case and match in any case
	seek    bool     // matches start at or after the line of the first needle
	lines   bool     // no match holds a newline: each is in a line of a needle, read alone
	// at, when not nil, is the expression anchored at the start of its
	// text: every match starts a line that holds a needle, and the first
	// is found by trying at those lines alone (see findAt).
	at *regexp.Regexp
	// words, when not nil, are the strings a line holds exactly when it
	// is a match, as "A" and "B" of `(?m)^.*(?:A|B).*$`: on the lines of
	// the needles, they are looked for instead of running the expression.
	words     []string
	wordsFold bool // words are in lower case and match in any case
}

// all lists every Regexp made, for the tests that check them against
// their expressions.
var all []*Regexp

// minNeedle is the length below which needles rule out too little to be
// worth a search.
const minNeedle = 3

// maxNeedles bounds the needles searched for one expression.
const maxNeedles = 24

// MustCompile compiles expr, as regexp.MustCompile does, with its
// pre-filter: for expressions run on whole outputs.
func MustCompile(expr string) *Regexp { return mustCompile(expr, minNeedle) }

// MustCompileLine is MustCompile for expressions run on one line at a
// time, where searching for even one byte costs less than the expression:
// needles of one byte count.
func MustCompileLine(expr string) *Regexp { return mustCompile(expr, 1) }

// mustCompile is MustCompile with needles of min bytes or more. The
// expression is compiled when first used; a test compiles them all.
func mustCompile(expr string, min int) *Regexp {
	p := &Regexp{expr: expr, min: min}
	all = append(all, p)
	return p
}

// ready compiles the expression and finds its needles, once.
func (p *Regexp) ready() {
	p.once.Do(p.compile)
}

func (p *Regexp) compile() {
	expr, min := p.expr, p.min
	p.re = regexp.MustCompile(expr)
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err) // MustCompile accepted it
	}
	re = re.Simplify()
	// Past four bytes a needle rules out nearly every text, and each more
	// needle is one more search. (On lines too: preferring one short
	// needle to several of four bytes made benchmark reading slower.)
	const long = 4
	if l, ok := literals(re, long); ok && len(l.set) <= maxNeedles && minLen(l.set) >= min {
		p.needles, p.fold = minimal(l.set), l.fold
		for _, n := range p.needles {
			p.rare = append(p.rare, rarest(n, p.fold))
		}
		p.seek = l.local && !hasOp(re, syntax.OpBeginText)
		// Read alone, a line ends where the text does: an expression
		// anchored at the text's ends would match otherwise.
		p.lines = p.seek && !canNewline(re) && !hasOp(re, syntax.OpEndText)
		if p.seek && !p.lines && startsLine(re) {
			p.at = regexp.MustCompile(`\A(?:` + expr + `)`)
		}
	}
	if set, fold, ok := wholeLine(re); ok && p.lines && p.re.NumSubexp() == 0 {
		p.words, p.wordsFold = minimal(set), fold
	}
}

// holdsWord reports whether line holds one of p's words.
func (p *Regexp) holdsWord(line string) bool {
	for _, w := range p.words {
		if p.wordsFold && indexFold(line, w, 0) >= 0 || !p.wordsFold && strings.Contains(line, w) { // 0: any byte of w will do
			return true
		}
	}
	return false
}

// wholeLine returns, when re (simplified) matches exactly the lines that
// hold one of a few strings, those strings (in lower case, to be found in
// any case, when fold is set): re is `^.*X.*$` in multi-line mode, and X
// matches those strings and nothing else.
func wholeLine(re *syntax.Regexp) (set []string, fold, ok bool) {
	n := len(re.Sub)
	anyRun := func(r *syntax.Regexp) bool {
		return r.Op == syntax.OpStar && r.Sub[0].Op == syntax.OpAnyCharNotNL
	}
	if re.Op != syntax.OpConcat || n < 5 || re.Sub[0].Op != syntax.OpBeginLine || !anyRun(re.Sub[1]) ||
		!anyRun(re.Sub[n-2]) || re.Sub[n-1].Op != syntax.OpEndLine {
		return nil, false, false
	}
	set, fold, ok = language(&syntax.Regexp{Op: syntax.OpConcat, Sub: re.Sub[2 : n-2]})
	if !ok || slices.Contains(set, "") {
		return nil, false, false
	}
	return set, fold, true
}

// language returns the strings re matches and nothing else, when re is
// made of literal strings (concatenated, alternated, optional, or in a
// class of a few runes) and they are few. fold says that the strings are in lower
// case and match in any case, which only ASCII letters may.
func language(re *syntax.Regexp) (set []string, fold, ok bool) {
	switch re.Op {
	case syntax.OpEmptyMatch:
		return []string{""}, false, true
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 && strings.ToLower(s) != strings.ToUpper(s) {
			if !isASCII(s) {
				return nil, false, false
			}
			return []string{strings.ToLower(s)}, true, true
		}
		return []string{s}, false, true
	case syntax.OpCharClass:
		l, ok := literals(re, 0)
		return l.set, false, ok
	case syntax.OpCapture:
		return language(re.Sub[0])
	case syntax.OpQuest:
		set, fold, ok = language(re.Sub[0])
		return append(set, ""), fold, ok && len(set) < maxNeedles
	case syntax.OpAlternate, syntax.OpConcat:
		set = []string{""}
		if re.Op == syntax.OpAlternate {
			set = nil
		}
		cased := false // a part matches letters in one case only
		for _, sub := range re.Sub {
			x, f, ok := language(sub)
			if !ok {
				return nil, false, false
			}
			fold = fold || f
			cased = cased || !f && slices.ContainsFunc(x, func(s string) bool { return strings.ToLower(s) != strings.ToUpper(s) })
			if re.Op == syntax.OpAlternate {
				set = append(set, x...)
			} else {
				set = cross(set, x)
			}
			if len(set) > maxNeedles {
				return nil, false, false
			}
		}
		if fold && cased {
			return nil, false, false // lowered, the cased part would match in any case
		}
		if fold {
			for i, s := range set {
				set[i] = strings.ToLower(s)
			}
		}
		slices.Sort(set)
		return slices.Compact(set), fold, true
	}
	return nil, false, false
}

// Regexp returns the expression as the regexp package compiles it.
func (p *Regexp) Regexp() *regexp.Regexp {
	p.ready()
	return p.re
}

// String returns the source text of the expression.
func (p *Regexp) String() string { return p.expr }

// SubexpNames returns the names of the expression's groups, as
// regexp.Regexp's method does.
func (p *Regexp) SubexpNames() []string { return p.Regexp().SubexpNames() }

// Split slices s into the substrings between the matches, as
// regexp.Regexp's method does.
func (p *Regexp) Split(s string, n int) []string { return p.Regexp().Split(s, n) }

// ReplaceAllString replaces the matches in src with repl, as
// regexp.Regexp's method does.
func (p *Regexp) ReplaceAllString(src, repl string) string {
	return p.Regexp().ReplaceAllString(src, repl)
}

// minimal drops the needles that hold another: where they are, it is.
func minimal(set []string) []string {
	var out []string
	for _, s := range set {
		// t stands for s when s holds it on its first line: a match
		// holding s then holds t on the line s starts on, as seek needs.
		if !slices.ContainsFunc(set, func(t string) bool {
			i := strings.Index(s, t)
			return t != s && i >= 0 && strings.IndexByte(s[:i], '\n') < 0
		}) {
			out = append(out, s)
		}
	}
	return out
}

// A lits is what the syntax of an expression says of its matches.
type lits struct {
	set   []string // every match holds one of these
	fold  bool     // set is in lower case, to be found in any case
	local bool     // no newline comes between a match's start and its needle
}

// literals returns the needles of re: literal strings one of which every
// match of re holds; ok is false when it finds none.
// Needles of long bytes or more count as long enough: past that, fewer
// needles are better.
func literals(re *syntax.Regexp, long int) (l lits, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if re.Flags&syntax.FoldCase != 0 && strings.ToLower(s) != strings.ToUpper(s) {
			if !isASCII(s) {
				return lits{}, false // non-ASCII letters fold in ways the search does not follow
			}
			return lits{set: []string{strings.ToLower(s)}, fold: true, local: true}, true
		}
		return lits{set: []string{s}, local: true}, true
	case syntax.OpCharClass:
		// A few runes, as an alternation of them becomes: each is a
		// needle.
		var set []string
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1]-re.Rune[i] >= maxNeedles {
				return lits{}, false
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set = append(set, string(r))
			}
		}
		if len(set) == 0 || len(set) > maxNeedles {
			return lits{}, false
		}
		return lits{set: set, local: true}, true
	case syntax.OpCapture, syntax.OpPlus:
		return literals(re.Sub[0], long)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return literals(re.Sub[0], long)
		}
	case syntax.OpAlternate:
		out := lits{local: true}
		for _, sub := range re.Sub {
			l, ok := literals(sub, long)
			if !ok {
				return lits{}, false
			}
			out.set = append(out.set, l.set...)
			out.fold = out.fold || l.fold
			out.local = out.local && l.local
		}
		if out.fold {
			for i, s := range out.set {
				if !isASCII(s) && strings.ToLower(s) != s {
					return lits{}, false // lowered, it would not be found as it is
				}
				out.set[i] = strings.ToLower(s) // found exactly, found in any case
			}
		}
		slices.Sort(out.set)
		out.set = slices.Compact(out.set)
		return out, true
	case syntax.OpConcat:
		best, bestOK := lits{}, false
		consider := func(l lits) {
			if !bestOK || better(l, best, long) {
				best, bestOK = l, true
			}
		}
		nl := false // a child before this one may match a newline
		for i, sub := range re.Sub {
			if l, ok := literals(sub, long); ok {
				l.local = l.local && !nl
				consider(l)
			}
			// A run of children that each match one of a few
			// strings matches one of their concatenations: longer
			// needles, as "Server " for `[Ss]erver `.
			run, ok := exact(sub, long)
			for j := i + 1; ok && j < len(re.Sub); j++ {
				next, ok2 := exact(re.Sub[j], long)
				if !ok2 || len(run)*len(next) > maxNeedles {
					break
				}
				run = cross(run, next)
				if !slices.Contains(run, "") {
					consider(lits{set: run, local: !nl})
				}
			}
			nl = nl || canNewline(sub)
		}
		return best, bestOK
	}
	return lits{}, false
}

// exact returns every string a match of re can be, when they are few:
// re matches one of them and nothing else (assertions match ""). ok is
// false otherwise.
func exact(re *syntax.Regexp, long int) (set []string, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase == 0 {
			return []string{string(re.Rune)}, true
		}
		// Each rune stands for its case-folding orbit: "k" for k, K
		// and the Kelvin sign.
		set = []string{""}
		for _, r := range re.Rune {
			var orbit []string
			for f := unicode.SimpleFold(r); ; f = unicode.SimpleFold(f) {
				orbit = append(orbit, string(f))
				if f == r {
					break
				}
			}
			if len(set)*len(orbit) > maxNeedles {
				return nil, false
			}
			set = cross(set, orbit)
		}
		return set, true
	case syntax.OpCharClass:
		if l, ok := literals(re, long); ok {
			return l.set, true
		}
	case syntax.OpEmptyMatch, syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return []string{""}, true
	case syntax.OpCapture:
		return exact(re.Sub[0], long)
	case syntax.OpQuest:
		if sub, ok := exact(re.Sub[0], long); ok && len(sub) < maxNeedles {
			return append([]string{""}, sub...), true
		}
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			x, ok := exact(sub, long)
			if !ok || len(set)+len(x) > maxNeedles {
				return nil, false
			}
			set = append(set, x...)
		}
		return set, true
	case syntax.OpConcat:
		set = []string{""}
		for _, sub := range re.Sub {
			x, ok := exact(sub, long)
			if !ok || len(set)*len(x) > maxNeedles {
				return nil, false
			}
			set = cross(set, x)
		}
		return set, true
	}
	return nil, false
}

// cross returns every string of a followed by every string of b.
func cross(a, b []string) []string {
	out := make([]string, 0, len(a)*len(b))
	for _, x := range a {
		for _, y := range b {
			out = append(out, x+y)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// better reports whether needles a rule out more than b: longer ones up
// to long bytes, then fewer, then longer, then ones the expression can be
// sought from.
func better(a, b lits, long int) bool {
	if la, lb := min(minLen(a.set), long), min(minLen(b.set), long); la != lb {
		return la > lb
	}
	if len(a.set) != len(b.set) {
		return len(a.set) < len(b.set)
	}
	if la, lb := minLen(a.set), minLen(b.set); la != lb {
		return la > lb
	}
	return a.local && !b.local
}

func minLen(set []string) int {
	n := -1
	for _, s := range set {
		if n < 0 || len(s) < n {
			n = len(s)
		}
	}
	return max(n, 0)
}

// canNewline reports whether a match of re may hold a newline.
func canNewline(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpLiteral:
		return slices.Contains(re.Rune, '\n')
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i] <= '\n' && '\n' <= re.Rune[i+1] {
				return true
			}
		}
		return false
	case syntax.OpAnyChar:
		return true
	}
	return slices.ContainsFunc(re.Sub, canNewline)
}

// startsLine reports whether every match of re starts a line: re begins
// with ^ in multi-line mode.
func startsLine(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine:
		return true
	case syntax.OpConcat, syntax.OpCapture:
		return len(re.Sub) > 0 && startsLine(re.Sub[0])
	case syntax.OpAlternate:
		return !slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return !startsLine(sub) })
	}
	return false
}

// hasOp reports whether op appears anywhere in re.
func hasOp(re *syntax.Regexp, op syntax.Op) bool {
	if re.Op == op {
		return true
	}
	return slices.ContainsFunc(re.Sub, func(sub *syntax.Regexp) bool { return hasOp(sub, op) })
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// from returns the offset in s at which to run the expression, and false
// when s holds no needle and cannot match.
func (p *Regexp) from(s string) (int, bool) {
	p.ready()
	if p.needles == nil {
		return 0, true
	}
	first := -1
	for k, n := range p.needles {
		// Only an occurrence before the first one found so far matters.
		end := len(s)
		if first >= 0 {
			end = min(len(s), first+len(n)-1)
		}
		var i int
		if p.fold {
			i = indexFold(s[:end], n, p.rare[k])
		} else {
			i = indexRare(s[:end], n, p.rare[k])
		}
		if i >= 0 {
			first = i
		}
	}
	if first < 0 {
		if p.fold && foldsToASCII(s, p.needles) {
			return 0, true
		}
		return 0, false
	}
	if !p.seek {
		return 0, true
	}
	if p.fold {
		// A needle spelled with a rune that folds to an ASCII letter may
		// come before the first one found.
		end := first
		for _, n := range p.needles {
			end = max(end, min(len(s), first+len(n)))
		}
		if foldsToASCII(s[:end], p.needles) {
			return 0, true
		}
	}
	return strings.LastIndexByte(s[:first], '\n') + 1, true
}

// indexRare returns the index of the first occurrence of needle in s, or
// -1, as strings.Index does. It looks for the needle's byte at k, its
// rarest, and compares around each occurrence: strings.Index looks for the
// first byte, and in most texts the first bytes of needles ("e" of "error:
// ", " " of " Error ") are everywhere.
func indexRare(s, needle string, k int) int {
	n := len(needle)
	switch {
	case n == 0:
		return 0
	case n == 1:
		return strings.IndexByte(s, needle[0])
	case n > len(s):
		return -1
	}
	c := needle[k]
	last := len(s) - n + k // the last place the rare byte can be
	fails := 0
	for i := k; i <= last; {
		j := strings.IndexByte(s[i:last+1], c)
		if j < 0 {
			return -1
		}
		i += j
		if s[i-k:i-k+n] == needle {
			return i - k
		}
		i++
		// On a text where the rare byte is common after all, leave the
		// search to strings.Index, which bounds its cost.
		if fails++; fails > 4+i>>4 {
			if j := strings.Index(s[i-k:], needle); j >= 0 {
				return i - k + j
			}
			return -1
		}
	}
	return -1
}

// indexFold returns the index of the first occurrence of needle, which is
// in lower-case ASCII, in s, in any ASCII case; or -1. k is the index in
// needle of its rarest byte.
func indexFold(s, needle string, k int) int {
	if len(needle) == 0 {
		return 0
	}
	if len(needle) > len(s) {
		return -1
	}
	// Look for the needle's rarest byte, in both cases, and compare
	// around each occurrence. next[x] is the position of the next
	// occurrence of case x at or after i, -1 when there is none and -2
	// before the first search.
	c := [2]byte{needle[k], needle[k]}
	if 'a' <= c[0] && c[0] <= 'z' {
		c[1] = c[0] - 'a' + 'A'
	}
	last := len(s) - len(needle) + k // the last place the rare byte can be
	next := [2]int{-2, -2}
	if c[0] == c[1] {
		next[1] = -1
	}
	for i := k; i <= last; {
		at := -1
		for x := range c {
			if next[x] != -1 && next[x] < i {
				next[x] = strings.IndexByte(s[i:last+1], c[x])
				if next[x] >= 0 {
					next[x] += i
				}
			}
			if next[x] >= 0 && (at < 0 || next[x] < at) {
				at = next[x]
			}
		}
		if at < 0 {
			return -1
		}
		if start := at - k; equalFoldASCII(s[start:start+len(needle)], needle) {
			return start
		}
		i = at + 1
	}
	return -1
}

// equalFoldASCII reports whether s equals lower, which is in lower case,
// in any ASCII case.
func equalFoldASCII(s, lower string) bool {
	for i := 0; i < len(lower); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// byteRank orders the printable ASCII bytes, the tab and the newline from
// the most frequent in tool outputs (those of synthetic and real
// transcripts) to the rarest. Other bytes are rarer still.
const byteRank = " etrosniacl.du\nmp0/f1h:g-2=()yk3b5_46w79v8\",x`{T}>;CSPRBE][DqI\tAON$MLFZ*U'+jW|<%HK#G^JQz\\V~!@YX?&"

// rarest returns the index of the byte of needle least likely to occur in
// text. With fold, the needle is in lower case and is looked for in any
// case, so a letter counts as frequent as the more frequent of its cases.
func rarest(needle string, fold bool) int {
	best, bestRank := 0, -1
	for i := 0; i < len(needle); i++ {
		c := needle[i]
		rank := strings.IndexByte(byteRank, c)
		if rank < 0 {
			rank = len(byteRank)
		}
		if fold && 'a' <= c && c <= 'z' {
			rank = min(rank, strings.IndexByte(byteRank, c-'a'+'A'))
		}
		if rank > bestRank {
			best, bestRank = i, rank
		}
	}
	return best
}

// foldsToASCII reports whether s holds a rune that regexp's case folding
// takes for an ASCII letter of the needles: the Kelvin sign for k, the long
// s for s. The needles' search, which folds ASCII only, would miss it.
// It reads s at most once for each of the two runes, however many needles
// hold the letter.
func foldsToASCII(s string, needles []string) bool {
	k := slices.ContainsFunc(needles, func(n string) bool { return strings.IndexByte(n, 'k') >= 0 })
	long := slices.ContainsFunc(needles, func(n string) bool { return strings.IndexByte(n, 's') >= 0 })
	return k && strings.Contains(s, "\u212a") || long && strings.Contains(s, "\u017f")
}

// needleLines calls yield with each line of s (its offset and its text,
// without the newline) that holds a needle, in order, until yield returns
// false. Each needle is searched for once per occurrence, so that the
// lines of a long text are found in time linear in its length.
func (p *Regexp) needleLines(s string, yield func(off int, line string) bool) {
	var next [maxNeedles]int // the next occurrence of each needle; -1 when there is none, -2 before the first search
	for k := range p.needles {
		next[k] = -2
	}
	for pos := 0; pos <= len(s); {
		first := -1
		for k, n := range p.needles {
			if next[k] == -1 {
				continue
			}
			if next[k] < pos {
				var j int
				if p.fold {
					j = indexFold(s[pos:], n, p.rare[k])
				} else {
					j = indexRare(s[pos:], n, p.rare[k])
				}
				if j < 0 {
					next[k] = -1
					continue
				}
				next[k] = pos + j
			}
			if first < 0 || next[k] < first {
				first = next[k]
			}
		}
		if first < 0 {
			return
		}
		start := strings.LastIndexByte(s[:first], '\n') + 1
		end := len(s)
		if e := strings.IndexByte(s[first:], '\n'); e >= 0 {
			end = first + e
		}
		if !yield(start, s[start:end]) {
			return
		}
		pos = end + 1
	}
}

// byLine reports whether the expression is to be run on s line by line
// (see needleLines): not when a rune of s folds to an ASCII letter of a
// needle or a word, which their searches do not find.
func (p *Regexp) byLine(s string) bool {
	p.ready()
	return p.lines && !(p.fold && foldsToASCII(s, p.needles)) && !(p.wordsFold && foldsToASCII(s, p.words))
}

// findLine returns the first match in s, as FindStringSubmatchIndex does
// (with its groups when sub is set), when the expression is run by line.
func (p *Regexp) findLine(s string, sub bool) (m []int) {
	p.needleLines(s, func(off int, line string) bool {
		if p.words != nil {
			if p.holdsWord(line) {
				m = []int{off, off + len(line)}
			}
			return m == nil
		}
		if sub {
			m = p.re.FindStringSubmatchIndex(line)
		} else {
			m = p.re.FindStringIndex(line)
		}
		shift(m, off)
		return m == nil
	})
	return m
}

// maxTries bounds the lines at which an anchored expression is tried
// before the rest of the text is left to the expression itself: a try may
// read far past its line (`'[^']*'` on a quote never closed), and a text
// with a needle on every line would be read again from each.
const maxTries = 16

// tryAt reports whether the first match in s is to be found by trying the
// anchored expression at the lines of the needles: not when a rune of s
// folds to an ASCII letter of a needle, which their searches do not find.
func (p *Regexp) tryAt(s string) bool {
	p.ready()
	return p.at != nil && !(p.fold && foldsToASCII(s, p.needles))
}

// findAt returns the first match in s, as FindStringSubmatchIndex does
// (with its groups when sub is set), when the expression is tried at the
// lines of the needles. Every match starts a line that holds a needle, so
// the first try that matches finds the first match.
func (p *Regexp) findAt(s string, sub bool) (m []int) {
	tries := 0
	p.needleLines(s, func(off int, _ string) bool {
		re := p.at
		if tries++; tries > maxTries {
			re = p.re // the first match is at or after this line
		}
		if sub {
			m = re.FindStringSubmatchIndex(s[off:])
		} else {
			m = re.FindStringIndex(s[off:])
		}
		shift(m, off)
		return m == nil && re == p.at
	})
	return m
}

// findAllLines is FindAllStringSubmatchIndex (FindAllStringIndex unless
// sub is set) when the expression is run by line.
func (p *Regexp) findAllLines(s string, n int, sub bool) (all [][]int) {
	if n == 0 {
		return nil
	}
	p.needleLines(s, func(off int, line string) bool {
		left := -1
		if n > 0 {
			left = n - len(all)
		}
		var ms [][]int
		switch {
		case p.words != nil:
			if p.holdsWord(line) {
				ms = [][]int{{0, len(line)}}
			}
		case sub:
			ms = p.re.FindAllStringSubmatchIndex(line, left)
		default:
			ms = p.re.FindAllStringIndex(line, left)
		}
		for _, m := range ms {
			all = append(all, shift(m, off))
		}
		return n < 0 || len(all) < n
	})
	return all
}

// submatches returns the texts in s of the groups of a match m, as
// FindStringSubmatch does.
func submatches(s string, m []int) []string {
	if m == nil {
		return nil
	}
	out := make([]string, len(m)/2)
	for i := range out {
		if m[2*i] >= 0 {
			out[i] = s[m[2*i]:m[2*i+1]]
		}
	}
	return out
}

// MatchString is regexp.MatchString, skipping texts with no needle.
func (p *Regexp) MatchString(s string) bool {
	switch {
	case p.byLine(s):
		return p.findLine(s, false) != nil
	case p.tryAt(s):
		return p.findAt(s, false) != nil
	}
	i, ok := p.from(s)
	return ok && p.re.MatchString(s[i:])
}

// FindString is regexp.FindString, skipping texts with no needle.
func (p *Regexp) FindString(s string) string {
	if p.byLine(s) || p.tryAt(s) {
		if m := p.FindStringIndex(s); m != nil {
			return s[m[0]:m[1]]
		}
		return ""
	}
	i, ok := p.from(s)
	if !ok {
		return ""
	}
	return p.re.FindString(s[i:])
}

// FindStringIndex is regexp.FindStringIndex, skipping texts with no
// needle.
func (p *Regexp) FindStringIndex(s string) []int {
	switch {
	case p.byLine(s):
		return p.findLine(s, false)
	case p.tryAt(s):
		return p.findAt(s, false)
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	return shift(p.re.FindStringIndex(s[i:]), i)
}

// FindStringSubmatch is regexp.FindStringSubmatch, skipping texts with no
// needle.
func (p *Regexp) FindStringSubmatch(s string) []string {
	if p.byLine(s) || p.tryAt(s) {
		return submatches(s, p.FindStringSubmatchIndex(s))
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	return p.re.FindStringSubmatch(s[i:])
}

// FindStringSubmatchIndex is regexp.FindStringSubmatchIndex, skipping
// texts with no needle.
func (p *Regexp) FindStringSubmatchIndex(s string) []int {
	switch {
	case p.byLine(s):
		return p.findLine(s, true)
	case p.tryAt(s):
		return p.findAt(s, true)
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	return shift(p.re.FindStringSubmatchIndex(s[i:]), i)
}

// FindAllStringIndex is regexp.FindAllStringIndex, skipping texts with no
// needle.
func (p *Regexp) FindAllStringIndex(s string, n int) [][]int {
	if p.byLine(s) {
		return p.findAllLines(s, n, false)
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	all := p.re.FindAllStringIndex(s[i:], n)
	for _, m := range all {
		shift(m, i)
	}
	return all
}

// FindAllStringSubmatch is regexp.FindAllStringSubmatch, skipping texts
// with no needle.
func (p *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	if p.byLine(s) {
		var all [][]string
		for _, m := range p.findAllLines(s, n, true) {
			all = append(all, submatches(s, m))
		}
		return all
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	return p.re.FindAllStringSubmatch(s[i:], n)
}

// FindAllStringSubmatchIndex is regexp.FindAllStringSubmatchIndex,
// skipping texts with no needle.
func (p *Regexp) FindAllStringSubmatchIndex(s string, n int) [][]int {
	if p.byLine(s) {
		return p.findAllLines(s, n, true)
	}
	i, ok := p.from(s)
	if !ok {
		return nil
	}
	all := p.re.FindAllStringSubmatchIndex(s[i:], n)
	for _, m := range all {
		shift(m, i)
	}
	return all
}

// shift adds off to the indexes of a match, leaving -1 (an unmatched
// group) as it is.
func shift(m []int, off int) []int {
	if off == 0 {
		return m
	}
	for k, v := range m {
		if v >= 0 {
			m[k] = v + off
		}
	}
	return m
}

// AnyOf is a set of expressions that matches a text when one of them
// does: an alternation whose branches are pre-filtered one by one.
type AnyOf []*Regexp

// MustAnyOf compiles each expression for lines (see MustCompileLine).
func MustAnyOf(exprs ...string) AnyOf {
	a := make(AnyOf, len(exprs))
	for i, e := range exprs {
		a[i] = MustCompileLine(e)
	}
	return a
}

// MatchString reports whether one of the expressions matches s.
func (a AnyOf) MatchString(s string) bool {
	for _, p := range a {
		if p.MatchString(s) {
			return true
		}
	}
	return false
}
