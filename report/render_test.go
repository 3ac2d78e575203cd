package report

import (
	"bytes"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// A plainTable is a table as render's oracle holds it: every cell as it
// is, fitted to a width by cutting and dropping them in place, as the
// table did before it kept its cells compressed.
type plainTable struct {
	header []string
	rows   [][]string
}

// fit makes the table no wider than limit, as table.fitted does.
func (t *plainTable) fit(limit int) {
	if limit <= 0 || len(t.rows) == 0 {
		return
	}
	for {
		widths := t.widths()
		if t.shrink(widths, limit, func(h string) int { return columns[h].min }) || !t.dropOne() {
			if total(widths) > limit {
				t.shrink(widths, limit, width)
			}
			t.cut(widths)
			return
		}
	}
}

func (t *plainTable) widths() []int {
	w := make([]int, len(t.header))
	for i, h := range t.header {
		w[i] = width(h)
	}
	for _, r := range t.rows {
		for i, c := range r[:min(len(r), len(w))] {
			w[i] = max(w[i], width(c))
		}
	}
	return w
}

func (t *plainTable) shrink(widths []int, limit int, floor func(header string) int) bool {
	for n := total(widths); n > limit; n-- {
		best, spare := -1, 0
		for i, h := range t.header {
			if columns[h].min == 0 {
				continue
			}
			if s := widths[i] - max(floor(h), width(h), 1); s > spare {
				best, spare = i, s
			}
		}
		if best < 0 {
			return false
		}
		widths[best]--
	}
	return true
}

func (t *plainTable) dropOne() bool {
	at, rank := -1, 0
	for i, h := range t.header {
		if d := columns[h].drop; d > rank {
			at, rank = i, d
		}
	}
	if at < 0 {
		return false
	}
	t.header = slices.Delete(slices.Clone(t.header), at, at+1)
	for j, r := range t.rows {
		if at < len(r) {
			t.rows[j] = slices.Delete(slices.Clone(r), at, at+1)
		}
	}
	return true
}

func (t *plainTable) cut(widths []int) {
	for _, r := range t.rows {
		for i, c := range r[:min(len(r), len(widths))] {
			if width(c) > widths[i] {
				r[i] = cutCell(c, widths[i], columns[t.header[i]].keep)
			}
		}
	}
}

// renderTablewriter is what render was written to match: the table drawn
// by tablewriter in a borderless style.
func (t *plainTable) renderTablewriter(w io.Writer, o Options) error {
	if len(t.rows) == 0 {
		return nil
	}
	t.fit(o.Width)
	align := make([]tw.Align, len(t.header))
	for i, h := range t.header {
		align[i] = tw.AlignLeft
		if columns[h].right {
			align[i] = tw.AlignRight
		}
	}
	pad := tw.CellPadding{Global: tw.Padding{Left: "", Right: "  ", Overwrite: true}}
	var buf bytes.Buffer
	tab := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenColumns: tw.Off, BetweenRows: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithConfig(tablewriter.Config{
			Header: tw.CellConfig{
				Padding:    pad,
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align},
				Formatting: tw.CellFormatting{AutoFormat: tw.Off, AutoWrap: tw.WrapNone},
			},
			Row: tw.CellConfig{
				Padding:    pad,
				Alignment:  tw.CellAlignment{Global: tw.AlignLeft, PerColumn: align},
				Formatting: tw.CellFormatting{AutoWrap: tw.WrapNone},
			},
		}),
	)
	tab.Header(t.header)
	for _, r := range t.rows {
		if err := tab.Append(r); err != nil {
			return err
		}
	}
	if err := tab.Render(); err != nil {
		return err
	}
	for line := range strings.Lines(buf.String()) {
		if _, err := io.WriteString(w, strings.TrimRight(line, " \n")+"\n"); err != nil {
			return err
		}
	}
	return nil
}

// renderBoth renders the rows under header both ways, at the width given.
func renderBoth(t *testing.T, o Options, header []string, rows [][]string) (got, want string) {
	t.Helper()
	mine := newTable(header...)
	for _, r := range rows {
		mine.add(r...)
	}
	var a, b bytes.Buffer
	if err := mine.render(&a, o); err != nil {
		t.Fatal(err)
	}
	theirs := &plainTable{header: slices.Clone(header)}
	for _, r := range rows {
		theirs.rows = append(theirs.rows, slices.Clone(r))
	}
	if err := theirs.renderTablewriter(&b, o); err != nil {
		t.Fatal(err)
	}
	return a.String(), b.String()
}

// TestRender holds render to tablewriter on tables like those retrace
// prints: plain and painted cells, numbers aligned right, wide runes,
// empty cells, and a width that makes the table cut and drop columns.
func TestRender(t *testing.T) {
	red := func(s string) string { return paint(Options{Color: true}, "31", s) }
	tests := []struct {
		name   string
		width  int
		header []string
		rows   [][]string
	}{
		{"plain", 0, []string{"TARGET", "COUNT", "WHERE"}, [][]string{
			{"bench.py", "2", "a.jsonl:msg 3"},
			{"x", "120", ""},
		}},
		{"painted", 0, []string{"TARGET", "FIXED", "WRONG", "COUNT"}, [][]string{
			{"bench.py", red("2"), red("--num-prompts"), "1"},
			{"a-much-longer-target.py", red("12"), red("-n"), "10"},
			{"", "", "", ""},
		}},
		{"spaces", 0, []string{"TARGET", "COUNT", "WHERE"}, [][]string{
			{" lead", "2 ", "trail  "},
			{"x", " 1", " "},
		}},
		{"wide", 0, []string{"MSG", "MESSAGE", "VALUE"}, [][]string{
			{"1", "日本語のエラー", "3.5"},
			{"22", "ascii", "71.1"},
		}},
		{"cut", 40, []string{"MSG", "CALL", "TARGET", "CATEGORY", "MESSAGE", "DETAILS", "FIXED BY"}, [][]string{
			{"3", "toolu_01ABCDEFGHIJKLMNOPQRSTUV", "/home/me/proj/benchmark_eagle3.py", red("cli-usage"), "unrecognized arguments: --num-prompts 5", "argparse; bad --num-prompts", red("msg 7")},
			{"12", "toolu_02", "make", red("build-error"), "undefined: foo", "", red("unresolved")},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, want := renderBoth(t, Options{Width: tt.width}, tt.header, tt.rows)
			if got != want {
				t.Errorf("render:\n%q\ntablewriter:\n%q", got, want)
			}
		})
	}
}

// FuzzRender holds render to tablewriter on tables of cells as retrace
// makes them, cleaned and, some, painted: lines are rows, "|" separates
// cells, and a cell starting with "*" is painted.
func FuzzRender(f *testing.F) {
	f.Add("bench.py|2|a.jsonl:msg 3\nx|120|", uint8(0))
	f.Add("*cli-usage|*12|日本語\n a |  | *", uint8(30))
	f.Add("/home/me/proj/x.py|toolu_01ABCDEFGH|*msg 7\nmake|toolu_02|*unresolved", uint8(25))
	header := []string{"TARGET", "COUNT", "CATEGORY", "WHERE", "CALL"}
	f.Fuzz(func(t *testing.T, data string, width uint8) {
		var rows [][]string
		for line := range strings.Lines(data) {
			cells := strings.Split(strings.TrimSuffix(line, "\n"), "|")
			row := make([]string, len(header))
			for i := range min(len(cells), len(row)) {
				row[i] = clean(cells[i], 40)
				if strings.HasPrefix(cells[i], "*") {
					row[i] = paint(Options{Color: true}, red, clean(cells[i][1:], 40))
				}
			}
			rows = append(rows, row)
		}
		got, want := renderBoth(t, Options{Width: int(width)}, header, rows)
		if got != want {
			t.Errorf("render:\n%q\ntablewriter:\n%q", got, want)
		}
	})
}
