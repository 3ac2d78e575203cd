package report

import (
	"strings"
	"testing"
)

func TestCutMiddle(t *testing.T) {
	tests := []struct {
		path string
		n    int
		want string
	}{
		{"/home/me/proj/main.go", 30, "/home/me/proj/main.go"},
		{"/home/me/proj/main.go", 16, "/home/m…/main.go"},
		{"/home/me/proj/main.go", 9, "…/main.go"},
		{"/home/me/proj/main.go", 8, "/home/m…"},
		{`C:\src\app\server.py`, 15, `C:\s…\server.py`},
		{"benchmark_eagle3.py", 10, "benchmark…"},
	}
	for _, tt := range tests {
		got := cutMiddle(tt.path, tt.n, pathSeps)
		if got != tt.want || width(got) > tt.n {
			t.Errorf("cutMiddle(%q, %d) = %q (%d columns), want %q", tt.path, tt.n, got, width(got), tt.want)
		}
	}
}

func TestWrap(t *testing.T) {
	s := "15 failures cost 20 calls and 3m30s; 15 fixed by the first retry."
	for _, limit := range []int{0, 20, 40, 80} {
		got := wrap(s, limit)
		if strings.Join(strings.Fields(got), " ") != s {
			t.Errorf("wrap(_, %d) changed the words: %q", limit, got)
		}
		for line := range strings.Lines(got) {
			if limit > 0 && width(strings.TrimSuffix(line, "\n")) > limit {
				t.Errorf("wrap(_, %d): line %q is too wide", limit, line)
			}
		}
	}
}

// TestFit checks that a table is made to fit by cutting the columns that
// may be cut, then leaving out the least needed, and never by cutting a
// number.
func TestFit(t *testing.T) {
	newPairs := func() *table {
		tb := newTable("SESSION", "MSG", "TARGET", "FAILED WITH", "FIX", "CHANGE", "IN USAGE", "COST", "RESULT")
		tb.add("claude-code.jsonl", "4597", "/srv/app/tools/benchmark_eagle3.py", "unrecognized arguments: --num-prompts 5",
			"msg 4598", "--num-prompts → --num-runs", "yes", "1 call, 6s", "Average 71.1 tok/s")
		return tb
	}
	tests := []struct {
		width  int
		header string
	}{
		{0, "SESSION MSG TARGET FAILED WITH FIX CHANGE IN USAGE COST RESULT"},
		{200, "SESSION MSG TARGET FAILED WITH FIX CHANGE IN USAGE COST RESULT"},
		{120, "SESSION MSG TARGET FAILED WITH FIX CHANGE COST"},
		{80, "SESSION MSG TARGET FIX CHANGE"},
		{40, "SESSION MSG TARGET FIX CHANGE"},
	}
	for _, tt := range tests {
		tb := newPairs()
		var b strings.Builder
		if err := tb.render(&b, Options{Width: tt.width}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
		if got := strings.Join(strings.Fields(lines[0]), " "); got != tt.header {
			t.Errorf("width %d: header %q, want %q", tt.width, got, tt.header)
		}
		for _, l := range lines {
			if tt.width > 0 && width(l) > tt.width {
				t.Errorf("width %d: line %q is %d columns", tt.width, l, width(l))
			}
		}
		if !strings.Contains(lines[1], "4597") {
			t.Errorf("width %d: the message number was cut: %q", tt.width, lines[1])
		}
	}
}

// TestFitColor checks that cells coloured whole are cut as the others,
// keeping their colour, and that a session's label keeps its id.
func TestFitColor(t *testing.T) {
	o := Options{Width: 60, Color: true}
	tb := newTable("SESSION", "TARGET", "WRONG", "RIGHT", "COUNT")
	tb.add("speculative-decoding-experiments aaaa1111", "benchmark_eagle3.py",
		paint(o, red, "--num-prompts-per-second-max"), paint(o, green, "--request-rate-maximum-value"), "2")
	var b strings.Builder
	if err := tb.render(&b, o); err != nil {
		t.Fatal(err)
	}
	for line := range strings.Lines(b.String()) {
		if w := width(strings.TrimSuffix(line, "\n")); w > o.Width {
			t.Errorf("a line of %d columns, more than %d: %q", w, o.Width, line)
		}
	}
	row := strings.Split(b.String(), "\n")[1]
	for _, want := range []string{"… aaaa1111", "\x1b[31m--num", "…\x1b[0m"} {
		if !strings.Contains(row, want) {
			t.Errorf("row %q lacks %q", row, want)
		}
	}
}
