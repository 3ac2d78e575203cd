// Package report renders the analyzer's findings: as tables for people at a
// terminal, and as JSON or JSON Lines for other tools, with the field names
// of the output contract.
//
// Each command has one function here, which writes its findings in the
// format Options names. Renderers only write to the io.Writer they are
// given; the same findings always render to the same bytes.
package report

import (
	"fmt"
	"io"
	"iter"
	"slices"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// The output formats.
const (
	Table    = "table"
	JSON     = "json"
	JSONL    = "jsonl"
	Markdown = "markdown"
)

// Formats lists the output formats, the default first.
func Formats() []string { return []string{Table, JSON, JSONL} }

// Options say how to render.
type Options struct {
	Format string // one of Formats; "" means Table
	Color  bool   // colour table output with ANSI escapes
	// Width is the display width tables are made to fit, by cutting and
	// leaving out columns; 0 for no limit.
	Width int
	// Top is how many sessions, targets, chains and lessons the summary
	// table lists, in the order Sort says (SortCost by default); 0 lists
	// every one.
	Top  int
	Sort string
	// By groups the summary table's sessions: ByProject, ByDay, ByWeek,
	// ByAgent; "" lists each session.
	By string
	// Brief asks for a Markdown post-mortem short enough for a
	// pull-request comment (at most MaxBrief characters).
	Brief bool
}

// Version is the version of the JSON output contract.
const Version = 1

// Summary writes the counts of a report, its chains and its top lessons.
func Summary(w io.Writer, o Options, r *analyzer.Report) error {
	if CountsOnly(o.Format) {
		return SummaryCounts(w, o, r.Summary)
	}
	d := NewDigest(o)
	for _, sr := range r.Sessions {
		d.Add(sr)
	}
	return SummaryTable(w, o, r.Summary, d, r.Lessons)
}

// CountsOnly reports whether Summary in the format writes the counts of its
// Summary and nothing else of the report: then SummaryCounts writes the
// same from a Summary made session by session. (The table also lists the
// chains and the lessons.)
func CountsOnly(format string) bool { return format == JSON || format == JSONL }

// SummaryCounts writes the counts of s in a format of which CountsOnly is
// true.
func SummaryCounts(w io.Writer, o Options, s *analyzer.Summary) error {
	switch o.Format {
	case JSON:
		return writeJSON(w, "summary", s)
	case JSONL:
		items := make([]any, 0, len(s.Sessions)+1)
		for _, ss := range s.Sessions {
			items = append(items, ss)
		}
		return writeJSONL(w, slices.Values(append(items, s.Totals)))
	}
	return fmt.Errorf("report: the %s summary reads more than the counts", o.Format)
}

// Errors writes one entry per failed call, in the order failures yields
// them, ranging over it once: one failure at a time, but for a table,
// which keeps the cells it prints until it knows their widths.
func Errors(w io.Writer, o Options, failures iter.Seq[*analyzer.Failure]) error {
	switch o.Format {
	case CSV:
		return errorsCSV(w, failures)
	case JSON:
		return writeJSONItems(w, "errors", failures)
	case JSONL:
		return writeJSONL(w, failures)
	}
	return errorsTable(w, o, failures)
}

// Pairs writes one entry per failure chain, as Errors does.
func Pairs(w io.Writer, o Options, chains iter.Seq[*analyzer.Chain]) error {
	switch o.Format {
	case CSV:
		return pairsCSV(w, chains)
	case JSON:
		return writeJSONItems(w, "pairs", chains)
	case JSONL:
		return writeJSONL(w, chains)
	}
	return pairsTable(w, o, chains)
}

// Bench writes one entry per benchmark number, as Errors does.
func Bench(w io.Writer, o Options, bench iter.Seq[*analyzer.Bench]) error {
	switch o.Format {
	case CSV:
		return benchCSV(w, bench)
	case JSON:
		return writeJSONItems(w, "bench", bench)
	case JSONL:
		return writeJSONL(w, bench)
	}
	return benchTable(w, o, bench)
}

// Timelines writes the benchmark timelines as a table: each metric of each
// target in each configuration, followed from its first run to its last.
// Other formats list every number, as Bench does.
func Timelines(w io.Writer, o Options, timelines []*analyzer.Timeline) error {
	return timelineTable(w, o, timelines)
}

// Lessons writes one entry per mistake. In Markdown it writes a snippet
// for an agent's instructions file (AGENTS.md, CLAUDE.md).
func Lessons(w io.Writer, o Options, lessons []*analyzer.Lesson) error {
	switch o.Format {
	case JSON:
		return writeJSON(w, "lessons", nonNil(lessons))
	case JSONL:
		return writeJSONL(w, slices.Values(lessons))
	case Markdown:
		return lessonsMarkdown(w, lessons)
	}
	return lessonsTable(w, o, lessons)
}

// A formatEntry describes one transcript format in `retrace formats`.
type formatEntry struct {
	Name     string `json:"name"`
	Doc      string `json:"doc"`
	Producer string `json:"producer"`
	Sniff    string `json:"detected_by"`
}

// TranscriptFormats writes the transcript formats retrace reads.
func TranscriptFormats(w io.Writer, o Options, formats []*parser.Format) error {
	entries := make([]formatEntry, len(formats))
	for i, f := range formats {
		entries[i] = formatEntry{f.Name, f.Doc, f.Producer, f.Sniff}
	}
	switch o.Format {
	case JSON:
		return writeJSON(w, "formats", entries)
	case JSONL:
		return writeJSONL(w, slices.Values(entries))
	}
	return formatsTable(w, o, entries)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
