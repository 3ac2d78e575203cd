package bench

import (
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// The generic reading takes what home-made scripts print: "label: number
// unit" lines, several numbers on a line under one head, tables whose
// column headers carry the unit, with section headers, key=value pairs and
// a table's first column as context.

var (
	// spreadRE finds the spread after a value: " ± 0.5", " +/- 0.5".
	spreadRE = regexp.MustCompile(`^\s?(?:±|\+/-)\s?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?`)
	// numberRunRE finds the numbers of a line: "1,234.5", "71.0", "-3.2".
	// numberRuns does what it does, faster.
	numberRunRE = regexp.MustCompile(`[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?`)
	// sectionRE reads a section header that sets a parameter:
	// "=== Concurrency 1 ===", "## Concurrency 16", "--- batch=8 ---".
	sectionRE = regexp.MustCompile(`^\s*(?:={2,}|-{2,}|#{1,4}|\*{2,})\s*([A-Za-z][\w ./-]*?)\s*[=:]?\s*(\d+(?:\.\d+)?)\s*(?:={2,}|-{2,}|\*{2,})?\s*$`)
	// namedSectionRE reads a section header that names what follows:
	// "--- Prefill (1024 tokens) ---".
	namedSectionRE = regexp.MustCompile(`^\s*(?:={2,}|-{2,}|\*{2,})\s*([^\s=*-].*?)\s*(?:={2,}|-{2,}|\*{2,})\s*$`)
	// headingRE reads a Markdown heading without a parameter, which ends
	// the section before it.
	headingRE = regexp.MustCompile(`^\s*#{1,4}\s+\S`)
	// keyValueRE reads context such as "C=1" or "batch=8" on a line.
	keyValueRE = prefilter.MustCompileLine(`([A-Za-z][\w.-]{0,30})=(\d+(?:\.\d+)?)`)
	// atRE reads context such as "at concurrency 64" after a number.
	atRE = prefilter.MustCompileLine(`\b(?:at|with|for)\s+([A-Za-z][\w-]{0,30})\s*[= ]\s*(\d+(?:\.\d+)?)\b`)
	// unitLabelRE reads a line whose label carries the unit:
	// "Mean latency (ms): 12.3".
	unitLabelRE = regexp.MustCompile(`^\s*(?:[-*•]\s+)?([A-Za-z][^:=]*?\(([^()]+)\))\s*:\s*([-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*$`)
	// headRE finds the head of a line, the text before its first colon.
	headRE = regexp.MustCompile(`^\s*(?:[-*•]\s+)?([^:]*[A-Za-z][^:]*?)\s*:(?:\s|$)`)
	// cellSplitRE splits a table row into cells; splitCellsOf does what it
	// does, faster.
	cellSplitRE = regexp.MustCompile(`\s*\|\s*|\s{2,}|\t+`)
)

// noise recognizes lines that hold no results whatever their numbers:
// progress bars and downloads, test and build summaries, servers' logs.
// It matches when one of its expressions does, as their alternation would.
var noise = prefilter.MustAnyOf(
	// progress bars: tqdm, pip, rich; download meters
	`━|█|▏|▎|▍|▌|▋|▊|▉|\|#+|\d+%\|`,
	`\beta\b|\bETA\b`,
	`\[\d+:\d\d(?::\d\d)?<`,
	`\d[\d.]*/[\d.]+ ?[kKMG]i?B\b`,
	`^\s*(?:Downloading|Collecting|Downloaded|Uploading|Fetching|Pulling)\b`,
	`^\s+\d+K(?: [.,]+)+`,
	`saved \[\d+(?:/\d+)?\]`,
	// test runners and builds
	`^=+ .*\b(?:passed|failed|errors?|skipped|deselected|xfailed|xpassed|warnings?|durations|session|summary|FAILURES|ERRORS)\b.*=+\s*$`,
	`^\s*\d+ (?:passed|failed|errors?|skipped)\b.*\bin [\d.]+m?s\b`,
	`^\s*[\d.]+m?s (?:call|setup|teardown)\s`,
	`\bdurations? < [\d.]+m?s hidden`,
	`^(?:ok|FAIL|PASS)(?:\s|$)`,
	`^\s*---\s+(?:PASS|FAIL|SKIP|BENCH):`,
	`^=== (?:RUN|PAUSE|CONT|NAME)\s`,
	`^test result: `,
	`^Ran \d+ tests? in`,
	`^\s+Finished\s.*\bin [\d.]+m?s\s*$`,
	`^\s+(?:Compiling|Checking|Documenting)\s+\S+ v\d`,
	`^\s+Running\s.*\((?:target|build)/`,
	`\bbuilt in [\d.]+\s*(?:m?s|seconds?)\b`,
	`\btimed out after\b`,
	`\bcoverage: [\d.]+% of statements`,
	`^(?:✨\s+)?Done in [\d.]+m?s`,
	`^(?:added|removed|changed|audited) \d+ packages?`,
	`^#\d+ `,
	// servers' logs and echoed settings
	`^(?:\(\w+ pid=\d+\)\s+)?(?:INFO|WARNING|DEBUG|ERROR|CRITICAL)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d`,
	`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[^\]]*\]`,
	`\bAvg prompt throughput:`,
	`^(?:\w+=)?Namespace\(`,
	`\b(?:[Ss]erver|[Ee]ngine|[Mm]odel|[Aa]pp) (?:is )?(?:ready|started|loaded|up) (?:in|after)\b`,
	`^\s*Waiting (?:up to|for)\b`,
	`"(?:GET|POST|PUT|DELETE|HEAD|PATCH) \S+ HTTP/\d`,
)

// stopWords end labels of numbers that are settings or limits, not
// results: "Waiting up to 60s", "less than 5 ms", "timeout 30s".
var stopWords = map[string]bool{
	"to": true, "for": true, "every": true, "after": true, "within": true, "than": true,
	"timeout": true, "interval": true, "eta": true, "sleep": true, "sleeping": true,
	"waiting": true, "<": true, ">": true, "<=": true, ">=": true, "≤": true, "≥": true,
	"±": true, "+/-": true, "limit": true, "max-time": true,
}

// A section is what a section header says of the lines under it.
type section struct {
	prefix string            // the header's name, for labels
	ctx    map[string]string // the header's parameter
}

// readGeneric reads the lines no tool's reader took.
func readGeneric(t *output) []*Result {
	var found []*Result
	sec := section{}
	inConfig := false // under a "Configuration:" header
	for n := 0; n < len(t.lines); n++ {
		if t.claimed[n] {
			continue
		}
		line := t.lines[n]
		if inConfig {
			if inConfig = isIndented(line); inConfig {
				continue // a setting
			}
		}
		if configHeader(line) {
			inConfig = true
			continue
		}
		if !mayHold(line) {
			continue // what reading it would do
		}
		// A noise line is passed over. Noise is the costliest to
		// recognize, so it is asked only of the lines that would give
		// something.
		s, isSection := sectionHeader(line)
		var cols []string
		var colUnits []unitDef
		var label []string
		var nums []numberUnit
		if !isSection {
			if cols, colUnits = tableHeader(line); cols == nil {
				if label = unitLabel(line); label == nil {
					if nums = numberUnits(line); len(nums) == 0 {
						continue
					}
				}
			}
		}
		if noise.MatchString(line) || len(nums) > 0 && configLine(line) {
			continue
		}
		if isSection {
			sec = s
			continue
		}
		if cols != nil {
			rows, k := tableRows(t, n+1, cols, colUnits, sec)
			found = append(found, rows...)
			n += k
			continue
		}
		var benches []*Result
		if label != nil {
			benches = labelBench(label, n)
		} else {
			benches = numbersBench(line, n, nums)
		}
		for _, b := range benches {
			for k, v := range sec.ctx {
				if _, ok := b.Context[k]; !ok {
					b.Context[k] = v
				}
			}
			if sec.prefix != "" {
				b.Label = sec.prefix + " " + b.Label
			}
			found = append(found, b)
		}
	}
	return found
}

// mayHold reports whether a line may be a section header, a table header
// or a line of numbers with units: whether readGeneric must read it. A
// section header starts with "==", "--", "#" or "**"; a table header has
// cells, parted by "|", a tab or two spaces, and a unit in a "(", "[" or
// after a "/"; a label with its unit ("Mean (ms): 12.3") holds "(" and
// ":"; and a number with a unit is a digit followed by the unit's first
// letter, "/" or "%", attached or after one space (the unit of "12.3 ±
// 0.5 ms" follows the spread's digits).
func mayHold(line string) bool {
	if startsSection(line) {
		return true
	}
	if strings.ContainsAny(line, "([/") && hasCellBreak(line) {
		return true
	}
	if strings.IndexByte(line, '(') >= 0 && strings.IndexByte(line, ':') >= 0 {
		return true
	}
	for i := 0; i+1 < len(line); i++ {
		if !isDigit(line[i]) {
			continue
		}
		c := line[i+1]
		if c == ' ' && i+2 < len(line) {
			c = line[i+2]
		}
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c == '%' || c == '/' || c >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// isSpace reports whether c is white space as regexp's \s means it.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'
}

// startsSection reports whether a line's first character after white
// space may start a section header or a heading.
func startsSection(line string) bool {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	return i < len(line) && strings.IndexByte("=-#*", line[i]) >= 0
}

// hasCellBreak reports whether a line may split into cells: whether it
// holds a "|", a tab or two white space characters in a row after its
// indentation.
func hasCellBreak(line string) bool {
	i := 0
	for i < len(line) && isSpace(line[i]) {
		i++
	}
	for ; i < len(line); i++ {
		switch c := line[i]; {
		case c == '|' || c == '\t':
			return true
		case isSpace(c) && i+1 < len(line) && isSpace(line[i+1]):
			return true
		}
	}
	return false
}

// sectionHeader reads a section header.
func sectionHeader(line string) (section, bool) {
	if !startsSection(line) {
		return section{}, false // what each expression below requires
	}
	if m := sectionRE.FindStringSubmatch(line); m != nil {
		return section{ctx: map[string]string{contextKey(m[1]): m[2]}}, true
	}
	if m := namedSectionRE.FindStringSubmatch(line); m != nil {
		name := m[1]
		if i := strings.Index(name, "("); i > 0 {
			name = name[:i]
		}
		name = strings.TrimSpace(name)
		if hasLetter(name) && len(strings.Fields(name)) <= 5 {
			return section{prefix: name}, true
		}
		return section{}, true
	}
	if headingRE.MatchString(line) {
		return section{}, true
	}
	return section{}, false
}

// A numberUnit is a number followed by a known unit on a line.
type numberUnit struct {
	start, numEnd, end int // byte offsets: the number, and the unit's end
	unit               unitDef
}

// numberUnits finds the numbers with units of a line. A number counts when
// it stands on its own (not in "x86_64", "1/2", "1.2.3" or "p50") and a
// unit follows it, attached or after one space; "x" must be attached.
func numberUnits(line string) []numberUnit {
	var found []numberUnit
	for _, m := range numberRuns(line) {
		start, end := m[0], m[1]
		if start > 0 {
			r, _ := utf8.DecodeLastRuneInString(line[:start])
			if isWordRune(r) || r == '.' || r == '/' || r == '\\' {
				if line[start] != '-' && line[start] != '+' {
					continue
				}
				start++ // "5-10ms": the dash separates
				if start >= end {
					continue
				}
			}
		}
		if end < len(line) && line[end] == '.' && end+1 < len(line) && isDigit(line[end+1]) {
			continue // a version: 1.2.3
		}
		u, uEnd, ok := unitAfter(line, end)
		if !ok {
			// "12.3 ± 0.5 ms": the spread's unit is the value's.
			m := spreadRE.FindStringSubmatchIndex(line[end:])
			if m == nil {
				continue
			}
			if u, _, ok = unitAfter(line, end+m[1]); !ok {
				continue
			}
			uEnd = end
		}
		found = append(found, numberUnit{start: start, numEnd: end, end: uEnd, unit: u})
	}
	return found
}

// unitAfter reads the unit after a number ending at i.
func unitAfter(line string, i int) (unitDef, int, bool) {
	j := i
	spaced := false
	if j < len(line) && line[j] == ' ' {
		j++
		spaced = true
	}
	k := j
	for k < len(line) {
		r, size := utf8.DecodeRuneInString(line[k:])
		if !(unicode.IsLetter(r) || r == '/' || r == '%' || r == '×') {
			break
		}
		k += size
	}
	if k == j {
		return unitDef{}, 0, false
	}
	if k < len(line) {
		r, _ := utf8.DecodeRuneInString(line[k:])
		if isWordRune(r) {
			return unitDef{}, 0, false
		}
	}
	word := line[j:k]
	u, ok := lookupUnit(word)
	if !ok {
		return unitDef{}, 0, false
	}
	if spaced && (u.unit == "x") {
		return unitDef{}, 0, false
	}
	return u, k, true
}

// unitLabel returns the submatches of unitLabelRE in a line whose label
// carries a known unit, or nil.
func unitLabel(line string) []string {
	if !closesBeforeColon(line) {
		return nil // what unitLabelRE requires: "(unit)" then ":"
	}
	if m := unitLabelRE.FindStringSubmatch(line); m != nil {
		if _, ok := lookupUnit(m[2]); ok {
			return m
		}
	}
	return nil
}

// closesBeforeColon reports whether a ")" is followed by a ":", white
// space between.
func closesBeforeColon(line string) bool {
	for i := strings.IndexByte(line, ')'); i >= 0; {
		j := i + 1
		for j < len(line) && isSpace(line[j]) {
			j++
		}
		if j < len(line) && line[j] == ':' {
			return true
		}
		k := strings.IndexByte(line[j:], ')')
		if k < 0 {
			return false
		}
		i = j + k
	}
	return false
}

// labelBench reads the number of line n, whose unitLabel is m.
func labelBench(m []string, n int) []*Result {
	u, _ := lookupUnit(m[2])
	return appendResult(nil, newResult(strings.TrimSpace(m[1]), m[3], u, m[3], n, nil))
}

// numbersBench reads the numbers with units nums of line n.
func numbersBench(line string, n int, nums []numberUnit) []*Result {
	if len(nums) == 0 {
		return nil
	}
	ctx := lineContext(line)
	// "Latency: mean 2.30s, p99 2.41s": the head before the line's first
	// colon heads the labels after it, unless it has a value of its own
	// ("Requests: 5/5 ok, wall time 11.52s"); a number without a label
	// of its own takes the head as its label.
	head, colon, next, ownValue := "", -1, len(line), false
	if m := headRE.FindStringSubmatchIndex(line); m != nil && !strings.Contains(line[m[2]:m[3]], "=") {
		head = cleanLabel(line[m[2]:m[3]])
		colon = m[1] - 1
		for colon >= 0 && line[colon] != ':' {
			colon--
		}
		if colon >= 0 && colon < nums[0].start {
			ownValue = strings.ContainsAny(line[colon+1:nums[0].start], "0123456789")
			if i := strings.Index(line[colon+1:], ": "); i >= 0 {
				next = colon + 1 + i // a second head: "Accept length: 1.38, accept rate: 19.1%"
			}
		} else {
			head = ""
		}
	}
	var found []*Result
	prevEnd := 0
	for _, nu := range nums {
		seg := line[prevEnd:nu.start]
		prevEnd = nu.end
		if rejects(seg) {
			continue
		}
		label := labelBefore(seg)
		if label == "" && len(found) > 0 && strings.Trim(seg, " ,;(") == "" {
			label = found[len(found)-1].Label // "in 2.5s (40.0 tok/s)"
		}
		if head != "" && nu.start > colon && nu.start <= next {
			switch {
			case label == "":
				label = head
			case !ownValue && label != head:
				label = head + " " + label
			}
		}
		if label == "" && opensCell(line, nu.start) {
			label = line[nu.numEnd:nu.end] // "step 40 | 950.2 img/s": the unit says what
		}
		label = strings.TrimSpace(label)
		if label == "" || !hasLetter(label) {
			continue
		}
		c := map[string]string{}
		for k, v := range ctx {
			if !strings.Contains(strings.ToLower(label), k) {
				c[k] = v
			}
		}
		found = appendResult(found, newResult(label, line[nu.start:nu.numEnd], nu.unit, line[nu.start:nu.end], n, c))
	}
	return found
}

// lineContext reads the key=value pairs of a line whose value is a bare
// number ("C=1", "batch=8"; a value with a unit, "TTFT=61.2ms", is a
// result, not context), and "at concurrency 64".
func lineContext(line string) map[string]string {
	ctx := map[string]string{}
	for _, m := range keyValueRE.FindAllStringSubmatchIndex(line, -1) {
		if m[0] > 0 && !strings.ContainsRune(" \t,([", rune(line[m[0]-1])) {
			continue
		}
		if end := m[1]; end < len(line) {
			if !strings.ContainsRune(" \t,;:)]", rune(line[end])) || line[end] == ',' && end+1 < len(line) && isDigit(line[end+1]) {
				continue
			}
		}
		ctx[contextKey(line[m[2]:m[3]])] = line[m[4]:m[5]]
	}
	for _, m := range atRE.FindAllStringSubmatch(line, -1) {
		ctx[contextKey(m[1])] = m[2]
	}
	return ctx
}

// rejects reports whether the text before a number makes it a limit or a
// setting rather than a result: "less than 5 ms", "timeout 30s", "retry
// in 10s".
func rejects(seg string) bool {
	words := strings.Fields(strings.TrimRight(seg, ":=~≈ \t"))
	if len(words) > 0 && stopWords[strings.ToLower(words[len(words)-1])] {
		return true
	}
	for len(words) > 0 && linkWords[strings.ToLower(words[len(words)-1])] {
		words = words[:len(words)-1]
	}
	return len(words) > 0 && waitWords[strings.ToLower(words[len(words)-1])]
}

// waitWords end the labels of delays: "retry in 10s", "sleep 5s".
var waitWords = map[string]bool{
	"retry": true, "retrying": true, "retries": true, "sleep": true, "sleeping": true,
	"wait": true, "waiting": true, "backoff": true, "delay": true, "timeout": true,
	"expires": true, "ttl": true,
}

// labelBefore returns the words before a number that label it: "Average"
// in "Average: 71.1 tok/s", "p99" in "p50 2.29s  p99 2.41s".
func labelBefore(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ":=~≈ \t")
	if i := strings.LastIndexAny(s, ":=,;|()[]"); i >= 0 {
		s = s[i+1:]
	}
	// "Step 10/100 loss 2.3 time 0.5s": the words after the last other
	// measurement label this one; a count stays ("Generated 100 tokens").
	words := strings.Fields(cleanLabel(s))
	for i := len(words) - 2; i >= 0; i-- {
		if isNumber(words[i]) && strings.Contains(words[i], ".") {
			words = words[i+1:]
			break
		}
	}
	return strings.Join(words, " ")
}

// linkWords end a label without being part of it: "Training done in".
var linkWords = map[string]bool{"in": true, "at": true, "of": true, "took": true, "is": true, "was": true,
	"about": true, "~": true, "≈": true, "=": true, "-": true, "—": true}

// cleanLabel trims a label of bullets, leading numbers ("500 tokens in
// 7.05s": the 500 is another quantity) and linking words, and keeps its
// last five words.
func cleanLabel(s string) string {
	words := strings.Fields(s)
	for len(words) > 0 {
		w := strings.TrimRight(words[len(words)-1], ".…")
		if w != "" && !linkWords[strings.ToLower(w)] {
			words[len(words)-1] = w
			break
		}
		words = words[:len(words)-1]
	}
	for len(words) > 0 && (isNumber(words[0]) || words[0] == "-" || words[0] == "*" || words[0] == "•" || words[0] == "+") {
		words = words[1:]
	}
	if len(words) > 5 {
		words = words[len(words)-5:]
	}
	return strings.Join(words, " ")
}

// tableHeader reads a table header whose columns carry units. It returns
// the column names and, per column, the unit (zero for columns without
// one), or nil when the line is not such a header.
func tableHeader(line string) (cols []string, colUnits []unitDef) {
	if !strings.ContainsAny(line, "/(%[") {
		return nil, nil
	}
	// The unit of a column is in brackets or after a "/", and there must
	// be two cells.
	if !strings.ContainsAny(line, "([/") || !hasCellBreak(line) {
		return nil, nil
	}
	cols = splitCells(line)
	if len(cols) < 2 {
		return nil, nil
	}
	for _, c := range cols {
		if c != "" && isDigit(c[0]) {
			return nil, nil // a row, not a header
		}
	}
	withUnit := 0
	colUnits = make([]unitDef, len(cols))
	for _, c := range cols {
		if isCellNumber(c) || len(numberUnits(c)) > 0 {
			return nil, nil // a row, or a line of results, not a header
		}
	}
	for i, c := range cols {
		if u, ok := cellUnit(c); ok {
			colUnits[i] = u
			withUnit++
		}
	}
	if withUnit == 0 {
		return nil, nil
	}
	return cols, colUnits
}

var (
	parenUnitRE = regexp.MustCompile(`[(\[]([^()\[\]]+)[)\]]\s*$`)
)

// cellUnit reads the unit of a column header: "tok/s", "Total tok/s",
// "Mean latency (s)", "TTFT [ms]".
func cellUnit(c string) (unitDef, bool) {
	if t := strings.TrimRight(c, " \t\n\f\r"); t != "" && (t[len(t)-1] == ')' || t[len(t)-1] == ']') {
		if m := parenUnitRE.FindStringSubmatch(c); m != nil {
			if u, ok := lookupUnit(strings.TrimSpace(m[1])); ok {
				return u, true
			}
		}
	}
	words := strings.Fields(c)
	if len(words) == 0 {
		return unitDef{}, false
	}
	last := words[len(words)-1]
	if !strings.Contains(last, "/") {
		return unitDef{}, false
	}
	return lookupUnit(last)
}

// tableRows reads the rows of a table from line from, up to the first
// line that is not one, and returns the numbers in the columns with units,
// with the row's first cell as context. It also returns the number of
// lines read.
func tableRows(t *output, from int, cols []string, colUnits []unitDef, sec section) ([]*Result, int) {
	var found []*Result
	n := from
	for ; n < len(t.lines) && !t.claimed[n]; n++ {
		line := t.lines[n]
		if isRule(line) {
			continue
		}
		cells := splitCells(line)
		if len(cells) != len(cols) {
			break
		}
		for i, cell := range cells {
			if colUnits[i].unit == "" || !isCellNumber(cell) {
				continue
			}
			ctx := copyContext(sec.ctx)
			if colUnits[0].unit == "" && i != 0 {
				ctx[contextKey(cols[0])] = cells[0]
			}
			label := cols[i]
			if sec.prefix != "" {
				label = sec.prefix + " " + label
			}
			found = appendResult(found, newResult(label, cell, colUnits[i], cell, n, ctx))
		}
	}
	return found, n - from
}

func splitCells(line string) []string {
	line = strings.Trim(strings.TrimSpace(line), "|")
	cells := splitCellsOf(strings.TrimSpace(line))
	if len(cells) == 1 && cells[0] == "" {
		return nil
	}
	return cells
}

var cellNumberRE = regexp.MustCompile(`^[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?$`)

// isCellNumber reports whether s is a number and nothing else, as
// cellNumberRE says: a sign, digits (in groups of three after commas, or
// not), decimals and an exponent.
func isCellNumber(s string) bool {
	if s == "" || s[0] != '-' && s[0] != '+' && !isDigit(s[0]) {
		return false
	}
	end, ok := numberRunAt(s, 0)
	return ok && end == len(s)
}

// isRule reports whether a line only draws a table's lines: "----+----".
func isRule(line string) bool {
	line = strings.TrimSpace(line)
	return line != "" && strings.Trim(line, "-=+|: ─━┼") == ""
}

func hasLetter(s string) bool {
	return strings.IndexFunc(s, unicode.IsLetter) >= 0
}

func isWordRune(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// opensCell reports whether the number at start of line opens a cell of a
// line parted by "|" after a cell that holds a number of its own: "step 40
// | 950.2 img/s". A table row, which starts with the bar, does not count,
// nor a cell after words alone ("train | 950.2 img/s"), whose words would
// be a label the line does not give.
func opensCell(line string, start int) bool {
	before := strings.TrimRight(line[:start], " \t")
	return strings.HasSuffix(before, "|") && !strings.HasPrefix(strings.TrimSpace(line), "|") &&
		strings.ContainsAny(before, "0123456789")
}

// A program that echoes its configuration before it runs prints settings,
// not results: "threads: 4  duration: 30s", "concurrency=16 warmup=10s",
// or the indented lines under a "Configuration:" header.

// configHeaderRE matches a header over settings: "Benchmark configuration:",
// "Settings:", "Arguments:".
var configHeaderRE = regexp.MustCompile(`(?i)^\s*(?:[\w -]*\s)?(?:config|configuration|settings|parameters|params|hyperparameters|arguments|args|options)\s*:\s*$`)

// configHeader reports whether a line heads a block of settings.
func configHeader(line string) bool {
	l := strings.TrimRight(line, " \t")
	return strings.HasSuffix(l, ":") && configHeaderRE.MatchString(l)
}

// isIndented reports whether a line is indented and not blank: a line of
// the block above it.
func isIndented(line string) bool {
	return (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) && strings.TrimSpace(line) != ""
}

// settingWords name the settings a measurement runs with, whose values
// carry units: a key holding one, or starting with a limit's word, is a
// setting.
var settingWords = map[string]bool{
	"duration": true, "warmup": true, "timeout": true, "interval": true, "delay": true,
	"period": true, "ramp": true, "rampup": true, "cooldown": true, "sleep": true, "wait": true,
	"deadline": true, "ttl": true, "budget": true, "limit": true,
}

// limitWords start the keys of limits and targets: max_latency, target_rate.
var limitWords = map[string]bool{"max": true, "min": true, "target": true, "limit": true}

// isSettingKey reports whether a key names a setting.
func isSettingKey(key string) bool {
	words := strings.FieldsFunc(strings.ToLower(key), func(r rune) bool { return r == '_' || r == '-' || r == '.' })
	if len(words) == 0 {
		return false
	}
	if limitWords[words[0]] {
		return true
	}
	return slices.ContainsFunc(words, func(w string) bool { return settingWords[w] })
}

// configValueRE reads a value: a number, and a unit attached to it.
var configValueRE = regexp.MustCompile(`^[-+]?\d+(?:\.\d+)?([A-Za-zµ%/]*)$`)

// configLine reports whether a line echoes settings: it holds two or more
// key: value or key=value pairs with numbers, and each of them whose value
// has a unit is a setting (a bare number, threads: 4, is one anyway). A
// training log's "step: 100, loss: 0.23, throughput: 950.2 img/s" is not:
// its throughput is measured.
func configLine(line string) bool {
	words := strings.FieldsFunc(line, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' || r == ';' })
	pairs := 0
	for i := 0; i < len(words); i++ {
		key, value, ok := strings.Cut(words[i], "=")
		if !ok {
			k, isKey := strings.CutSuffix(words[i], ":")
			if !isKey || i+1 >= len(words) {
				continue
			}
			key, value = k, words[i+1]
			i++
		}
		m := configValueRE.FindStringSubmatch(value)
		if key == "" || !isASCIILetter(key[0]) || m == nil {
			continue
		}
		unit := m[1]
		if unit == "" && i+1 < len(words) {
			if _, ok := lookupUnit(words[i+1]); ok {
				unit = words[i+1] // "throughput: 950.2 img/s"
			}
		}
		if unit != "" && !isSettingKey(key) {
			return false
		}
		pairs++
	}
	return pairs >= 2
}
