package analyzer

import (
	"math"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rogpeppe/go-internal/txtar"

	"github.com/retrace-dev/retrace/parser"
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

// FuzzParseCommand checks that no command line makes the shell reading
// panic, hang or take more than 64 MiB of stack, and that it is
// deterministic.
func FuzzParseCommand(f *testing.F) {
	cmds, _ := failureCases(f)
	for _, c := range cmds {
		f.Add(c)
	}
	f.Add(`ssh -p 22 h "bash -lc 'cd /x && sudo -u u env A=1 timeout 5 python3 -m pkg.mod --a 1 | tail'"`)
	f.Add(`powershell -Command "& 'C:\x y\a.exe' --b | Out-Null"`)
	// Nested as deep as the shell parser is let go, and deeper.
	f.Add(strings.Repeat("( ", 100) + "make" + strings.Repeat(" )", 100))
	f.Add(strings.Repeat("$(", 101) + strings.Repeat(")", 101))
	f.Add("echo $((" + strings.Repeat("(", 2000) + "1" + strings.Repeat(")", 2000) + "))")
	f.Add("[[ " + strings.Repeat("! ", 2000) + "a ]]")
	f.Add("python" + strings.Repeat(" -mpython", 100))
	f.Fuzz(func(t *testing.T, line string) {
		defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
		a, b := ParseCommand(line), ParseCommand(line)
		if a.Target != b.Target || strings.Join(a.Args, "\x00") != strings.Join(b.Args, "\x00") {
			t.Fatalf("ParseCommand(%q) is not deterministic", line)
		}
		_ = diffCommands(a, b)
	})
}

// FuzzDiagnose checks that no output makes failure detection panic, and
// that what it reports is bounded, valid text.
func FuzzDiagnose(f *testing.F) {
	cmds, outs := failureCases(f)
	for i, o := range outs {
		f.Add(cmds[i%len(cmds)], o, 1)
	}
	f.Fuzz(func(t *testing.T, line, out string, exit int) {
		c := &parser.Call{Tool: "Bash", Kind: parser.KindShell, Command: line, Output: out, Exit: &exit}
		d := Diagnose(c, ParseCommand(line))
		if d == nil {
			return
		}
		if utf8.RuneCountInString(d.Message) > 201 {
			t.Errorf("message of %d runes", utf8.RuneCountInString(d.Message))
		}
		if utf8.ValidString(out) && !utf8.ValidString(d.Message) {
			t.Errorf("invalid UTF-8 message %q from valid output", d.Message)
		}
		f := &Failure{call: c, Category: d.Category, Message: d.Message, Exception: d.Exception}
		if len(f.Excerpt()) > maxExcerpt {
			t.Errorf("excerpt of %d lines", len(f.Excerpt()))
		}
	})
}

// FuzzExtractBench checks that benchmark extraction never panics and gives
// finite numbers with a unit and a label.
func FuzzExtractBench(f *testing.F) {
	_, outs := failureCases(f)
	for _, o := range outs {
		f.Add(o)
	}
	f.Add("Concurrency | Total tok/s\n1 | 87.1\n=== C 4 ===\nAverage: 71.1 tok/s at batch 8")
	f.Fuzz(func(t *testing.T, out string) {
		for _, b := range extractBench(out) {
			if math.IsNaN(b.Value) || math.IsInf(b.Value, 0) || b.Unit == "" || b.Label == "" {
				t.Errorf("bad number %+v", b)
			}
		}
	})
}
