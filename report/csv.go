package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"iter"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
)

// CSV is the output format for spreadsheets, for errors, pairs and bench.
const CSV = "csv"

// writeCSV writes a header and then each row rows yields. Cells that a
// spreadsheet would take for a formula (starting with = + - @, a tab or a
// carriage return) are prefixed with a quote, and transcript text is
// cleaned of control characters.
func writeCSV(w io.Writer, header []string, rows iter.Seq[[]string]) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	for r := range rows {
		for i, cell := range r {
			r[i] = csvCell(cell)
		}
		if err := cw.Write(r); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

func csvCell(s string) string {
	s = clean(s, 32000)
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) && !negativeRE.MatchString(s) {
		return "'" + s
	}
	return s
}

// negativeRE matches a negative number, which a spreadsheet reads as a
// number, not a formula: an exit code of -1, a change of -24.7.
var negativeRE = regexp.MustCompile(`^-\d+(?:\.\d+)?(?:[eE][-+]?\d+)?$`)

func errorsCSV(w io.Writer, failures iter.Seq[*analyzer.Failure]) error {
	header := []string{"session", "format", "call_id", "msg", "tool", "target", "category", "parser", "message",
		"bad_flags", "valid_flags", "suggestions", "fixed_by", "fixed_msg", "attempts", "exit_code", "evidence"}
	return writeCSV(w, header, func(yield func([]string) bool) {
		for f := range failures {
			if !yield([]string{f.Session.Path, f.Session.Format, f.CallID, strconv.Itoa(f.Msg), f.Tool, f.Target,
				string(f.Category), f.Parser, f.Message, strings.Join(f.BadFlags, " "), strings.Join(f.ValidFlags, " "),
				strings.Join(f.Suggestions, " "), deref(f.FixedBy), intOrEmpty(f.FixedMsg), strconv.Itoa(f.Attempts),
				intOrEmpty(f.Exit), f.Evidence}) {
				return
			}
		}
	})
}

func pairsCSV(w io.Writer, chains iter.Seq[*analyzer.Chain]) error {
	header := []string{"session", "format", "call_id", "msg", "target", "category", "message", "retries",
		"fix_call_id", "fix_msg", "fix_kind", "change", "offered_by_usage", "between", "cost_messages", "cost_calls",
		"cost_seconds", "result"}
	return writeCSV(w, header, func(yield func([]string) bool) {
		for ch := range chains {
			f := ch.Failure
			fixID, fixMsg, kind := "", "", ""
			if ch.Fix != nil {
				fixID, fixMsg, kind = ch.Fix.CallID, strconv.Itoa(ch.Fix.Msg), string(ch.Fix.Kind)
			}
			if !yield([]string{f.Session.Path, f.Session.Format, f.CallID, strconv.Itoa(f.Msg), f.Target,
				string(f.Category), f.Message, strconv.Itoa(len(ch.Retries)), fixID, fixMsg, kind, change(ch),
				strconv.FormatBool(ch.OfferedByUsage), strconv.Itoa(len(ch.Between)), strconv.Itoa(ch.Cost.Messages),
				strconv.Itoa(ch.Cost.Calls), strconv.FormatFloat(ch.Cost.Seconds, 'f', -1, 64), headline(ch.Benchmarks)}) {
				return
			}
		}
	})
}

func benchCSV(w io.Writer, bench iter.Seq[*analyzer.Bench]) error {
	header := []string{"session", "format", "call_id", "msg", "target", "label", "value", "unit", "context", "failed", "baseline", "time"}
	return writeCSV(w, header, func(yield func([]string) bool) {
		for b := range bench {
			when := ""
			if !b.Time.IsZero() {
				when = b.Time.UTC().Format(time.RFC3339Nano)
			}
			if !yield([]string{b.Session.Path, b.Session.Format, b.CallID, strconv.Itoa(b.Msg), b.Target,
				b.Label, strconv.FormatFloat(b.Value, 'f', -1, 64), b.Unit, contextText(b.Context), strconv.FormatBool(b.Failed),
				strconv.FormatBool(b.Baseline), when}) {
				return
			}
		}
	})
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func intOrEmpty(n *int) string {
	if n == nil {
		return ""
	}
	return fmt.Sprint(*n)
}
