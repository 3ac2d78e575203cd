package diagnose

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// failureCases returns the command lines and outputs of the failure cases,
// to seed the fuzzers.
func failureCases(f *testing.F) (cmds, outs []string) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "failures", "*.txtar"))
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			switch {
			case strings.HasSuffix(af.Name, ".out"):
				outs = append(outs, string(af.Data))
			case strings.HasSuffix(af.Name, ".call"):
				for line := range strings.Lines(string(af.Data)) {
					if c, ok := strings.CutPrefix(strings.TrimSpace(line), "command: "); ok {
						cmds = append(cmds, c)
					}
				}
			}
		}
	}
	return cmds, outs
}

// FuzzDiagnose checks that no output makes failure detection panic, and
// that what it reports is bounded, valid text.
func FuzzDiagnose(f *testing.F) {
	cmds, outs := failureCases(f)
	for i, o := range outs {
		f.Add(cmds[i%len(cmds)], o, []int{1, -1, -2}[i%3])
	}
	f.Fuzz(func(t *testing.T, line, out string, exit int) {
		c := &parser.Call{Tool: "Bash", Kind: parser.KindShell, Command: line, Output: out, Exit: &exit}
		switch {
		case exit == -1:
			// A transcript that records no status (SWE-agent's).
			c.Exit, c.Unrecorded = nil, true
		case exit == -2:
			// A code cell, the line its code.
			c.Tool, c.Kind, c.Command, c.Exit = "execute_ipython_cell", parser.KindOther, "", nil
			c.Args = map[string]string{"code": line}
		}
		var cmd *shell.Command
		if c.Kind == parser.KindShell {
			cmd = shell.Parse(line)
		}
		d := Call(c, cmd)
		if d == nil {
			return
		}
		if utf8.RuneCountInString(d.Message) > 200 {
			t.Errorf("message of %d runes", utf8.RuneCountInString(d.Message))
		}
		if utf8.ValidString(out) && !utf8.ValidString(d.Message) {
			t.Errorf("invalid UTF-8 message %q from valid output", d.Message)
		}
		if ex := d.ExcerptOf(out); len(ex) > MaxExcerpt {
			t.Errorf("excerpt of %d lines", len(ex))
		}
	})
}

// FuzzAttributed holds attributed, which rules an output out by the names
// of the programs, to the expression it stands in front of: the lines in
// which a program names itself are the same.
func FuzzAttributed(f *testing.F) {
	_, outs := failureCases(f)
	for i, o := range outs {
		f.Add(o, []string{"cp", "git", "cd", "python3", "make"}[i%5])
	}
	f.Add("bash: line 1: cd: x: No such file or directory\n", "cd")
	f.Add("(eval):cd:1: no such file or directory: x", "cd")
	f.Fuzz(func(t *testing.T, out, prog string) {
		named := func(all [][]int) (lines []string) {
			for _, m := range all {
				if out[m[2]:m[3]] == prog {
					lines = append(lines, out[m[0]:m[1]])
				}
			}
			return lines
		}
		want := named(attributedRE.FindAllStringSubmatchIndex(out, -1))
		got := named(attributed(out, slices.Values([]string{prog})))
		if !slices.Equal(got, want) {
			t.Errorf("attributed(%q, %q) = %q, the expression finds %q", out, prog, got, want)
		}
	})
}
