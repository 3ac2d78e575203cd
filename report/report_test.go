package report

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

var update = flag.Bool("update", false, "rewrite golden files")

// seedReport analyzes the seed stories as Claude Code wrote them.
func seedReport(t *testing.T) *analyzer.Report {
	t.Helper()
	f, err := os.Open(filepath.Join("..", "testdata", "seeds", "claude-code.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := parser.Parse(f, "testdata/seeds/claude-code.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	return analyzer.Analyze([]*parser.Session{s})
}

// TestGolden renders the seed report with every command in every format
// and compares with testdata/report/<command>.<format>.golden.
func TestGolden(t *testing.T) {
	rep := seedReport(t)
	var failures []*analyzer.Failure
	var chains []*analyzer.Chain
	var bench []*analyzer.Bench
	for _, s := range rep.Sessions {
		failures = append(failures, s.Failures...)
		chains = append(chains, s.Chains...)
		bench = append(bench, s.Benchmarks...)
	}
	commands := map[string]func(*bytes.Buffer, Options) error{
		"summary": func(b *bytes.Buffer, o Options) error { return Summary(b, o, rep) },
		"errors":  func(b *bytes.Buffer, o Options) error { return Errors(b, o, slices.Values(failures)) },
		"pairs":   func(b *bytes.Buffer, o Options) error { return Pairs(b, o, slices.Values(chains)) },
		"bench":   func(b *bytes.Buffer, o Options) error { return Bench(b, o, slices.Values(bench)) },
		"lessons": func(b *bytes.Buffer, o Options) error { return Lessons(b, o, rep.Lessons) },
		"formats": func(b *bytes.Buffer, o Options) error { return TranscriptFormats(b, o, parser.Formats()) },
	}
	formats := map[string][]string{"errors": {CSV}, "pairs": {CSV}, "bench": {CSV}, "lessons": {Markdown}}
	for name, render := range commands {
		for _, format := range append(Formats(), formats[name]...) {
			t.Run(name+"/"+format, func(t *testing.T) {
				var got bytes.Buffer
				if err := render(&got, Options{Format: format}); err != nil {
					t.Fatal(err)
				}
				golden(t, filepath.Join("..", "testdata", "report", name+"."+format+".golden"), got.Bytes())
			})
		}
	}
	t.Run("timelines/table", func(t *testing.T) {
		var got bytes.Buffer
		if err := Timelines(&got, Options{Format: Table}, rep.Timelines); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "testdata", "report", "timelines.table.golden"), got.Bytes())
	})
	t.Run("show/text", func(t *testing.T) {
		var got bytes.Buffer
		if err := Show(&got, Options{Format: Text}, chains); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "testdata", "report", "show.text.golden"), got.Bytes())
	})
	t.Run("lessons/markdown", func(t *testing.T) {
		var got bytes.Buffer
		if err := Lessons(&got, Options{Format: Markdown}, rep.Lessons); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "testdata", "report", "lessons.markdown.golden"), got.Bytes())
	})
	for name, o := range map[string]Options{Markdown: {Format: Markdown}, HTML: {Format: HTML}, "brief": {Format: Markdown, Brief: true}} {
		t.Run("postmortem/"+name, func(t *testing.T) {
			var got bytes.Buffer
			if err := PostMortem(&got, o, rep); err != nil {
				t.Fatal(err)
			}
			out := got.Bytes()
			if o.Format == HTML { // the style and script are files of their own, read as such
				out = bytes.Replace(out, []byte(pageStyle), []byte("/* report/html/style.css */"), 1)
				out = bytes.Replace(out, []byte(pageScript), []byte("/* report/html/page.js */"), 1)
			}
			golden(t, filepath.Join("..", "testdata", "report", "postmortem."+name+".golden"), out)
		})
	}
	t.Run("summary/table-color", func(t *testing.T) {
		var got bytes.Buffer
		if err := Summary(&got, Options{Format: Table, Color: true}, rep); err != nil {
			t.Fatal(err)
		}
		golden(t, filepath.Join("..", "testdata", "report", "summary.table-color.golden"), got.Bytes())
	})
}

func TestEmpty(t *testing.T) {
	for _, format := range Formats() {
		var b bytes.Buffer
		if err := Errors(&b, Options{Format: format}, slices.Values([]*analyzer.Failure(nil))); err != nil {
			t.Fatal(err)
		}
		want := map[string]string{Table: "", JSON: "{\n  \"version\": 1,\n  \"errors\": []\n}\n", JSONL: ""}[format]
		if b.String() != want {
			t.Errorf("Errors(nil) in %s = %q, want %q", format, b.String(), want)
		}
	}
}

func TestClean(t *testing.T) {
	for _, tt := range []struct {
		in   string
		max  int
		want string
	}{
		{"plain", 80, "plain"},
		{"two\nlines\r\n\tand tabs", 80, "two lines and tabs"},
		{"\x1b[31mred\x1b[0m", 80, "red"},
		{"\x1b]8;;http://evil.example\x07click\x1b]8;;\x07", 80, "click"},
		{"\x1b]0;title\x1b\\after", 80, "after"},
		{"cursor\x1b[2Aup", 80, "cursorup"},
		{"\x1b(Bsgr0\x1b[m \x1b7saved\x1b8 \x1bPq#0\x1b\\sixel", 80, "sgr0 saved sixel"},
		{"bell\x07 nul\x00", 80, "bell� nul�"},
		{"bad \xff utf8", 80, "bad � utf8"},
		{"bidi \u202etxt", 80, `bidi \u202etxt`},
		{"zero\u200bwidth\ufeff tag\U000e0041", 80, `zero\u200bwidth\ufeff tag\U000e0041`},
		{"c1 \u0085nel \u009b", 80, "c1 �nel �"},
		{"abcd\u202e", 10, `abcd\u202e`},
		{"abcd\u202e", 9, "abcd…"},
		{"abcde", 5, "abcde"},
		{strings.Repeat("a", 20), 10, strings.Repeat("a", 10) + "…"},
	} {
		if got := clean(tt.in, tt.max); got != tt.want {
			t.Errorf("clean(%q, %d) = %q, want %q", tt.in, tt.max, got, tt.want)
		}
	}
}

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		sec  float64
		want string
	}{{0, "0s"}, {6.4, "6s"}, {59.6, "1m00s"}, {62, "1m02s"}, {3725, "1h02m"}} {
		if got := duration(tt.sec); got != tt.want {
			t.Errorf("duration(%g) = %q, want %q", tt.sec, got, tt.want)
		}
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

func TestCode(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"--num-runs", "`--num-runs`"},
		{"a`b", "``a`b``"},
		{"`x`", "`` `x` ``"},
	} {
		if got := code(tt.in); got != tt.want {
			t.Errorf("code(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestMarkdownEscapes(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain words", "plain words"},
		{"a *b* _c_ `d` [e](f) <g> |h|", `a \*b\* \_c\_ \` + "`" + `d\` + "`" + ` \[e\](f) \<g\> \|h\|`},
		{"# not a heading", `\# not a heading`},
		{"- not a list", `\- not a list`},
		{"a-b c#d", "a-b c#d"},
		{"&amp; & 1", `\&amp; & 1`},
	} {
		if got := mdEscape(tt.in); got != tt.want {
			t.Errorf("mdEscape(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"x", "```sh\nx\n```"},
		{"a ``` b", "````sh\na ``` b\n````"},
	} {
		if got := fence(tt.in, "sh"); got != tt.want {
			t.Errorf("fence(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestIsPostMortem checks that a post-mortem, in either format, is known by
// its first KiB, and that other files are not.
func TestIsPostMortem(t *testing.T) {
	rep := seedReport(t)
	for _, format := range []string{Markdown, HTML} {
		var b bytes.Buffer
		if err := PostMortem(&b, Options{Format: format}, rep); err != nil {
			t.Fatal(err)
		}
		if head := b.Bytes()[:1024]; !IsPostMortem(head) {
			t.Errorf("a post-mortem in %s is not known by its first KiB:\n%s", format, head)
		}
	}
	for _, head := range []string{
		"", "# My notes\n", "<!DOCTYPE html>\n<html><head><title>x</title>",
		"notes\n" + markdownMark + "\n", `{"type":"user","text":"` + markdownMark + `"}` + "\n",
	} {
		if IsPostMortem([]byte(head)) {
			t.Errorf("IsPostMortem(%q) = true", head)
		}
	}
}
