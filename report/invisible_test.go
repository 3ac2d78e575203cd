package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// hidden holds characters that print nothing or turn the text around them,
// as JSON escapes: bidi overrides and isolates, zero-width space, joiner
// and non-joiner, word joiner, byte order mark, a tag character (U+E0041,
// as a surrogate pair), a line separator, a Hangul filler; and C1
// controls: the 8-bit CSI and NEL.
const hidden = `\u202e\u2066\u2069\u200b\u200c\u200d\u2060\ufeff\udb40\udc41\u2028\u3164\u009b\u0085`

// invisibleReport analyzes a Claude Code session whose command, error,
// benchmark label, agent text and session id hold hidden: a flag renamed,
// which gives a failure, a chain, a benchmark number and a lesson.
func invisibleReport(t *testing.T) *analyzer.Report {
	t.Helper()
	session := strings.ReplaceAll(`{"type":"user","uuid":"u1","sessionId":"s-@H@","timestamp":"2026-04-01T10:00:00Z","message":{"role":"user","content":"go"}}
{"type":"assistant","uuid":"u2","sessionId":"s-@H@","timestamp":"2026-04-01T10:00:02Z","message":{"id":"m1","content":[{"type":"text","text":"Running @H@ it"},{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"python3 b@H@.py --num-prompts 5 --tag x@H@y"}}]}}
{"type":"user","uuid":"u3","sessionId":"s-@H@","timestamp":"2026-04-01T10:00:03Z","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","is_error":true,"content":"Exit code 2\nusage: b.py [-h] [--num-runs N] [--tag T]\nb.py: error: unrecognized arguments: --num-prompts 5 @H@"}]}}
{"type":"assistant","uuid":"u4","sessionId":"s-@H@","timestamp":"2026-04-01T10:00:05Z","message":{"id":"m2","content":[{"type":"tool_use","id":"toolu_2","name":"Bash","input":{"command":"python3 b@H@.py --num-runs 5 --tag x@H@y"}}]}}
{"type":"user","uuid":"u5","sessionId":"s-@H@","timestamp":"2026-04-01T10:00:09Z","message":{"content":[{"tool_use_id":"toolu_2","type":"tool_result","content":"Aver@H@age: 71.1 tok/s"}]}}
`, "@H@", hidden)
	s, err := parser.Parse(strings.NewReader(session), "s@H@.jsonl", nil)
	if err != nil {
		t.Fatal(err)
	}
	s.Path = strings.ReplaceAll(s.Path, "@H@", "\u202e\u200b")
	return analyzer.Analyze([]*parser.Session{s})
}

// rawHidden returns the first character of out that should have been
// escaped or shown: one that prints nothing, turns text around, or is a
// C1 control.
func rawHidden(out string) (rune, bool) {
	for _, r := range out {
		if unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Zl, r) || unicode.Is(unicode.Zp, r) ||
			r == '\u3164' || r >= 0x80 && r <= 0x9f {
			return r, true
		}
	}
	return 0, false
}

// renderAll renders rep with every renderer in the formats given.
func renderAll(t *testing.T, rep *analyzer.Report, formats ...string) map[string]string {
	t.Helper()
	var failures []*analyzer.Failure
	var chains []*analyzer.Chain
	var bench []*analyzer.Bench
	for _, s := range rep.Sessions {
		failures = append(failures, s.Failures...)
		chains = append(chains, s.Chains...)
		bench = append(bench, s.Benchmarks...)
	}
	if len(failures) == 0 || len(chains) == 0 || len(bench) == 0 || len(rep.Lessons) == 0 {
		t.Fatalf("the session gives %d failures, %d chains, %d numbers, %d lessons; want some of each",
			len(failures), len(chains), len(bench), len(rep.Lessons))
	}
	renderers := map[string]func(*bytes.Buffer, Options) error{
		"summary":    func(b *bytes.Buffer, o Options) error { return Summary(b, o, rep) },
		"errors":     func(b *bytes.Buffer, o Options) error { return Errors(b, o, slices.Values(failures)) },
		"pairs":      func(b *bytes.Buffer, o Options) error { return Pairs(b, o, slices.Values(chains)) },
		"bench":      func(b *bytes.Buffer, o Options) error { return Bench(b, o, slices.Values(bench)) },
		"lessons":    func(b *bytes.Buffer, o Options) error { return Lessons(b, o, rep.Lessons) },
		"show":       func(b *bytes.Buffer, o Options) error { return Show(b, o, chains) },
		"postmortem": func(b *bytes.Buffer, o Options) error { return PostMortem(b, o, rep) },
		"timelines": func(b *bytes.Buffer, o Options) error {
			return Timelines(b, o, rep.Timelines)
		},
	}
	accepts := map[string][]string{
		"summary": {Table, JSON, JSONL}, "errors": {Table, JSON, JSONL, CSV}, "pairs": {Table, JSON, JSONL, CSV},
		"bench": {Table, JSON, JSONL, CSV}, "lessons": {Table, JSON, JSONL, Markdown}, "show": {Text, JSON, JSONL},
		"postmortem": {Markdown, HTML}, "timelines": {Table},
	}
	out := make(map[string]string)
	for name, render := range renderers {
		for _, f := range accepts[name] {
			if !strings.Contains(strings.Join(formats, " "), f) {
				continue
			}
			var b bytes.Buffer
			if err := render(&b, Options{Format: f}); err != nil {
				t.Fatalf("%s/%s: %v", name, f, err)
			}
			out[name+"/"+f] = b.String()
		}
	}
	return out
}

// TestJSONEscapesHidden checks that JSON and JSON Lines escape C1 controls
// and the characters that print nothing or turn text around (\u009b,
// \u202e), which encoding/json writes raw, and that the output is still
// valid JSON that holds the text as the transcript did.
func TestJSONEscapesHidden(t *testing.T) {
	want, err := json.Marshal(json.RawMessage(`"` + hidden + `"`))
	if err != nil {
		t.Fatal(err)
	}
	var text string
	if err := json.Unmarshal(want, &text); err != nil {
		t.Fatal(err)
	}
	for name, out := range renderAll(t, invisibleReport(t), JSON, JSONL) {
		if r, ok := rawHidden(out); ok {
			t.Errorf("%s holds %U raw", name, r)
		}
		if name != "summary/json" && name != "summary/jsonl" && !strings.Contains(out, `\u202e\u2066\u2069\u200b`) {
			t.Errorf("%s does not hold the characters escaped:\n%s", name, out)
		}
		docs := []string{out}
		if strings.HasSuffix(name, JSONL) {
			docs = strings.Split(strings.TrimSuffix(out, "\n"), "\n")
		}
		for _, d := range docs {
			var v any
			if err := json.Unmarshal([]byte(d), &v); err != nil {
				t.Errorf("%s is not JSON: %v\n%s", name, err, d)
			}
		}
		if name == "errors/jsonl" {
			var f struct{ Command string }
			json.Unmarshal([]byte(docs[0]), &f)
			if !strings.Contains(f.Command, text) {
				t.Errorf("errors/jsonl: command %q does not hold the characters the transcript did (%q)", f.Command, text)
			}
		}
	}
}

// TestHiddenShown checks that tables, Markdown, CSV, show's text and the
// HTML page show each character that prints nothing or turns text around
// as its escape (\u202e), and mark it in HTML, so that a command cannot
// read as another.
func TestHiddenShown(t *testing.T) {
	outs := renderAll(t, invisibleReport(t), Table, CSV, Markdown, Text, HTML)
	for name, out := range outs {
		if !utf8.ValidString(out) {
			t.Errorf("%s is not UTF-8", name)
		}
		if r, ok := rawHidden(out); ok {
			t.Errorf("%s holds %U raw", name, r)
		}
	}
	for _, name := range []string{"errors/table", "pairs/table", "lessons/markdown", "errors/csv", "show/text", "postmortem/markdown"} {
		want := `b\u202e\u2066\u2069\u200b\u200c\u200d\u2060\ufeff\U000e0041\u2028\u3164`
		if strings.HasSuffix(name, Table) {
			want = `b\u202e\u2066\u2069\u200b…` // cut to the column's width
		}
		if !strings.Contains(outs[name], want) {
			t.Errorf("%s does not show the characters escaped:\n%s", name, outs[name])
		}
	}
	html := outs["postmortem/html"]
	if !strings.Contains(html, `b<span class="invisible" title="an invisible character, U+202E">\u202e</span>`) {
		t.Errorf("the HTML page does not mark the characters:\n%s", html)
	}
	sc := bufio.NewScanner(strings.NewReader(html))
	for sc.Scan() {
		if line := sc.Text(); strings.Contains(line, "python3 b") && strings.Contains(line, `\u202e`) && !strings.Contains(line, `class="invisible"`) {
			t.Errorf("the HTML page shows a character unmarked: %s", line)
		}
	}
}
