package analyzer

import (
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"

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

// FuzzDiffCommands checks that no two command lines make the comparison
// of a failure and its fix panic.
func FuzzDiffCommands(f *testing.F) {
	cmds, _ := failureCases(f)
	for i, c := range cmds {
		f.Add(c, cmds[(i+1)%len(cmds)])
	}
	f.Fuzz(func(t *testing.T, x, y string) {
		defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
		_ = diffCommands(shell.Parse(x), shell.Parse(y))
		_ = diffCommands(shell.Parse(x), shell.Parse(x))
	})
}
