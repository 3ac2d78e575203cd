package bench

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// A baseline is a reference a transcript states, not a run: "Throughput:
// 86.8 tok/s (baseline 92.7)", "baseline: 92.7 tok/s", or in the
// assistant's text, "still below the 92.7 tok/s baseline". Baselines are
// kept among the numbers, marked, and Timelines compares runs with them.

var (
	baselineWordRE = prefilter.MustCompile(`(?i)\bbaseline\b`)
	// versusRE recognizes a comparison with a baseline, which is a result:
	// "Speedup vs baseline: 1.3x".
	versusRE = prefilter.MustCompile(`(?i)\b(?:vs\.?|versus|over|than|against|relative to|compared to|from|to)\s+(?:the\s+)?baseline\b`)
	// baselineAfterRE reads the number after the word: "baseline 92.7",
	// "baseline: 92.7 tok/s", "baseline of ~92.7".
	baselineAfterRE = prefilter.MustCompile(`(?i)\bbaseline\b(?:\s*[:=]|\s+(?:of|was|is|at|were))?\s*~?\s*([-+]?\d+(?:\.\d+)?)`)
	// baselineBeforeRE reads a number and unit before the word: "a 92.7
	// tok/s baseline".
	baselineBeforeRE = prefilter.MustCompile(`(?i)([-+]?\d+(?:\.\d+)?)\s?([A-Za-zµμ/%×]+)\s+baseline\b`)
)

// markBaselines marks the numbers of an output (in line order) that are
// stated baselines: those labelled as one ("baseline: 92.7 tok/s") and
// those the word follows ("92.7 tok/s baseline"). It adds the baselines
// stated without a unit ("(baseline 92.7)"), which take the label, unit
// and context of the number before them on their line.
func markBaselines(t *output, found []*Result) []*Result {
	out := make([]*Result, 0, len(found))
	for i := 0; i < len(found); {
		j := i // found[i:j] are the numbers of one line
		for j < len(found) && found[j].Line == found[i].Line {
			j++
		}
		onLine := found[i:j]
		out = append(out, onLine...)
		i = j
		n := onLine[0].Line - 1
		if n < 0 || n >= len(t.lines) || !baselineWordRE.MatchString(t.lines[n]) {
			continue
		}
		line := t.lines[n]
		stated := map[string]bool{} // numbers stated as baselines, as printed
		for _, m := range baselineBeforeRE.FindAllStringSubmatch(line, -1) {
			stated[m[1]] = true
		}
		for _, b := range onLine {
			num, _, _ := strings.Cut(b.Text, " ")
			if baselineWordRE.MatchString(b.Label) && !versusRE.MatchString(b.Label) || stated[strings.TrimRightFunc(num, isUnitRune)] {
				b.Baseline = true
			}
		}
		last := onLine[len(onLine)-1]
		for _, m := range baselineAfterRE.FindAllStringSubmatchIndex(line, -1) {
			if _, _, ok := unitAfter(line, m[3]); ok {
				continue // with a unit: a number of its own
			}
			v, ok := convert(line[m[2]:m[3]], one)
			if !ok {
				continue
			}
			out = append(out, &Result{Label: last.Label, Value: v, Unit: last.Unit, Context: copyContext(last.Context),
				Text: line[m[0]:m[1]], Line: last.Line, Baseline: true})
		}
	}
	return out
}

func isUnitRune(r rune) bool { return !('0' <= r && r <= '9') && r != '.' }

// TextBaselines reads the baselines the assistant states in its text:
// those with a unit, labelled "baseline", with Source "text".
func TextBaselines(text string) []*Result {
	if !baselineWordRE.MatchString(text) {
		return nil
	}
	var found []*Result
	add := func(num, unitText, printed string) {
		u, ok := lookupUnit(unitText)
		if !ok {
			return
		}
		if b := newResult("baseline", num, u, printed, -1, nil); b != nil {
			b.Baseline, b.Source = true, "text"
			found = append(found, b)
		}
	}
	for line := range strings.Lines(text) {
		for _, m := range baselineAfterRE.FindAllStringSubmatchIndex(line, -1) {
			if _, end, ok := unitAfter(line, m[3]); ok {
				add(line[m[2]:m[3]], strings.TrimSpace(line[m[3]:end]), strings.TrimSpace(line[m[0]:end]))
			}
		}
		for _, m := range baselineBeforeRE.FindAllStringSubmatch(line, -1) {
			add(m[1], m[2], m[0])
		}
	}
	return found
}

// BaselineLabel returns the label of a stated baseline without the word
// "baseline": the metric it is the reference of ("Throughput" for
// "Baseline throughput"; "" for "baseline").
func BaselineLabel(label string) string {
	return strings.Join(strings.Fields(baselineWordRE.ReplaceAllString(label, "")), " ")
}
