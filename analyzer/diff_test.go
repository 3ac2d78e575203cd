package analyzer

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

func TestDiffCommands(t *testing.T) {
	tests := []struct {
		name          string
		failed, fixed string
		want          Diff
	}{
		{
			name:   "rename by equal value",
			failed: "python b.py --server-url http://localhost:8000 --max-tokens 500 --num-prompts 5 --warmup 1",
			fixed:  "python b.py --server-url http://localhost:8000 --max-tokens 500 --num-runs 5 --warmup 1",
			want:   Diff{Renamed: []Rename{{From: "--num-prompts", To: "--num-runs", FromValue: "5", ToValue: "5", By: "value"}}},
		},
		{
			name:   "renames by value and by containment",
			failed: "python b.py --port 30000 --num-prompts 5 --output-len 256",
			fixed:  "python b.py --server-url http://localhost:30000 --max-tokens 256 --num-runs 5",
			want: Diff{Renamed: []Rename{
				{From: "--num-prompts", To: "--num-runs", FromValue: "5", ToValue: "5", By: "value"},
				{From: "--output-len", To: "--max-tokens", FromValue: "256", ToValue: "256", By: "value"},
				{From: "--port", To: "--server-url", FromValue: "30000", ToValue: "http://localhost:30000", By: "containment"},
			}},
		},
		{
			name:   "rename with the value changed too",
			failed: "python b.py --num-prompts 5",
			fixed:  "python b.py --num-runs 10",
			want:   Diff{Renamed: []Rename{{From: "--num-prompts", To: "--num-runs", FromValue: "5", ToValue: "10", By: "name"}}},
		},
		{
			name:   "equal values prefer the closer name",
			failed: "python b.py --num-request 5",
			fixed:  "python b.py --warmup 5 --num-requests 5",
			want: Diff{
				Renamed: []Rename{{From: "--num-request", To: "--num-requests", FromValue: "5", ToValue: "5", By: "value"}},
				Added:   []string{"--warmup 5"},
			},
		},
		{
			name:   "containment is whole: 5 is not in 8005",
			failed: "./bench --n 5",
			fixed:  "./bench --port 8005",
			want:   Diff{Removed: []string{"--n 5"}, Added: []string{"--port 8005"}},
		},
		{
			name:   "value changed, flag kept",
			failed: "python manage.py migrate --database replica",
			fixed:  "python manage.py migrate --database analytics",
			want:   Diff{Changed: []Change{{Flag: "--database", From: "replica", To: "analytics"}}},
		},
		{
			name:   "equals form",
			failed: "go test -run=TestA ./...",
			fixed:  "go test -run=TestB ./...",
			want:   Diff{Changed: []Change{{Flag: "-run", From: "TestA", To: "TestB"}}},
		},
		{
			name:   "long equals form",
			failed: "pytest --maxfail=1 tests",
			fixed:  "pytest --maxfail=3 tests",
			want:   Diff{Changed: []Change{{Flag: "--maxfail", From: "1", To: "3"}}},
		},
		{
			name:   "positional arguments and a dropped flag",
			failed: "python x.py data/a.csv --fast",
			fixed:  "python x.py data/b.csv",
			want:   Diff{Removed: []string{"--fast", "data/a.csv"}, Added: []string{"data/b.csv"}},
		},
		{
			name:   "environment",
			failed: "python train.py",
			fixed:  "CUDA_VISIBLE_DEVICES=0 python train.py",
			want:   Diff{Added: []string{"CUDA_VISIBLE_DEVICES=0"}},
		},
		{
			name:   "negative numbers are values",
			failed: "python x.py --offset -5 --scale 2",
			fixed:  "python x.py --offset -3 --scale 2",
			want:   Diff{Changed: []Change{{Flag: "--offset", From: "-5", To: "-3"}}},
		},
		{
			name:   "a word after a flag cluster that proves positional",
			failed: `pytest -xvs specs/cli_spec.py::it_shows_books -k "never_opened"`,
			fixed:  `pytest -xvs -k "never_opened"`,
			want:   Diff{Removed: []string{"specs/cli_spec.py::it_shows_books"}},
		},
		{
			name:   "a dropped flag took no value: the word after it stays",
			failed: "acme publish --yes ./site",
			fixed:  "acme publish ./site",
			want:   Diff{Removed: []string{"--yes"}},
		},
		{
			name:   "an added flag took no value",
			failed: "grep TODO src/main.go",
			fixed:  "grep -n TODO src/main.go",
			want:   Diff{Added: []string{"-n"}},
		},
		{
			name:   "another wrapper",
			failed: `cmd.exe /c "ipconfig /all"`,
			fixed:  `powershell.exe -Command "ipconfig /all"`,
			want:   Diff{Wrapper: &WrapperChange{From: "cmd.exe /c", To: "powershell.exe -Command"}},
		},
		{
			name:   "a wrapper added",
			failed: "cat /etc/shadow",
			fixed:  "sudo cat /etc/shadow",
			want:   Diff{Wrapper: &WrapperChange{To: "sudo"}},
		},
		{
			name:   "the script on standard input rewritten",
			failed: "python3 - <<'EOF'\nimport json\nyear = int(row[0])\nprint(year)\nEOF",
			fixed:  "python3 - <<'EOF'\nimport json\n  year = str(row[0]).strip()\nprint(year)\nprint('done')\nEOF",
			want: Diff{Input: &InputChange{RemovedLines: 1, AddedLines: 2,
				Removed: []string{"year = int(row[0])"}, Added: []string{"year = str(row[0]).strip()", "print('done')"}}},
		},
		{
			name:   "the same script reindented",
			failed: "python3 - <<'EOF'\nif x:\n  print(x)\nEOF",
			fixed:  "python3 - <<'EOF'\nif x:\n    print(x)\nEOF",
			want:   Diff{},
		},
		{
			name:   "the script's lines reordered",
			failed: "python3 - <<'EOF'\nprint(math.pi)\nimport math\nEOF",
			fixed:  "python3 - <<'EOF'\nimport math\nprint(math.pi)\nEOF",
			want: Diff{Input: &InputChange{RemovedLines: 2, AddedLines: 2,
				Removed: []string{"print(math.pi)", "import math"}, Added: []string{"import math", "print(math.pi)"}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := diffCommands(shell.Parse(tt.failed), shell.Parse(tt.fixed))
			want := Diff{Renamed: nonNilRenames(tt.want.Renamed), Removed: nonNil(tt.want.Removed), Added: nonNil(tt.want.Added), Changed: nonNilChanges(tt.want.Changed),
				Wrapper: tt.want.Wrapper, Input: tt.want.Input}
			if diff := cmp.Diff(&want, got); diff != "" {
				t.Errorf("diff (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDiffInputs checks the diff of a tool call's inputs: the argument it
// lacked and added, a value changed, each by its name.
func TestDiffInputs(t *testing.T) {
	failed := &parser.Call{Tool: "write_file", Args: map[string]string{"content": "print(1)", "mode": "w"}}
	fixed := &parser.Call{Tool: "write_file", File: "/app/hello.py", Args: map[string]string{"content": "print(2)"}}
	want := &Diff{Renamed: []Rename{}, Removed: []string{"mode=w"}, Added: []string{"file=/app/hello.py"},
		Changed: []Change{{Flag: "content", From: "print(1)", To: "print(2)"}}}
	if diff := cmp.Diff(want, diffInputs(failed, fixed)); diff != "" {
		t.Errorf("diffInputs (-want +got):\n%s", diff)
	}
}

func nonNilRenames(r []Rename) []Rename {
	if r == nil {
		return []Rename{}
	}
	return r
}

func nonNilChanges(c []Change) []Change {
	if c == nil {
		return []Change{}
	}
	return c
}

func TestSimilarity(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		min  float64
		max  float64
	}{
		{"--num-prompts", "--num-runs", 0.5, 0.6},
		{"--num-request", "--num-requests", 0.9, 1},
		{"--port", "--server-url", 0, 0.3},
	} {
		if got := similarity(tt.a, tt.b); got < tt.min || got > tt.max {
			t.Errorf("similarity(%q, %q) = %.2f, want in [%.2f, %.2f]", tt.a, tt.b, got, tt.min, tt.max)
		}
	}
}
