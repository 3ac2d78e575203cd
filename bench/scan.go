package bench

// The generic benchmark reading splits every candidate line into numbers
// and cells. These scanners do by hand what numberRunRE and cellSplitRE
// do, with the same results (the tests compare them on every line of the
// test cases and under fuzzing), at a fraction of the cost of running a
// regular expression per line.

// numberRuns returns what numberRunRE.FindAllStringIndex(line, -1)
// returns: the runs of a sign, digits (in groups of three after commas, or
// not), decimals and an exponent ("1e-3", "2.5E+03").
func numberRuns(line string) [][]int {
	var out [][]int
	for i := 0; i < len(line); {
		if end, ok := numberRunAt(line, i); ok {
			out = append(out, []int{i, end})
			i = end
			continue
		}
		i++
	}
	return out
}

// numberRunAt matches numberRunRE,
// `[-+−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?`, at
// line[i:], trying the alternatives in the expression's order, and returns
// the end of the match.
func numberRunAt(line string, i int) (int, bool) {
	j := i
	switch {
	case line[j] == '-' || line[j] == '+':
		j++
	case len(line)-j >= 3 && line[j:j+3] == "−":
		j += 3
	}
	if j == len(line) || !isDigit(line[j]) {
		return 0, false // with the sign or without, a digit must follow
	}
	run := j
	for run < len(line) && isDigit(line[run]) {
		run++
	}
	end := run // \d+
	// \d{1,3}(?:,\d{3})+ matches only where the first run has at most
	// three digits and a comma and three digits follow it.
	if run-j <= 3 && groupAt(line, run) {
		end = run
		for groupAt(line, end) {
			end += 4
		}
	}
	// (?:\.\d+)?
	if end+1 < len(line) && line[end] == '.' && isDigit(line[end+1]) {
		end += 2
		for end < len(line) && isDigit(line[end]) {
			end++
		}
	}
	// (?:[eE][-+]?\d+)?
	if end < len(line) && (line[end] == 'e' || line[end] == 'E') {
		k := end + 1
		if k < len(line) && (line[k] == '-' || line[k] == '+') {
			k++
		}
		if k < len(line) && isDigit(line[k]) {
			for end = k + 1; end < len(line) && isDigit(line[end]); end++ {
			}
		}
	}
	return end, true
}

// groupAt reports whether a comma and three digits start at line[i].
func groupAt(line string, i int) bool {
	return len(line)-i >= 4 && line[i] == ',' && isDigit(line[i+1]) && isDigit(line[i+2]) && isDigit(line[i+3])
}

// splitCellsOf returns what cellSplitRE.Split(s, -1) returns: s cut at each
// "|" with the white space around it, at each run of two or more white
// space characters, and at each run of tabs.
func splitCellsOf(s string) []string {
	if len(s) == 0 {
		return []string{""}
	}
	var cells []string
	beg := 0
	for i := 0; i < len(s); {
		end, ok := cellBreakAt(s, i)
		if !ok {
			i++
			continue
		}
		cells = append(cells, s[beg:i])
		beg, i = end, end
	}
	return append(cells, s[beg:])
}

// cellBreakAt matches cellSplitRE, `\s*\|\s*|\s{2,}|\t+`, at s[i:],
// trying the alternatives in the expression's order, and returns the end
// of the match.
func cellBreakAt(s string, i int) (int, bool) {
	j := i
	for j < len(s) && isSpace(s[j]) {
		j++
	}
	if j < len(s) && s[j] == '|' {
		j++
		for j < len(s) && isSpace(s[j]) {
			j++
		}
		return j, true
	}
	// No "|" ends the white space: \s{2,} takes all of it, if two.
	if j-i >= 2 {
		return j, true
	}
	if s[i] == '\t' {
		return i + 1, true // a single tab: \t+ (a second would have made two)
	}
	return 0, false
}
