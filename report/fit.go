package report

import (
	"iter"
	"slices"
	"strings"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// A column says how a table column gives way when the table is wider than
// the terminal. Columns are known by their header, the same in every
// table.
type column struct {
	// min is the narrowest the column's cells are cut to; 0 for a column
	// never cut (numbers, short words).
	min int
	// drop ranks the columns left out when cutting is not enough: the
	// highest first; 0 for a column always kept.
	drop int
	// keep, when not empty, cuts a cell in its middle, keeping what
	// follows the last of these characters: a path's file name, a
	// session's id.
	keep  string
	right bool // numbers, aligned right
}

// columns are the columns of every table by header.
var columns = map[string]column{
	"SESSION":       {min: 16, keep: ` /\`},
	"FORMAT":        {drop: 3},
	"DATE":          {drop: 2},
	"CHAINS":        {right: true},
	"SESSIONS":      {right: true},
	"PROJECT":       {min: 16, keep: pathSeps},
	"DAY":           {},
	"WEEK":          {},
	"AGENT":         {},
	"CALLS":         {right: true},
	"FAILED":        {right: true},
	"FIXED":         {right: true},
	"UNRESOLVED":    {right: true},
	"REJECTED":      {right: true, drop: 2},
	"LOST":          {right: true},
	"MSG":           {},
	"CALL":          {min: 12, drop: 3},
	"TARGET":        {min: 20, keep: pathSeps},
	"MESSAGE":       {min: 20},
	"DETAILS":       {min: 16, drop: 4},
	"FIXED BY":      {min: 8},
	"FAILED WITH":   {min: 18, drop: 1},
	"FIX":           {min: 8},
	"CHANGE":        {min: 24},
	"IN USAGE":      {drop: 3},
	"COST":          {drop: 1},
	"RESULT":        {min: 14, drop: 2},
	"LABEL":         {min: 10},
	"VALUE":         {right: true},
	"CONTEXT":       {min: 10, drop: 1},
	"METRIC":        {min: 10},
	"RUNS":          {right: true},
	"FIRST":         {right: true, drop: 2},
	"BEST":          {right: true},
	"LAST":          {right: true},
	"TREND":         {drop: 3},
	"BASELINE":      {min: 10, drop: 4},
	"COUNT":         {right: true},
	"WRONG":         {min: 10},
	"RIGHT":         {min: 10},
	"WHERE":         {min: 16, keep: pathSeps, drop: 1},
	"WHAT IT IS":    {min: 16},
	"WRITTEN BY":    {min: 12, drop: 1},
	"RECOGNIZED BY": {min: 16, drop: 2},
}

// pathSeps separate the elements of a path.
const pathSeps = `/\`

// gap is the space between two columns.
const gap = 2

// width returns the display width of s as the tables count it: escape
// sequences take none.
func width(s string) int {
	return twwidth.Width(s)
}

// A fit is a table as it is printed: its header, the width of each
// column and its rows, made to fit a terminal by fitted.
type fit struct {
	header []string
	widths []int
	rows   iter.Seq[[]string]
}

// fitted makes the table no wider than limit display columns, when limit >
// 0: it cuts the cells of the columns that may be cut, down to their least
// width, and then leaves out the columns that may be dropped, the least
// needed first, until the table fits. What still does not fit is cut
// further, down to the width of the headers. Each column is then as wide
// as its widest cell as cut, or its header.
func (t *table) fitted(limit int) fit {
	keep := make([]int, len(t.header)) // the columns kept, by index
	for i := range keep {
		keep[i] = i
	}
	if limit <= 0 {
		return fit{header: t.header, widths: t.widths(keep), rows: t.columns(keep, nil)}
	}
	var widths []int
	for {
		widths = t.widths(keep)
		if t.shrink(keep, widths, limit, func(h string) int { return columns[h].min }) || !t.dropOne(&keep) {
			break
		}
	}
	if total(widths) > limit {
		t.shrink(keep, widths, limit, width)
	}
	f := fit{header: make([]string, len(keep))}
	for i, k := range keep {
		f.header[i] = t.header[k]
	}
	natural := t.widths(keep)
	if slices.Equal(widths, natural) { // nothing to cut
		f.widths, f.rows = widths, t.columns(keep, nil)
		return f
	}
	// A column narrowed is as wide as its cells once cut, which may be
	// less: a character two columns wide does not fit its last column.
	f.rows = t.columns(keep, widths)
	f.widths = slices.Clone(natural)
	for i, h := range f.header {
		if widths[i] < natural[i] {
			f.widths[i] = width(h)
		}
	}
	for r := range f.rows {
		for i, c := range r {
			if widths[i] < natural[i] {
				f.widths[i] = max(f.widths[i], width(c))
			}
		}
	}
	return f
}

// widths returns the display width of each column of keep: its widest
// cell or header.
func (t *table) widths(keep []int) []int {
	w := make([]int, len(keep))
	for i, k := range keep {
		w[i] = max(width(t.header[k]), t.widest[k])
	}
	return w
}

// columns yields the rows with only the cells of the columns of keep,
// each cut to the width widths gives its column, when widths is not nil.
func (t *table) columns(keep []int, widths []int) iter.Seq[[]string] {
	return func(yield func([]string) bool) {
		for r := range t.all() {
			cells := make([]string, 0, len(keep))
			for i, k := range keep {
				if k >= len(r) {
					break
				}
				c := r[k]
				if widths != nil && widths[i] < t.widest[k] && width(c) > widths[i] {
					c = cutCell(c, widths[i], columns[t.header[k]].keep)
				}
				cells = append(cells, c)
			}
			if !yield(cells) {
				return
			}
		}
	}
}

// total returns the width of columns of the widths given, with the gaps
// between them.
func total(widths []int) int {
	n := gap * (len(widths) - 1)
	for _, w := range widths {
		n += w
	}
	return n
}

// shrink narrows the columns of keep that may be cut (those with a least
// width), one character at a time, the one with the most to spare first,
// until the table fits limit or each is at its floor. It reports whether
// the table fits.
func (t *table) shrink(keep, widths []int, limit int, floor func(header string) int) bool {
	for n := total(widths); n > limit; n-- {
		best, spare := -1, 0
		for i, k := range keep {
			h := t.header[k]
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

// dropOne leaves out of keep the column least needed, and reports whether
// there was one to leave out.
func (t *table) dropOne(keep *[]int) bool {
	at, rank := -1, 0
	for i, k := range *keep {
		if d := columns[t.header[k]].drop; d > rank {
			at, rank = i, d
		}
	}
	if at < 0 {
		return false
	}
	*keep = slices.Delete(*keep, at, at+1)
	return true
}

// cutCell cuts a cell to n display columns, in its middle when keep says
// what to keep (see column), else at its end. A cell painted whole keeps
// its colour.
func cutCell(c string, n int, keep string) string {
	if start, inner, ok := painted(c); ok {
		return start + cutCell(inner, n, keep) + reset
	}
	if keep != "" {
		return cutMiddle(c, n, keep)
	}
	return twwidth.Truncate(c, n-1) + "…"
}

// reset ends the colour paint starts.
const reset = "\x1b[0m"

// painted splits a cell paint coloured whole into the escape that starts
// the colour and the text.
func painted(c string) (start, inner string, ok bool) {
	if !strings.HasPrefix(c, "\x1b[") || !strings.HasSuffix(c, reset) {
		return "", "", false
	}
	m := strings.IndexByte(c, 'm')
	if m < 0 || m+1 > len(c)-len(reset) {
		return "", "", false
	}
	return c[:m+1], c[m+1 : len(c)-len(reset)], true
}

// cutMiddle cuts s to n display columns in its middle, keeping what
// follows the last of the keep characters, and as much of its start as
// fits: "/home/…/proj/main.go", "my-long-proj… 3cfce0ff". What follows is
// cut at its end when it is too long by itself.
func cutMiddle(s string, n int, keep string) string {
	if width(s) <= n {
		return s
	}
	i := strings.LastIndexAny(s, keep)
	tail := s[max(i, 0):]
	if i < 0 || width(tail)+1 > n {
		return twwidth.Truncate(s, n-1) + "…"
	}
	return twwidth.Truncate(s[:i], n-width(tail)-1) + "…" + tail
}

// wrap breaks prose into lines of at most limit display columns, between
// words; limit 0 leaves it on one line.
func wrap(s string, limit int) string {
	if limit <= 0 || width(s) <= limit {
		return s
	}
	var b strings.Builder
	line := 0
	for i, word := range strings.Fields(s) {
		w := width(word)
		switch {
		case i == 0:
		case line+1+w > limit:
			b.WriteByte('\n')
			line = 0
		default:
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += w
	}
	return b.String()
}
