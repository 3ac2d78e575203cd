package main

import (
	"bytes"
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/retrace-dev/retrace/parser"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

// TestDeterministic checks that the same flags write the same files, byte
// for byte.
func TestDeterministic(t *testing.T) {
	for _, single := range []bool{false, true} {
		format := "mixed"
		if single {
			format = "claude-code"
		}
		var dirs [2]string
		for i := range dirs {
			dirs[i] = t.TempDir()
			if _, err := generate(options{dir: dirs[i], format: format, size: 2e6, seed: 7, single: single}); err != nil {
				t.Fatal(err)
			}
		}
		a, b := readTree(t, dirs[0]), readTree(t, dirs[1])
		if len(a) == 0 || len(a) != len(b) {
			t.Fatalf("single=%v: %d and %d files", single, len(a), len(b))
		}
		for name, data := range a {
			if !bytes.Equal(data, b[name]) {
				t.Errorf("single=%v: %s differs between two runs", single, name)
			}
		}
	}
}

// TestParses checks that every file written reads as the format it was
// written in, with no malformed record, and with one call per tool step
// of its session.
func TestParses(t *testing.T) {
	for _, tt := range []options{
		{format: "mixed", size: 8e6, seed: 1},
		{format: "claude-code", size: 1e6, seed: 2, single: true},
		{format: "codex", size: 5e5, seed: 3, single: true},
	} {
		tt.dir = t.TempDir()
		files, err := generate(tt)
		if err != nil {
			t.Fatal(err)
		}
		var total int64
		seen := map[string]bool{}
		for _, f := range files {
			seen[f.format] = true
			total += f.size
			data, err := os.ReadFile(f.path)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(data)) != f.size {
				t.Errorf("%s: %d bytes on disk, %d reported", f.path, len(data), f.size)
			}
			s, err := parser.Parse(bytes.NewReader(data), f.path, nil)
			if err != nil {
				t.Fatalf("%s: %v", f.path, err)
			}
			if s.Format != f.format || len(s.Calls) != f.calls || len(s.Skipped) > 0 {
				t.Errorf("%s: read as %s with %d calls and %d skipped records, want %s with %d calls", f.path, s.Format, len(s.Calls), len(s.Skipped), f.format, f.calls)
			}
		}
		if total < tt.size {
			t.Errorf("%+v: %d bytes written", tt, total)
		}
		if tt.format == "mixed" && len(seen) != len(writers) {
			t.Errorf("mixed corpus has formats %v, want all %d", seen, len(writers))
		}
		if tt.single && len(files) != 1 {
			t.Errorf("-single wrote %d files", len(files))
		}
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"1GB": 1e9, "500MB": 5e8, "64KiB": 65536, "1.5GiB": 3 << 29, "12": 12, "3kB": 3000} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "MB", "-1GB", "ten"} {
		if _, err := parseSize(in); err == nil {
			t.Errorf("parseSize(%q) did not fail", in)
		}
	}
}

// readTree returns the files under dir by their relative paths.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		files[rel] = data
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}
