package main

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A fileState is what retrace must leave as it found: a file's or a
// directory's mode, size, time of last change and contents.
type fileState struct {
	Mode    fs.FileMode
	Size    int64
	ModTime time.Time
	Sum     [sha256.Size]byte
}

// snapshot records the state of everything under root, root included.
func snapshot(t *testing.T, root string) map[string]fileState {
	t.Helper()
	states := make(map[string]fileState)
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		st := fileState{Mode: fi.Mode(), ModTime: fi.ModTime()}
		if fi.Mode().IsRegular() {
			data, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			st.Size, st.Sum = fi.Size(), sha256.Sum256(data)
		}
		states[path] = st
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// readOnlyInputs fills dir with transcripts to read: the seeds, malformed
// ones, a compressed one, files that are not transcripts, a nested folder,
// and a Claude Code home for the default locations. Every time is set in
// the past, so that a write, even of the same bytes, shows.
func readOnlyInputs(t *testing.T, dir string) {
	t.Helper()
	seeds, err := filepath.Glob(filepath.Join("..", "..", "testdata", "seeds", "*"))
	if err != nil || len(seeds) == 0 {
		t.Fatalf("no seeds: %v", err)
	}
	write := func(name string, data []byte) {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, s := range seeds {
		data, err := os.ReadFile(s)
		if err != nil {
			t.Fatal(err)
		}
		write(filepath.Join("seeds", filepath.Base(s)), data)
		if filepath.Base(s) == "claude-code.jsonl" {
			var gz bytes.Buffer
			zw := gzip.NewWriter(&gz)
			zw.Write(data)
			zw.Close()
			write("seeds/compressed/claude-code.jsonl.gz", gz.Bytes())
			write("home/.claude/projects/-srv-app/session.jsonl", data)
			lines := strings.SplitAfter(string(data), "\n")
			write("bad/truncated.jsonl", []byte(strings.Join(lines[:len(lines)/2], "")+lines[len(lines)/2][:40]))
			write("bad/garbled.jsonl", []byte(strings.Join(lines[:5], "")+"not json \x00\xff\x1b[2J\n"+strings.Join(lines[5:], "")))
		}
	}
	write("bad/empty.jsonl", nil)
	write("bad/package.json", []byte(`{"name": "app", "version": "1.0.0"}`+"\n"))
	write("bad/shot.png", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01"))
	write("bad/notes.txt", []byte("not a transcript\n"))
	old := time.Date(2020, 1, 2, 3, 4, 5, 0, time.UTC)
	err = filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Chtimes(path, old, old)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestReadOnly runs every command, in every output format, over a
// directory of transcripts, and checks that retrace wrote nothing: every
// input keeps its contents, mode and time, and no file appears in the input
// directory or in the working directory, except the one report -o names.
func TestReadOnly(t *testing.T) {
	in, wd := t.TempDir(), t.TempDir()
	readOnlyInputs(t, in)
	t.Chdir(wd)
	seeds := filepath.Join(in, "seeds")
	claude := filepath.Join(seeds, "claude-code.jsonl")
	runs := [][]string{
		{in}, {"formats"}, {"formats", "-f", "json"},
		{"show", claude}, {"show", claude, "33"}, {"show", "-f", "json", claude},
		{"show", filepath.Join(seeds, "opencode.json")}, {"show", filepath.Join(seeds, "transcript.txt")},
		{"show", filepath.Join(in, "bad", "garbled.jsonl")},
		{"report", in}, {"report", "-f", "html", in},
		{"errors", "-i", "claude-code", in}, {"errors", "--since", "2019-01-01", in}, {"errors", "-"},
		{"bench", "--runs", in}, {"bench", "--failed", in}, {"pairs", "--unresolved", "-f", "json", in},
		{"lessons", "--min-count", "2", in}, {"errors", "--redact-hosts", in}, {"errors", "--no-redact", in},
	}
	for _, cmd := range []string{"summary", "errors", "pairs", "bench", "lessons"} {
		for _, f := range []string{"table", "json", "jsonl", "csv", "markdown"} {
			if f == "csv" && (cmd == "summary" || cmd == "lessons") || f == "markdown" && cmd != "lessons" {
				continue
			}
			runs = append(runs, []string{cmd, "-f", f, in})
		}
	}
	before, here := snapshot(t, in), snapshot(t, wd)
	check := func(t *testing.T) {
		t.Helper()
		if diff := cmp.Diff(before, snapshot(t, in)); diff != "" {
			t.Errorf("the inputs changed (-before +after):\n%s", diff)
		}
		if diff := cmp.Diff(here, snapshot(t, wd)); diff != "" {
			t.Errorf("the working directory changed (-before +after):\n%s", diff)
		}
	}
	for _, args := range runs {
		t.Run(strings.ReplaceAll(strings.Join(args, " "), in, "IN"), func(t *testing.T) {
			stdin, err := os.ReadFile(claude)
			if err != nil {
				t.Fatal(err)
			}
			env := &Env{Stdin: bytes.NewReader(stdin), Getenv: func(k string) string {
				if k == "HOME" {
					return filepath.Join(in, "home")
				}
				return ""
			}}
			status, stdout, stderr := run1(t, env, args...)
			if status != 0 && status != 1 || stdout == "" {
				t.Fatalf("status %d, %d bytes of output: %s", status, len(stdout), stderr)
			}
			check(t)
		})
	}

	// With no PATH, the default locations are read, and not written.
	t.Run("default locations", func(t *testing.T) {
		env := &Env{Getenv: func(k string) string {
			if k == "HOME" {
				return filepath.Join(in, "home")
			}
			return ""
		}}
		if status, stdout, stderr := run1(t, env, "errors"); status != 0 || stdout == "" {
			t.Fatalf("status %d: %s", status, stderr)
		}
		check(t)
	})

	// report -o writes the one file it names, and only that.
	t.Run("report -o", func(t *testing.T) {
		for _, out := range []string{"pm.md", filepath.Join(wd, "pm.html")} {
			if status, _, stderr := run1(t, &Env{}, "report", "-o", out, in); status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			after := snapshot(t, wd)
			path := filepath.Join(wd, filepath.Base(out))
			if _, ok := after[path]; !ok || len(after) != len(here)+1 {
				t.Errorf("report -o %s: the working directory holds %d entries, want %d with %s", out, len(after), len(here)+1, path)
			}
			if err := os.Remove(path); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(before, snapshot(t, in)); diff != "" {
				t.Errorf("the inputs changed (-before +after):\n%s", diff)
			}
			here = snapshot(t, wd) // the directory's time, changed by the test's own removal
		}
	})

	// Nor may -o name an input, even by another path.
	t.Run("report -o input", func(t *testing.T) {
		rel, err := filepath.Rel(wd, claude)
		if err != nil {
			t.Fatal(err)
		}
		for _, out := range []string{claude, rel} {
			status, _, stderr := run1(t, &Env{}, "report", "-o", out, claude)
			if status != 2 || !strings.Contains(stderr, "would overwrite an input") {
				t.Errorf("report -o %s: status %d, stderr %q; want a usage error", out, status, stderr)
			}
		}
		check(t)
	})
}

// TestReadOnlyOutputInInputs names as report -o a transcript that is read
// by way of its directory, or through a link: retrace must refuse, as it
// does when -o names an input itself.
func TestReadOnlyOutputInInputs(t *testing.T) {
	in := t.TempDir()
	readOnlyInputs(t, in)
	t.Chdir(t.TempDir())
	claude := filepath.Join(in, "seeds", "claude-code.jsonl")
	link := filepath.Join(in, "link.jsonl")
	if err := os.Symlink(claude, link); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, in)
	for _, args := range [][]string{
		{"report", "-o", claude, filepath.Join(in, "seeds")},
		{"report", "-o", claude, in},
		{"report", "-o", link, claude},
	} {
		status, _, stderr := run1(t, &Env{}, args...)
		if status != 2 || !strings.Contains(stderr, "would overwrite an input") {
			t.Errorf("%s: status %d, stderr %q; want a usage error", strings.ReplaceAll(strings.Join(args, " "), in, "IN"), status, stderr)
		}
	}
	if diff := cmp.Diff(before, snapshot(t, in)); diff != "" {
		t.Errorf("the inputs changed (-before +after):\n%s", diff)
	}
}
