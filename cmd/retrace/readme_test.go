package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/parser"
)

// TestREADME runs every retrace command of the README's shell blocks
// ("$ go run ./cmd/retrace ARGS") from the repository's root, and checks
// that the output shown after it is what retrace prints.
func TestREADME(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(filepath.Join("..", ".."))
	examples := 0
	for _, block := range strings.Split(string(readme), "```sh\n")[1:] {
		block, _, _ = strings.Cut(block, "```")
		first, want, _ := strings.Cut(block, "\n")
		// An example may set the terminal's width: $ COLUMNS=100 go run …
		columns := ""
		if rest, ok := strings.CutPrefix(first, "$ COLUMNS="); ok {
			columns, first, _ = strings.Cut(rest, " ")
			first = "$ " + first
		}
		args, ok := strings.CutPrefix(first, "$ go run ./cmd/retrace ")
		if !ok {
			continue
		}
		examples++
		t.Run(args, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := testEnv(&stdout, &stderr, "COLUMNS", columns)
			if status := run(strings.Fields(args), env); status != 0 {
				t.Fatalf("exit status %d; stderr:\n%s", status, stderr.String())
			}
			if want == "" {
				if stdout.Len() == 0 {
					t.Error("printed nothing")
				}
				return
			}
			if diff := cmp.Diff(want, stdout.String()); diff != "" {
				t.Errorf("README shows other output (-README +retrace):\n%s", diff)
			}
		})
	}
	if examples < 3 {
		t.Errorf("found %d retrace examples in README.md, want at least 3", examples)
	}
}

// TestREADMEFormats checks that the README's format table names every
// format retrace reads.
func TestREADMEFormats(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range parser.Formats() {
		if !strings.Contains(string(readme), "| `"+f.Name+"` |") {
			t.Errorf("README.md has no row for the format %s", f.Name)
		}
	}
}

// testEnv returns the Env of a run in a test: no standard input, the
// streams given, and an environment of the variables named and valued in
// pairs, such as "COLUMNS", "80".
func testEnv(stdout, stderr io.Writer, vars ...string) *Env {
	getenv := func(name string) string {
		for i := 0; i+1 < len(vars); i += 2 {
			if vars[i] == name {
				return vars[i+1]
			}
		}
		return ""
	}
	return &Env{Stdin: &bytes.Buffer{}, Stdout: stdout, Stderr: stderr, Getenv: getenv}
}
