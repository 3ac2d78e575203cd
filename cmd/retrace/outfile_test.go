package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// names lists the entries of dir.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// earlierReport writes an earlier report at dir/name.
func earlierReport(t *testing.T, dir, name string) (string, string) {
	t.Helper()
	path := filepath.Join(dir, name)
	old := "<!-- Written by retrace report. -->\n# Post-mortem: 3 sessions\n\nthe earlier one\n"
	if err := os.WriteFile(path, []byte(old), 0o640); err != nil {
		t.Fatal(err)
	}
	return path, old
}

func isOld(head []byte) bool {
	return strings.HasPrefix(string(head), "<!-- Written by retrace report. -->\n")
}

// TestOutFileWriteError fails a write half-way: the earlier report is as
// it was, and no other file is left in its folder.
func TestOutFileWriteError(t *testing.T) {
	dir := t.TempDir()
	path, old := earlierReport(t, dir, "pm.md")
	o := &outFile{path: path, wrote: isOld}
	if err := o.check([]string{"x.jsonl"}, nil); err != nil {
		t.Fatal(err)
	}
	err := o.write(func(w io.Writer) error {
		io.WriteString(w, "# Post-mortem: 1 sess")
		return errors.New("no space left on device")
	})
	if err == nil || !strings.Contains(err.Error(), "no space left") {
		t.Errorf("write = %v, want the writer's error", err)
	}
	if data, _ := os.ReadFile(path); string(data) != old {
		t.Errorf("the earlier report now holds %q", data)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"pm.md"}) {
		t.Errorf("the folder holds %q, want only pm.md", got)
	}
}

// TestOutFileReplace replaces an earlier report: the file is a new one
// renamed into place, not the old one truncated (a reader of the old one
// reads it whole), with the old one's mode; through a link, the file the
// link points to is replaced and the link stays.
func TestOutFileReplace(t *testing.T) {
	dir := t.TempDir()
	path, old := earlierReport(t, dir, "pm.md")
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	reader, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	o := &outFile{path: path, wrote: isOld}
	if err := o.check(nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := o.write(func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "new\n" {
		t.Errorf("the report holds %q, want the new one", data)
	}
	if os.SameFile(before, after) {
		t.Error("the earlier report was written over in place, not replaced")
	}
	if after.Mode() != before.Mode() {
		t.Errorf("mode %v, want the earlier report's %v", after.Mode(), before.Mode())
	}
	if data, _ := io.ReadAll(reader); string(data) != old {
		t.Errorf("a reader of the earlier report read %q", data)
	}
	if got := names(t, dir); !slices.Equal(got, []string{"pm.md"}) {
		t.Errorf("the folder holds %q, want only pm.md", got)
	}

	link := filepath.Join(dir, "link.md")
	if err := os.Symlink("pm.md", link); err != nil {
		t.Fatal(err)
	}
	o = &outFile{path: link, wrote: func([]byte) bool { return true }}
	if err := o.write(func(w io.Writer) error { _, err := io.WriteString(w, "through the link\n"); return err }); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(path); string(data) != "through the link\n" {
		t.Errorf("the file the link points to holds %q", data)
	}
}

// TestOutFileNewMode checks that a new report gets the mode os.Create
// gives, not os.CreateTemp's 0600.
func TestOutFileNewMode(t *testing.T) {
	dir := t.TempDir()
	f, err := os.Create(filepath.Join(dir, "created"))
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	want, _ := os.Stat(f.Name())
	o := &outFile{path: filepath.Join(dir, "pm.md")}
	if err := o.write(func(w io.Writer) error { return nil }); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.Stat(o.path); got.Mode() != want.Mode() {
		t.Errorf("mode %v, want %v", got.Mode(), want.Mode())
	}
}
