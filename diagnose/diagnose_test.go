package diagnose

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

var update = flag.Bool("update", false, "rewrite golden files and expectations")

// TestDiagnose runs the failure cases of ../testdata/failures. Each txtar
// archive holds cases as three files: NAME.call (the call's fields, one
// "key: value" per line: command, exit, tool, is_error, status, note,
// background, unrecorded, code: a code cell's one line),
// NAME.out (its output) and NAME.want (the diagnosis, or "none").
// -update rewrites the want files.
func TestDiagnose(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "failures", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no failure cases: %v", err)
	}
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		for i, f := range ar.Files {
			name, ok := strings.CutSuffix(f.Name, ".call")
			if !ok {
				continue
			}
			t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar")+"/"+name, func(t *testing.T) {
				out, want := caseFile(t, ar, name+".out"), caseFile(t, ar, name+".want")
				c := caseCall(t, string(f.Data), string(out.Data))
				var cmd *shell.Command
				if c.Kind == parser.KindShell {
					cmd = shell.Parse(c.Command)
				}
				got := describe(Call(c, cmd))
				if *update {
					if string(want.Data) != got {
						want.Data = []byte(got)
						changed = true
					}
					return
				}
				if diff := cmp.Diff(string(want.Data), got); diff != "" {
					t.Errorf("%s: Call mismatch (-want +got):\n%s", ar.Files[i].Name, diff)
				}
			})
		}
		if changed {
			if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

func caseFile(t *testing.T, ar *txtar.Archive, name string) *txtar.File {
	t.Helper()
	for i := range ar.Files {
		if ar.Files[i].Name == name {
			return &ar.Files[i]
		}
	}
	t.Fatalf("no file %s", name)
	return nil
}

// caseCall builds a call from "key: value" lines and its output.
func caseCall(t *testing.T, fields, out string) *parser.Call {
	c := &parser.Call{Tool: "Bash", Output: out, ID: "case"}
	for line := range strings.Lines(fields) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			continue
		}
		switch k {
		case "command":
			c.Command = v
		case "exit":
			n, err := strconv.Atoi(v)
			if err != nil {
				t.Fatal(err)
			}
			c.Exit = &n
		case "tool":
			c.Tool = v
		case "is_error":
			c.IsError = v == "true"
		case "status":
			c.Status = parser.Status(v)
		case "note":
			c.Note = v
		case "background":
			c.Background = parser.Background(v)
		case "unrecorded":
			c.Unrecorded = v == "true"
		case "code":
			c.Args = map[string]string{"code": v}
		default:
			t.Fatalf("unknown case field %q", k)
		}
	}
	c.Kind = parser.KindOf(c.Tool)
	return c
}

// describe prints a diagnosis as "key: value" lines, leaving out empty
// fields.
func describe(d *Diagnosis) string {
	if d == nil {
		return "none\n"
	}
	var b strings.Builder
	field := func(k string, v any) {
		switch v := v.(type) {
		case string:
			if v == "" {
				return
			}
		case []string:
			if len(v) == 0 {
				return
			}
			fmt.Fprintf(&b, "%s: %s\n", k, strings.Join(v, " | "))
			return
		}
		fmt.Fprintf(&b, "%s: %v\n", k, v)
	}
	field("category", string(d.Category))
	field("message", d.Message)
	field("evidence", d.Evidence)
	field("parser", d.Parser)
	field("bad_flags", d.BadFlags)
	field("valid_flags", d.ValidFlags)
	field("suggestions", d.Suggestions)
	field("choices", d.Choices)
	field("missing", d.Missing)
	field("program", d.Program)
	field("module", d.Module)
	if e := d.Exception; e != nil {
		exc := e.Type + ": " + e.Message
		if e.File != "" {
			exc += fmt.Sprintf(" at %s:%d in %s", e.File, e.Line, e.Func)
		}
		field("exception", exc)
		field("innermost", e.Innermost)
	}
	return b.String()
}

func TestExcerpt(t *testing.T) {
	tests := []struct {
		name string
		cmd  string
		exit int
		out  string
		want []string
	}{
		{"usage error", "python3 /tmp/benchmark_eagle3.py --num-prompts 5", 2,
			"Loading...\nusage: benchmark_eagle3.py [-h] [--server-url SERVER_URL]\n                           [--num-runs NUM_RUNS]\nbenchmark_eagle3.py: error: unrecognized arguments: --num-prompts 5\n",
			[]string{"usage: benchmark_eagle3.py [-h] [--server-url SERVER_URL]", "                           [--num-runs NUM_RUNS]", "benchmark_eagle3.py: error: unrecognized arguments: --num-prompts 5"}},
		{"traceback", "python app.py", 1,
			"starting\nTraceback (most recent call last):\n  File \"app.py\", line 3, in <module>\n    import flask\nModuleNotFoundError: No module named 'flask'\n",
			[]string{"Traceback (most recent call last):", "  File \"app.py\", line 3, in <module>", "    import flask", "ModuleNotFoundError: No module named 'flask'"}},
		{"around the message", "make deploy", 1,
			"a\nb\nc\nrsync: write error: Broken pipe (32)\nmake: *** [Makefile:12: deploy] Error 1\n",
			[]string{"a", "b", "c", "rsync: write error: Broken pipe (32)", "make: *** [Makefile:12: deploy] Error 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &parser.Call{Tool: "Bash", Kind: parser.KindShell, Command: tt.cmd, Exit: &tt.exit, Output: tt.out}
			d := Call(c, shell.Parse(tt.cmd))
			if d == nil {
				t.Fatal("Call = nil, want a failure")
			}
			if diff := cmp.Diff(tt.want, d.ExcerptOf(tt.out)); diff != "" {
				t.Errorf("Excerpt (-want +got):\n%s", diff)
			}
		})
	}
}

// TestREADMERules checks that the README names every signature a failure's
// evidence may cite.
func TestREADMERules(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if !strings.Contains(string(readme), "`"+r.name+"`") {
			t.Errorf("README.md does not name the signature %q (%s)", r.name, r.doc)
		}
	}
	for _, c := range Categories {
		if !strings.Contains(string(readme), "| `"+string(c)+"` |") {
			t.Errorf("README.md's table of categories lacks %q", c)
		}
	}
}
