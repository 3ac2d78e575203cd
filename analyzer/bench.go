package analyzer

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// A Bench is one benchmark number a call printed: the objects `retrace
// bench` prints.
type Bench struct {
	Session SessionRef `json:"session"`
	CallID  string     `json:"call_id"`
	Msg     int        `json:"msg"`
	Target  string     `json:"target"`
	Label   string     `json:"label"`
	Value   float64    `json:"value"`
	Unit    string     `json:"unit"` // normalized: tok/s, req/s, ms, s, us, GB/s, it/s, samples/s, ops/s, %, x
	// Context holds the parameters the number was measured with: the
	// command's flags and any key=value or section header around it.
	Context map[string]string `json:"context"`
	Text    string            `json:"text"`            // the number and unit as printed
	Failed  bool              `json:"failed,omitzero"` // printed by a call that failed
	Line    int               `json:"line,omitzero"`   // 1-based line in the call's output
}

// units maps the units benchmarks print to their normalized form and the
// factor that converts a value to it.
var units = map[string]struct {
	unit   string
	factor float64
}{
	"tok/s": {"tok/s", 1}, "toks/s": {"tok/s", 1}, "tokens/s": {"tok/s", 1}, "token/s": {"tok/s", 1},
	"tok/sec": {"tok/s", 1}, "tokens/sec": {"tok/s", 1}, "tokens/second": {"tok/s", 1}, "t/s": {"tok/s", 1},
	"req/s": {"req/s", 1}, "reqs/s": {"req/s", 1}, "requests/s": {"req/s", 1}, "req/sec": {"req/s", 1},
	"requests/sec": {"req/s", 1}, "rps": {"req/s", 1},
	"ms": {"ms", 1}, "msec": {"ms", 1},
	"s": {"s", 1}, "sec": {"s", 1}, "secs": {"s", 1}, "seconds": {"s", 1},
	"us": {"us", 1}, "µs": {"us", 1}, "μs": {"us", 1},
	"ns":   {"us", 0.001},
	"gb/s": {"GB/s", 1}, "gib/s": {"GB/s", 1.073741824},
	"it/s": {"it/s", 1}, "samples/s": {"samples/s", 1}, "samples/sec": {"samples/s", 1},
	"ops/s": {"ops/s", 1}, "op/s": {"ops/s", 1}, "ops/sec": {"ops/s", 1},
	"%": {"%", 1}, "x": {"x", 1}, "×": {"x", 1},
}

var (
	// numberUnitRE finds a number followed by a unit.
	numberUnitRE = regexp.MustCompile(`(?i)(?:^|[^\w.])(\d+(?:\.\d+)?)\s?(tok/s|toks/s|tokens/s|token/s|tok/sec|tokens/sec|tokens/second|t/s|req/s|reqs/s|requests/s|req/sec|requests/sec|rps|msec|ms|seconds|secs|sec|s|µs|μs|us|ns|gib/s|gb/s|it/s|samples/sec|samples/s|ops/sec|ops/s|op/s|%|x|×)(?:[^\w/]|$)`)
	// sectionRE reads a section header such as "=== Concurrency 1 ===".
	sectionRE = regexp.MustCompile(`^\s*(?:={2,}|-{2,}|#{1,4})\s*([A-Za-z][\w ./-]*?)\s*[=:]?\s*(\d+(?:\.\d+)?)\s*(?:={2,}|-{2,})?\s*$`)
	// keyValueRE reads context such as "C=1" or "batch=8" on a line.
	keyValueRE = regexp.MustCompile(`(?:^|[\s,(\[])([A-Za-z][\w-]{0,30})=(\d+(?:\.\d+)?)\b`)
	// atRE reads context such as "at concurrency 64" after a number.
	atRE = regexp.MustCompile(`\b(?:at|with|for)\s+([A-Za-z][\w-]{0,30})\s*[= ]\s*(\d+(?:\.\d+)?)\b`)
	// progressRE recognizes progress bars and download lines, whose
	// numbers are not results.
	progressRE = regexp.MustCompile(`━|█|▏|\|#+|\beta\b|\bETA\b|[\d.]+/[\d.]+ ?[kMG]i?B|Downloading|Collecting|\d+%\|`)
	// unitHeaderRE finds the unit in a table column header: "Total tok/s",
	// "Mean latency (s)".
	unitHeaderRE = regexp.MustCompile(`(?i)(tok/s|tokens/s|req/s|it/s|ops/s|samples/s|GB/s)|\((ms|s|us|%|x)\)|\[(ms|s|us|%)\]`)
	cellSplitRE  = regexp.MustCompile(`\s*\|\s*|\s{2,}|\t+`)
)

// benchmarks extracts the numbers the session's shell calls printed.
func (a *sessionAnalysis) benchmarks() []*Bench {
	var out []*Bench
	for i, c := range a.s.Calls {
		cmd := a.cmds[i]
		if cmd == nil || !measures(cmd) {
			continue
		}
		for _, b := range extractBench(c.Output) {
			b.Session = a.ref
			b.CallID = c.ID
			b.Msg = c.Msg
			b.Target = a.targets[i]
			b.Failed = a.failures[i] != nil
			for k, v := range flagContext(cmd) {
				if _, ok := b.Context[k]; !ok {
					b.Context[k] = v
				}
			}
			out = append(out, b)
		}
	}
	return out
}

// measures reports whether a command's output may hold benchmark results:
// not a file listing, a search, source code or help text.
func measures(cmd *Command) bool {
	if diagnosticTargets[cmd.Target] || diagnosticTargets[cmd.Program()] || viewers[cmd.Target] {
		return false
	}
	return !asksHelp(cmd)
}

// flagContext turns a command's flags into benchmark context, without
// their dashes: --concurrency 1 gives concurrency=1.
func flagContext(cmd *Command) map[string]string {
	opts, _ := splitArgs(cmd.Args, true)
	ctx := make(map[string]string)
	for _, o := range opts {
		if o.value != "" && !strings.Contains(o.value, "://") {
			ctx[contextKey(o.name)] = o.value
		}
	}
	return ctx
}

// extractBench finds the benchmark numbers in a command's output: numbers
// with units and a label on the same line, and table cells under a header
// that carries a unit.
func extractBench(out string) []*Bench {
	var found []*Bench
	section := map[string]string{}
	lines := strings.Split(out, "\n")
	for n := 0; n < len(lines); n++ {
		line := strings.TrimRight(lines[n], "\r")
		if m := sectionRE.FindStringSubmatch(line); m != nil {
			section = map[string]string{contextKey(m[1]): m[2]}
			continue
		}
		if progressRE.MatchString(line) {
			continue
		}
		if cols, units := tableHeader(line); cols != nil {
			rows, k := tableRows(lines[n+1:], cols, units, section)
			for _, b := range rows {
				b.Line += n + 1
			}
			found = append(found, rows...)
			n += k
			continue
		}
		for _, b := range lineBench(line) {
			b.Line = n + 1
			for k, v := range section {
				if _, ok := b.Context[k]; !ok {
					b.Context[k] = v
				}
			}
			found = append(found, b)
		}
	}
	return found
}

// lineBench finds the labelled numbers with units on one line.
func lineBench(line string) []*Bench {
	var found []*Bench
	ctx := map[string]string{}
	for _, m := range keyValueRE.FindAllStringSubmatch(line, -1) {
		ctx[contextKey(m[1])] = m[2]
	}
	for _, m := range atRE.FindAllStringSubmatch(line, -1) {
		ctx[contextKey(m[1])] = m[2]
	}
	prevEnd := 0
	head, _, _ := strings.Cut(line, ":")
	head = strings.TrimSpace(head)
	for _, m := range numberUnitRE.FindAllStringSubmatchIndex(line, -1) {
		numStart, unitEnd := m[2], m[5]
		unit := units[strings.ToLower(line[m[4]:m[5]])]
		label := labelBefore(line[prevEnd:numStart])
		// "Latency: mean 2.30s, p99 2.41s": the text before the line's
		// only colon heads every label after it.
		if strings.Count(line[:numStart], ":") == 1 && head != label && !strings.Contains(head, "=") {
			label = strings.TrimSpace(head + " " + label)
		}
		prevEnd = unitEnd
		if label == "" || strings.HasSuffix(label, "=") {
			continue // an unlabelled number is too often not a result
		}
		v, err := strconv.ParseFloat(line[numStart:m[3]], 64)
		if err != nil {
			continue
		}
		c := map[string]string{}
		for k, val := range ctx {
			if !strings.Contains(label, k) {
				c[k] = val
			}
		}
		found = append(found, &Bench{
			Label:   label,
			Value:   math.Round(v*unit.factor*1e6) / 1e6,
			Unit:    unit.unit,
			Context: c,
			Text:    line[numStart:unitEnd],
		})
	}
	return found
}

// labelBefore returns the words before a number that label it: "Average"
// in "Average: 71.1 tok/s", "p99" in "p50 2.29s  p99 2.41s".
func labelBefore(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimRight(s, ":=~≈ \t")
	if i := strings.LastIndexAny(s, ":=,;|()[]"); i >= 0 {
		s = s[i+1:]
	}
	s = strings.TrimSpace(s)
	for _, w := range []string{" in", " at", " of", " took", " is", " was"} {
		s = strings.TrimSuffix(s, w)
	}
	words := strings.Fields(s)
	for len(words) > 0 && isNumber(words[0]) {
		words = words[1:] // "500 tokens in 7.05s": the 500 is another quantity
	}
	if len(words) > 5 {
		words = words[len(words)-5:]
	}
	return strings.Join(words, " ")
}

// tableHeader reads a table header whose columns carry units. It returns
// the column names and, per column, the unit ("" for columns without one),
// or nil when the line is not such a header.
func tableHeader(line string) (cols, colUnits []string) {
	if !unitHeaderRE.MatchString(line) {
		return nil, nil
	}
	cols = splitCells(line)
	if len(cols) < 2 {
		return nil, nil
	}
	withUnit := 0
	colUnits = make([]string, len(cols))
	for i, c := range cols {
		if m := unitHeaderRE.FindStringSubmatch(c); m != nil {
			u := strings.ToLower(m[1] + m[2] + m[3])
			colUnits[i] = units[u].unit
			withUnit++
		}
		if isNumber(c) {
			return nil, nil // a row, not a header
		}
	}
	if withUnit == 0 {
		return nil, nil
	}
	return cols, colUnits
}

// tableRows reads the rows under a table header, up to the first line that
// is not one, and returns the numbers in the columns with units, with the
// row's first cell as context. It also returns the number of lines read.
func tableRows(lines []string, cols, colUnits []string, section map[string]string) ([]*Bench, int) {
	var found []*Bench
	n := 0
	for ; n < len(lines); n++ {
		line := strings.TrimRight(lines[n], "\r")
		if isRule(line) {
			continue
		}
		cells := splitCells(line)
		if len(cells) != len(cols) {
			break
		}
		for i, cell := range cells {
			if colUnits[i] == "" || !isNumber(cell) {
				continue
			}
			v, _ := strconv.ParseFloat(cell, 64)
			ctx := map[string]string{}
			for k, val := range section {
				ctx[k] = val
			}
			if colUnits[0] == "" && i != 0 {
				ctx[contextKey(cols[0])] = cells[0]
			}
			found = append(found, &Bench{
				Label:   cols[i],
				Value:   v,
				Unit:    colUnits[i],
				Context: ctx,
				Text:    cell,
				Line:    n + 1,
			})
		}
	}
	return found, n
}

// contextKey normalizes the name of a parameter, however it was printed:
// "--max-tokens", "max_tokens" and "Max tokens" are all "max-tokens".
func contextKey(name string) string {
	name = strings.ToLower(strings.Trim(name, "- "))
	return strings.NewReplacer("_", "-", " ", "-").Replace(name)
}

func splitCells(line string) []string {
	line = strings.Trim(strings.TrimSpace(line), "|")
	cells := cellSplitRE.Split(strings.TrimSpace(line), -1)
	if len(cells) == 1 && cells[0] == "" {
		return nil
	}
	return cells
}

// isRule reports whether a line only draws a table's lines: "----+----".
func isRule(line string) bool {
	line = strings.TrimSpace(line)
	return line != "" && strings.Trim(line, "-=+|: ─━┼") == ""
}

// benchOf returns the numbers printed by the call with the given id.
func benchOf(all []*Bench, callID string) []*Bench {
	out := []*Bench{}
	for _, b := range all {
		if b.CallID == callID {
			out = append(out, b)
		}
	}
	return out
}
