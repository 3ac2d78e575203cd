package shparse

import (
	"errors"
	"flag"
	"runtime/debug"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// shapes are ways to nest a command line, each as the text before the
// innermost command, the text at its centre and the text after it, per
// level, with what goes around them.
var shapes = []struct {
	name                        string
	pre, open, mid, close, post string
}{
	{"parentheses", "", "(", "", "", ""},
	{"subshells", "", "( ", "true", " )", ""},
	{"substitutions", "echo ", "$(", "true", ")", ""},
	{"quoted substitutions", "echo ", `"$(`, "true", `)"`, ""},
	{"process substitutions", "", "cat <(", "true", ")", ""},
	{"blocks", "", "{ ", "true", "; }", ""},
	{"arithmetic", "echo $((", "(", "1", ")", "))"},
	{"arithmetic command", "((", "(", "1", ")", "))"},
	{"expansions", "echo ", "${a:-", "x", "}", ""},
	{"indexes", "echo ${a[", "b[", "1", "]", "]}"},
	{"extended globs", "echo ", "@(", "x", ")", ""},
	{"tests", "[[ ", "( ", "a", " )", " ]]"},
	{"negated tests", "[[ ", "! ", "a", "", " ]]"},
	{"test conjunctions", "[[ ", "a && ", "a", "", " ]]"},
	{"ifs", "", "if a; then ", "a", "; fi", ""},
	{"whiles", "", "while a; do ", "a", "; done", ""},
	{"cases", "", "case x in x) ", "true", ";; esac", ""},
	{"functions", "", "f() ", "{ true; }", "", ""},
	{"times", "", "time ", "true", "", ""},
	{"coprocs", "", "coproc ", "true", "", ""},
	{"and lists", "", "a && ", "a", "", ""},
	{"or lists", "", "a || ", "a", "", ""},
	{"pipelines", "", "a | ", "a", "", ""},
	{"ternaries", "echo $((", "1?", "1", ":1", "))"},
	{"assignments", "echo $((", "a=", "1", "", "))"},
	{"negations", "echo $((", "!", "1", "", "))"},
	{"signs", "echo $((", "- ", "1", "", "))"},
	{"sums", "echo $((", "1+", "1", "", "))"},
	{"backquotes", "echo ", "`", "", "`", ""},
	{"redirections", "echo ", ">a ", "", "", ""},
}

// nest returns the shape nested n levels deep.
func nest(pre, open, mid, close, post string, n int) string {
	return pre + strings.Repeat(open, n) + mid + strings.Repeat(close, n) + post
}

// TestParseBounded parses every shape of nesting, as deep as fits in MaxLen
// and 300 000 levels deep, with the stack limited to 16 MiB: no command
// line makes the parser use more, or run long. A line out of bounds is
// refused with its reason.
func TestParseBounded(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	p := syntax.NewParser(syntax.Variant(syntax.LangBash))
	for _, s := range shapes {
		// After a "<<" that reads as a here-document but is not one,
		// compound commands are not counted: they are bounded by the
		// length alone.
		for _, pre := range []string{s.pre, "echo $((1<<x))\n" + s.pre} {
			checkBounded(t, p, s.name, pre, s.open, s.mid, s.close, s.post)
		}
	}
}

// checkBounded parses a shape of nesting as deep as fits in MaxLen and
// 300 000 levels deep.
func checkBounded(t *testing.T, p *syntax.Parser, name, pre, open, mid, close, post string) {
	t.Helper()
	per := len(open) + len(close)
	fits := (MaxLen - len(pre) - len(mid) - len(post)) / per
	for _, n := range []int{fits, 300_000} {
		line := nest(pre, open, mid, close, post, n)
		_, err := Parse(p, line)
		switch {
		case len(line) > MaxLen:
			if !errors.Is(err, ErrTooLong) {
				t.Errorf("%s, %d levels (%d bytes): error %v, want %v", name, n, len(line), err, ErrTooLong)
			}
		case errors.Is(err, ErrTooLong):
			t.Errorf("%s, %d levels (%d bytes): too long", name, n, len(line))
		}
		t.Logf("%s, %d levels: %v", name, n, err)
	}
}

// TestNesting checks Nesting on lines agents write and on nested ones.
func TestNesting(t *testing.T) {
	for _, tt := range []struct {
		line string
		want int
	}{
		{"ls -la", 0},
		{"cd /srv && (make -j4 2>&1 | tail -20)", 1},
		{`python3 -c 'print({"a": [1, [2]]})'`, 4},
		{`[[ ! -f x ]] && echo "missing!"`, 3},
		{"f() { echo $(date); }; f", 3},
		{"if [ -f x ]; then\n  for f in *; do echo $f; done\nfi", 2},
		{"case $x in a) echo a;; esac", 1},
		{"time make; time make; time make", 1},
		{"echo $((((1))))", 4},
		{strings.Repeat("(", 300_000), 300_000},
		{strings.Repeat("! ", 1000) + "true", 1000},
		{strings.Repeat("if a; then ", 50) + "a" + strings.Repeat("; fi", 50), 50},
		{strings.Repeat("time ", 200) + "true", 200},
		// Here-documents hold code of other languages.
		{"cat > x.py <<'EOF'\n" + strings.Repeat("if x:\n    for y in z:\n        pass\n", 100) + "EOF\npython x.py", 0},
		{"cat <<-EOF > x.sh\n\tif [ -f x ]; then echo $(date)\n\tEOF\nif true; then bash x.sh; fi", 1},
		{"cat <<A <<\"B\"\nif\nA\nwhile\nB\nfor x in y; do :; done", 1},
		{"echo $((1<<x))\n" + strings.Repeat("if a; then ", 300), 2},
	} {
		if got := Nesting(tt.line); got != tt.want {
			t.Errorf("Nesting(%.40q) = %d, want %d", tt.line, got, tt.want)
		}
	}
}
