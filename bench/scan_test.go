package bench

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// scanSeeds returns lines to compare the scanners with the expressions on.
func scanSeeds(t testing.TB) []string {
	lines := []string{"", "1", "-", "-1", "+1.5", "−3", "−", "1,234.5", "12,345,678", "1234,567", "1,2345", "1,23",
		"123,45,678", "1.", "1.2.3", "1,234567", "-1,234.5", "+12", "−12", "12a", "a1b22c333", "x -5-10ms", "a | b", "a  b", "a\tb", "a \tb", " | ", "|", "a\t\tb  |  c",
		"\t", "  ", "a\n\nb", "1,234,", "-,123", "5,678.9.0",
		"1e5", "1e", "1e+", "1e-", "1e-3ms", "2.5E+03", "1,234e5", "−1e5", "1.e5", "1e5.5", "e5", "1ee5", "1e+-5", "1E6 ops/s"}
	for _, s := range caseOutputs(t) {
		lines = append(lines, strings.Split(s, "\n")...)
	}
	return lines
}

// caseOutputs returns the outputs of the failure and benchmark cases.
func caseOutputs(t testing.TB) []string {
	var outs []string
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "failures", "*.txtar"))
	more, _ := filepath.Glob(filepath.Join("..", "testdata", "bench", "*.txtar"))
	for _, file := range append(files, more...) {
		a, err := txtar.ParseFile(file)
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range a.Files {
			if strings.HasSuffix(f.Name, ".out") {
				outs = append(outs, string(f.Data))
			}
		}
	}
	return outs
}

func TestScanners(t *testing.T) {
	for _, l := range scanSeeds(t) {
		checkScanners(t, l)
	}
}

func FuzzScanners(f *testing.F) {
	for _, l := range scanSeeds(f) {
		f.Add(l)
	}
	f.Fuzz(checkScanners)
}

func checkScanners(t *testing.T, line string) {
	if got, want := numberRuns(line), numberRunRE.FindAllStringIndex(line, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("numberRuns(%q) = %v, numberRunRE finds %v", line, got, want)
	}
	if got, want := isCellNumber(line), cellNumberRE.MatchString(line); got != want {
		t.Fatalf("isCellNumber(%q) = %v, cellNumberRE says %v", line, got, want)
	}
	if got, want := splitCellsOf(line), cellSplitRE.Split(line, -1); !reflect.DeepEqual(got, want) {
		t.Fatalf("splitCellsOf(%q) = %q, cellSplitRE gives %q", line, got, want)
	}
}
