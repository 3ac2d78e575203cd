package report

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/s2"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/diagnose"
)

// ANSI colours used in tables.
const (
	red    = "31"
	green  = "32"
	yellow = "33"
	bold   = "1"
	dim    = "2"
)

// paint colours s when o asks for colour.
func paint(o Options, color, s string) string {
	if !o.Color || s == "" {
		return s
	}
	return "\x1b[" + color + "m" + s + "\x1b[0m"
}

// A table collects rows and renders them aligned, without borders, like
// ls -l or kubectl get. It keeps its rows' cells compressed (a cellStore)
// and the width of each column's widest cell, so that the errors and
// pairs of long runs, tables of a hundred thousand rows, take little
// memory until they are written.
type table struct {
	header []string
	rows   cellStore
	// widest holds the display width of each column's widest cell.
	widest []int
	// paths holds the session of each row added with addFrom, for
	// nameSessions; names, once it has run, the name of each.
	paths []string
	names map[string]string
}

func newTable(header ...string) *table {
	return &table{header: header, widest: make([]int, len(header))}
}

func (t *table) add(cells ...string) {
	for i, c := range cells[:min(len(cells), len(t.widest))] {
		t.widest[i] = max(t.widest[i], width(c))
	}
	t.rows.add(cells)
}

// addFrom adds a row drawn from the session at path.
func (t *table) addFrom(path string, cells ...string) {
	t.paths = append(t.paths, path)
	t.add(cells...)
}

// nameSessions puts a SESSION column in front, naming the session of each
// row, when the rows come from more than one (see sessionNames). Every row
// must have been added with addFrom, and no row after it.
func (t *table) nameSessions() {
	names := sessionNames(t.paths)
	if names == nil {
		return
	}
	widest := 0
	for _, n := range names {
		widest = max(widest, width(n))
	}
	t.header = append([]string{"SESSION"}, t.header...)
	t.widest = append([]int{widest}, t.widest...)
	t.names = names
}

// all yields the rows of the table, each with every cell it was added
// with, and its session's name in front after nameSessions.
func (t *table) all() iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		i := 0
		for r := range t.rows.all() {
			if t.names != nil {
				r = append([]string{t.names[t.paths[i]]}, r...)
			}
			i++
			if !yield(r) {
				return
			}
		}
	}
}

// render writes the table, made to fit o.Width: each column as wide as
// its widest cell, a cell's text padded to that width (numbers aligned
// right), two spaces between columns and none at the end of a line. It
// writes what tablewriter does in a borderless style (TestRender holds it
// to it), a line at a time, at a tenth of its cost.
func (t *table) render(w io.Writer, o Options) error {
	if t.rows.len() == 0 {
		return nil
	}
	f := t.fitted(o.Width)
	var line []byte
	writeLine := func(cells []string) error {
		line = line[:0]
		for i, c := range cells[:min(len(cells), len(f.widths))] {
			pad := f.widths[i] - width(c)
			if columns[f.header[i]].right {
				line = appendSpaces(line, pad)
				line = append(line, c...)
				line = appendSpaces(line, gap)
				continue
			}
			line = append(line, c...)
			line = appendSpaces(line, pad+gap)
			if strings.Contains(c, "\x1b") {
				line = append(line, reset...) // as tablewriter ends a painted cell
			}
		}
		line = append(bytes.TrimRight(line, " "), '\n')
		_, err := w.Write(line)
		return err
	}
	if err := writeLine(f.header); err != nil {
		return err
	}
	for r := range f.rows {
		if err := writeLine(r); err != nil {
			return err
		}
	}
	return nil
}

// A cellStore keeps rows of cells, each cell's length before its bytes, in
// blocks compressed with S2 once they hold cellBlock bytes. The zero
// cellStore is empty.
type cellStore struct {
	blocks  [][]byte // complete, each S2-encoded
	cur     []byte   // the block being filled, as it is
	scratch []byte   // where a block is encoded before it is copied
	n       int      // rows
}

// cellBlock is the size of the blocks of a cellStore before they are
// compressed.
const cellBlock = 64 << 10

func (s *cellStore) add(cells []string) {
	s.cur = binary.AppendUvarint(s.cur, uint64(len(cells)))
	for _, c := range cells {
		s.cur = binary.AppendUvarint(s.cur, uint64(len(c)))
		s.cur = append(s.cur, c...)
	}
	s.n++
	if len(s.cur) >= cellBlock {
		s.scratch = s2.Encode(s.scratch[:cap(s.scratch)], s.cur)
		s.blocks = append(s.blocks, bytes.Clone(s.scratch))
		s.cur = s.cur[:0]
	}
}

func (s *cellStore) len() int { return s.n }

// all yields the rows stored, in order, each decoded anew.
func (s *cellStore) all() iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		var buf []byte
		for i := range len(s.blocks) + 1 {
			block := s.cur
			if i < len(s.blocks) {
				var err error
				if buf, err = s2.Decode(buf[:cap(buf)], s.blocks[i]); err != nil {
					panic("report: a table's cells are corrupt: " + err.Error()) // they never left memory
				}
				block = buf
			}
			for len(block) > 0 {
				var cells []string
				cells, block = decodeRow(block)
				if !yield(cells) {
					return
				}
			}
		}
	}
}

// decodeRow decodes the row at the start of b, as cellStore.add encodes
// it, and returns it with the rest of b.
func decodeRow(b []byte) ([]string, []byte) {
	n, k := binary.Uvarint(b)
	b = b[k:]
	cells := make([]string, n)
	for i := range cells {
		l, k := binary.Uvarint(b)
		cells[i], b = string(b[k:k+int(l)]), b[k+int(l):]
	}
	return cells, b
}

// appendSpaces appends n spaces to b, none when n <= 0.
func appendSpaces(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// heading writes a section title.
func heading(w io.Writer, o Options, title string) error {
	_, err := fmt.Fprintf(w, "\n%s\n", paint(o, bold, title))
	return err
}

// sessionNames returns a short name for each session path: the base name,
// or more of the path where base names collide. It returns nil when there
// is only one session, whose name tables then leave out.
func sessionNames(paths []string) map[string]string {
	uniq := slices.Compact(slices.Sorted(slices.Values(paths)))
	if len(uniq) < 2 {
		return nil
	}
	names := make(map[string]string)
	count := make(map[string]int)
	for _, p := range uniq {
		count[filepath.Base(p)]++
	}
	for _, p := range uniq {
		if count[filepath.Base(p)] == 1 {
			names[p] = clean(filepath.Base(p), 60)
		} else {
			names[p] = clean(p, 60)
		}
	}
	return names
}

// costSentence says in one line what the failures cost.
func costSentence(t analyzer.Totals) string {
	if t.Failures == 0 {
		return fmt.Sprintf("No failed calls in %s.", plural(t.Calls, "call"))
	}
	s := fmt.Sprintf("%s cost %s", plural(t.Failures, "failure"), totalLost(t))
	if t.FixedFirstRetry > 0 {
		s += fmt.Sprintf("; %d fixed by the first retry", t.FixedFirstRetry)
	}
	if t.Unresolved > 0 {
		s += fmt.Sprintf("; %d never fixed", t.Unresolved)
	}
	return s + "."
}

func unresolved(o Options, n int) string {
	if n == 0 {
		return "0"
	}
	return paint(o, yellow, strconv.Itoa(n))
}

func errorsTable(w io.Writer, o Options, failures iter.Seq[*analyzer.Failure]) error {
	t := newTable("MSG", "CALL", "TARGET", "CATEGORY", "MESSAGE", "DETAILS", "FIXED BY")
	for f := range failures {
		fixed := paint(o, yellow, "unresolved")
		switch {
		case f.Category == diagnose.Rejected:
			fixed = paint(o, dim, "—")
		case f.FixedMsg != nil:
			fixed = paint(o, green, fmt.Sprintf("msg %d", *f.FixedMsg))
		}
		t.addFrom(f.Session.Path, strconv.Itoa(f.Msg), clean(f.CallID, 30), clean(f.Target, 30),
			paint(o, red, string(f.Category)), clean(f.Message, 60), clean(details(f), 60), fixed)
	}
	t.nameSessions()
	return t.render(w, o)
}

// details tells what a failure's diagnosis found beyond its message: the
// parser and flags of a usage error, the module not found, the frame of an
// exception.
func details(f *analyzer.Failure) string {
	var parts []string
	add := func(label string, words []string) {
		if len(words) > 0 {
			parts = append(parts, label+" "+strings.Join(words, " "))
		}
	}
	if f.Parser != "" {
		parts = append(parts, f.Parser)
	}
	add("bad", f.BadFlags)
	add("missing", f.Missing)
	if len(f.Suggestions) > 0 {
		parts = append(parts, "did you mean "+strings.Join(f.Suggestions, ", ")+"?")
	}
	add("choices", f.Choices)
	if n := len(f.ValidFlags); n > 0 {
		valid := f.ValidFlags
		if n > 5 {
			valid = append(valid[:5:5], fmt.Sprintf("(+%d)", n-5))
		}
		add("valid", valid)
	}
	if f.Module != "" {
		parts = append(parts, "module "+f.Module)
	}
	if e := f.Exception; e != nil && e.File != "" {
		parts = append(parts, fmt.Sprintf("at %s:%d", e.File, e.Line))
	}
	return strings.Join(parts, "; ")
}

func pairsTable(w io.Writer, o Options, chains iter.Seq[*analyzer.Chain]) error {
	t := newTable("MSG", "TARGET", "FAILED WITH", "FIX", "CHANGE", "IN USAGE", "COST", "RESULT")
	for ch := range chains {
		f := ch.Failure
		fix := paint(o, yellow, "unresolved")
		if ch.Fix != nil {
			fix = paint(o, green, fmt.Sprintf("msg %d", ch.Fix.Msg))
		}
		offered := ""
		if ch.OfferedByUsage {
			offered = "yes"
		}
		cost := plural(ch.Cost.Calls, "call")
		if ch.Cost.Seconds > 0 {
			cost += ", " + duration(ch.Cost.Seconds)
		}
		t.addFrom(ch.Session.Path, strconv.Itoa(f.Msg), clean(f.Target, 30), clean(f.Message, 50), fix,
			clean(change(ch), 110), offered, cost, clean(headline(ch.Benchmarks), 30))
	}
	t.nameSessions()
	return t.render(w, o)
}

// change says in a few words what the fix changed.
func change(ch *analyzer.Chain) string {
	if ch.Fix == nil {
		if len(ch.Retries) > 0 {
			return fmt.Sprintf("%s, none worked", plural(len(ch.Retries)+1, "attempt"))
		}
		return ""
	}
	var parts []string
	if d := ch.Diff; d != nil {
		for _, r := range d.Renamed {
			if r.FromValue == r.ToValue { // the value said nothing new
				parts = append(parts, r.From+" → "+r.To)
				continue
			}
			parts = append(parts, strings.TrimSpace(r.From+" "+r.FromValue)+" → "+strings.TrimSpace(r.To+" "+r.ToValue))
		}
		for _, c := range d.Changed {
			parts = append(parts, c.Flag+" "+c.From+" → "+c.To)
		}
		for _, a := range d.Removed {
			parts = append(parts, "-"+a)
		}
		for _, a := range d.Added {
			parts = append(parts, "+"+a)
		}
		if in := d.Input; in != nil {
			parts = append(parts, fmt.Sprintf("input -%d +%d lines", in.RemovedLines, in.AddedLines))
		}
	}
	s := strings.Join(parts, ", ")
	switch ch.Fix.Kind {
	case analyzer.FixEdit, analyzer.FixEnvironment, analyzer.FixWait:
		s = fmt.Sprintf("same command after %s", plural(len(ch.Fix.Because), string(ch.Fix.Kind)+" step"))
	case analyzer.FixSame:
		s = "same command, worked again"
	}
	return s
}

// maxUnit bounds a unit in text for people. Units are retrace's own
// (tok/s, samples/s), but those read back from its JSON Lines may be
// anything, and are cleaned like any text.
const maxUnit = 20

// headline picks the number that best sums up a run, a throughput or an
// average, else the first number, and writes it with its label.
func headline(bench []*analyzer.Bench) string {
	if len(bench) == 0 {
		return ""
	}
	best := bench[0]
	for _, b := range bench {
		l := strings.ToLower(b.Label)
		if strings.HasSuffix(b.Unit, "/s") && (strings.Contains(l, "average") || strings.Contains(l, "throughput") ||
			strings.Contains(l, "total") || strings.Contains(l, "mean")) {
			best = b
			break
		}
	}
	return clean(best.Label, 30) + " " + number(best.Value) + " " + clean(best.Unit, maxUnit)
}

func benchTable(w io.Writer, o Options, bench iter.Seq[*analyzer.Bench]) error {
	t := newTable("MSG", "TARGET", "LABEL", "VALUE", "UNIT", "CONTEXT")
	for b := range bench {
		value := number(b.Value)
		switch {
		case b.Failed:
			value = paint(o, yellow, value+" (failed run)")
		case b.Baseline:
			value = paint(o, dim, value+" (baseline)")
		}
		t.addFrom(b.Session.Path, strconv.Itoa(b.Msg), clean(b.Target, 30), clean(b.Label, 30), value,
			clean(b.Unit, maxUnit), clean(contextText(b.Context), 60))
	}
	t.nameSessions()
	return t.render(w, o)
}

// timelineTable writes one line per series of runs: a metric of a target
// in one configuration, its runs from first to last, the best, the change
// and a sparkline of the trend, and the last run against a stated
// baseline. Runs numbered in their labels ("Run 1" … "Run 5") make one
// line, and so do the steps of a sweep over one parameter (concurrency 1,
// 2 … 64), which show the sweep's range as context.
func timelineTable(w io.Writer, o Options, timelines []*analyzer.Timeline) error {
	t := newTable("TARGET", "METRIC", "UNIT", "CONTEXT", "RUNS", "FIRST", "BEST", "LAST", "CHANGE", "TREND", "BASELINE")
	for _, r := range benchSeries(timelines) {
		c := r.cells()
		change := c.change
		if c.better != "" {
			change = paint(o, c.better, change)
		}
		t.add(clean(r.target, 30), clean(r.label, 30), clean(r.unit, maxUnit), clean(r.context, 44),
			strconv.Itoa(len(r.points)), c.first, c.best, c.last, change, c.trend, c.baseline)
	}
	return t.render(w, o)
}

func lessonsTable(w io.Writer, o Options, lessons []*analyzer.Lesson) error {
	t := newTable("TARGET", "WRONG", "RIGHT", "COUNT", "WHERE")
	for _, l := range lessons {
		var where []string
		for _, p := range l.Where {
			where = append(where, fmt.Sprintf("%s:msg %d", clean(filepath.Base(p.Path), 60), p.Msg))
		}
		right := l.Right
		if right == "" {
			right = "(drop it)"
		}
		t.add(clean(l.Target, 30), paint(o, red, clean(l.Wrong, 30)), paint(o, green, clean(right, 30)),
			strconv.Itoa(l.Count), clean(strings.Join(where, ", "), 80))
	}
	return t.render(w, o)
}

func formatsTable(w io.Writer, o Options, entries []formatEntry) error {
	t := newTable("NAME", "WHAT IT IS", "WRITTEN BY", "RECOGNIZED BY")
	for _, e := range entries {
		t.add(e.Name, e.Doc, e.Producer, e.Sniff)
	}
	return t.render(w, o)
}
