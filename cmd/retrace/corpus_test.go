package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter/pkg/twwidth"

	"github.com/retrace-dev/retrace/report"
)

// corpus is the folder of real public transcripts the team shares, outside
// the repository; the tests that read it skip when it is absent.
var corpus = filepath.Join("..", "..", "..", "shared", "corpus")

var maskRE = regexp.MustCompile(`\[secret:([a-z0-9-]+):[0-9a-f]{4}\]`)

// TestCorpusMasks runs bench, errors and pairs over the real transcripts
// with and without masking: masking may change no benchmark record and no
// flag of a failure or a fix, so that no false positive hides what a
// report is for. The masks found are logged by kind.
func TestCorpusMasks(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	out := func(args ...string) []map[string]any {
		var stdout, stderr bytes.Buffer
		env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
		if status := run(append(args, "-q", corpus), env); status != 0 {
			t.Fatalf("%s: status %d: %s", strings.Join(args, " "), status, stderr.String())
		}
		for _, m := range maskRE.FindAllStringSubmatch(stdout.String(), -1) {
			t.Logf("%s: a %s mask", strings.Join(args, " "), m[1])
		}
		var recs []map[string]any
		for line := range strings.Lines(stdout.String()) {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Fatalf("%s: %v", args[0], err)
			}
			recs = append(recs, rec)
		}
		return recs
	}
	for _, tc := range []struct {
		cmd    string
		fields [][]string // the fields that must read the same; nil for all
	}{
		{"bench", nil},
		{"errors", [][]string{{"bad_flags"}, {"valid_flags"}, {"suggestions"}, {"target"}}},
		{"pairs", [][]string{{"failure", "bad_flags"}, {"failure", "valid_flags"}, {"diff", "renamed"}, {"diff", "removed"},
			{"diff", "added"}, {"diff", "changed"}, {"benchmarks"}}},
	} {
		masked, plain := out(tc.cmd, "-f", "jsonl"), out(tc.cmd, "-f", "jsonl", "--no-redact")
		if len(masked) != len(plain) || len(plain) == 0 {
			t.Fatalf("%s: %d records masked, %d not", tc.cmd, len(masked), len(plain))
		}
		for i := range plain {
			if tc.fields == nil && !reflect.DeepEqual(masked[i], plain[i]) {
				t.Errorf("%s: masking changed record %d:\n%v\n%v", tc.cmd, i, masked[i], plain[i])
			}
			for _, path := range tc.fields {
				if a, b := dig(masked[i], path), dig(plain[i], path); !reflect.DeepEqual(a, b) {
					t.Errorf("%s: masking changed %s of record %d: %v, not %v", tc.cmd, strings.Join(path, "."), i, a, b)
				}
			}
		}
	}
}

// dig returns the value at path in a decoded JSON object, or nil.
func dig(v any, path []string) any {
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// TestCorpusBrief checks that the brief report of the real transcripts fits
// a pull-request comment, and that the tables fit a terminal 80 columns
// wide.
func TestCorpusBrief(t *testing.T) {
	if _, err := os.Stat(corpus); err != nil {
		t.Skipf("no corpus at %s", corpus)
	}
	run1 := func(columns string, args ...string) string {
		var stdout, stderr bytes.Buffer
		env := testEnv(&stdout, &stderr, "COLUMNS", columns)
		if status := run(append(args, "-q", corpus), env); status != 0 {
			t.Fatalf("%s: status %d: %s", strings.Join(args, " "), status, stderr.String())
		}
		return stdout.String()
	}
	if n := utf8.RuneCountInString(run1("", "report", "--brief")); n > report.MaxBrief {
		t.Errorf("report --brief: %d characters, more than %d", n, report.MaxBrief)
	}
	for _, cmd := range []string{"summary", "errors", "pairs", "bench", "lessons"} {
		for line := range strings.Lines(run1("80", cmd)) {
			if w := twwidth.Width(strings.TrimSuffix(line, "\n")); w > 80 {
				t.Errorf("%s at 80 columns: a line of %d: %q", cmd, w, line)
				break
			}
		}
	}
}
