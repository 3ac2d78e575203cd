package shell

import (
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// caseCommands returns the command lines of the failure cases, to seed
// the fuzzer.
func caseCommands(f *testing.F) []string {
	var cmds []string
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "failures", "*.txtar"))
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if !strings.HasSuffix(af.Name, ".call") {
				continue
			}
			for line := range strings.Lines(string(af.Data)) {
				if c, ok := strings.CutPrefix(strings.TrimSpace(line), "command: "); ok {
					cmds = append(cmds, c)
				}
			}
		}
	}
	return cmds
}

// FuzzParse checks that no command line makes the shell reading
// panic, hang or take more than 64 MiB of stack, and that it is
// deterministic.
func FuzzParse(f *testing.F) {
	cmds := caseCommands(f)
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
	f.Add(`python x.py | sudo`)
	f.Add(`powershell 'Start-Process -FilePath "C:\x\bash.exe" -ArgumentList "-c", "make -j4" -Wait'`)
	f.Add(`pwsh -c "saps -Args , -File"`)
	f.Add(`pwsh -c "Start-Process x -ArgumentList @('a','b c'),'\"d e\"' -Wait"`)
	f.Add(`powershell "Get-WmiObject X | ForEach-Object { $_.SetY(2) }"`)
	f.Add("python3 -c \"from __future__ import x\nimport a.b as c, d; from e import*\"")
	f.Add(`pip install -e '.[dev]' -f https://x Django==4.2 @scope/pkg@1 github.com/a/b@v1 -r req.txt`)
	f.Fuzz(func(t *testing.T, line string) {
		defer debug.SetMaxStack(debug.SetMaxStack(64 << 20))
		a, b := Parse(line), Parse(line)
		if a.Target != b.Target || strings.Join(a.Args, "\x00") != strings.Join(b.Args, "\x00") {
			t.Fatalf("Parse(%q) is not deterministic", line)
		}
		for _, m := range a.InlineImports() {
			if !isIdentifier(m) {
				t.Fatalf("Parse(%q).InlineImports() holds %q, no module name", line, m)
			}
		}
		for _, p := range a.Packages() {
			if p == "" {
				t.Fatalf("Parse(%q).Packages() holds an empty name", line)
			}
		}
	})
}
