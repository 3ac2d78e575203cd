package main

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/retrace-dev/retrace/internal/pipeline"
)

// An outFile is the file a command writes its output to (report -o). No
// input may be it, and unless forced, neither may an existing file that
// the command did not write before: check refuses both before any input is
// read. write writes to a new file beside it and renames that into place
// once complete, so that the file never holds part of an output, and a
// failed write leaves it as it was.
type outFile struct {
	path  string // as named
	force bool   // replace an existing file that is not an earlier output
	// wrote reports whether head, a file's first KiB, is the start of an
	// output the command wrote.
	wrote func(head []byte) bool
}

// check refuses the output file, before the inputs that paths name and
// stdin, for "-", are read: when it is one of them (see isInput), a
// directory, or, unless forced, an existing file that holds something other
// than an earlier output. An empty file may be replaced. A folder that does
// not exist is an error.
func (o *outFile) check(paths []string, stdin io.Reader) error {
	fi, err := os.Stat(o.path)
	if errors.Is(err, fs.ErrNotExist) {
		if _, err := os.Stat(filepath.Dir(o.path)); err != nil {
			return errors.New(pipeline.PathError(&fs.PathError{Op: "open", Path: o.path, Err: err}))
		}
		return nil // a new file
	}
	if err != nil {
		return errors.New(pipeline.PathError(err))
	}
	switch {
	case isInput(fi, paths, stdin):
		return usageError(fmt.Sprintf("-o %s would overwrite an input", o.path))
	case fi.IsDir():
		return usageError(fmt.Sprintf("-o %s is a directory", o.path))
	case !fi.Mode().IsRegular() || fi.Size() == 0 || o.force:
		return nil
	}
	head, err := readHead(o.path, 1024)
	if err != nil {
		return errors.New(pipeline.PathError(err))
	}
	if !o.wrote(head) {
		return usageError(fmt.Sprintf("%s exists and is not a retrace report; --force overwrites it", o.path))
	}
	return nil
}

// readHead returns the first n bytes of the file at path, or all of a
// shorter one.
func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	head := make([]byte, n)
	m, err := io.ReadFull(f, head)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return head[:m], err
}

// isInput reports whether the file out is one of the inputs paths name: a
// file named, or an SQLite journal beside it; any file under a folder
// named, whether retrace reads it or skips it (a file of no known format,
// one --since leaves out, a database of an opencode data folder), and the
// file a link found there points to; or, for "-", standard input when it
// is a regular file. Files are compared by identity, so that no other name
// (a link, a hard link, a relative path) gets past.
func isInput(out fs.FileInfo, paths []string, stdin io.Reader) bool {
	same := func(path string) bool {
		fi, err := os.Stat(path)
		return err == nil && os.SameFile(fi, out)
	}
	for _, p := range paths {
		if p == "-" {
			if f, ok := stdin.(interface{ Stat() (fs.FileInfo, error) }); ok {
				fi, err := f.Stat()
				if err == nil && fi.Mode().IsRegular() && os.SameFile(fi, out) {
					return true
				}
			}
			continue
		}
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue
		case !fi.IsDir():
			if os.SameFile(fi, out) || same(p+"-wal") || same(p+"-shm") || same(p+"-journal") {
				return true
			}
			continue
		}
		found := false
		filepath.WalkDir(p+string(filepath.Separator), func(path string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && same(path) {
				found = true
				return filepath.SkipAll
			}
			return nil
		})
		if found {
			return true
		}
	}
	return false
}

// write writes the output with write. A regular file, new or replaced (the
// file a link points to, for a link), is written as a new file in its
// folder, with the mode of the one it replaces, synced, and renamed over it
// once complete; on any error the new file is removed. A device or a pipe
// (/dev/stdout) is written to as it is.
func (o *outFile) write(write func(io.Writer) error) (err error) {
	fi, statErr := os.Stat(o.path)
	if statErr == nil && !fi.Mode().IsRegular() {
		f, err := os.OpenFile(o.path, os.O_WRONLY, 0)
		if err != nil {
			return errors.New(pipeline.PathError(err))
		}
		return errors.Join(write(f), f.Close())
	}
	target := o.path
	if statErr == nil {
		if target, err = filepath.EvalSymlinks(o.path); err != nil {
			return errors.New(pipeline.PathError(err))
		}
	}
	tmp, err := createBeside(target)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if statErr == nil {
		if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
			return err
		}
	}
	if err := write(tmp); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), target)
}

// createBeside creates a new, hidden file in the folder of path, to be
// renamed to path, with the mode a new file gets (0666 less the umask),
// which os.CreateTemp does not give. Its name says which file it is for
// and that retrace wrote it: .pm.md.retrace-7KX2….
func createBeside(path string) (*os.File, error) {
	dir, name := filepath.Split(path)
	tmp := filepath.Join(dir, "."+name+".retrace-"+rand.Text())
	f, err := os.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			pe.Path = path // not the name of a file that never was
		}
		return nil, errors.New(pipeline.PathError(err))
	}
	return f, nil
}
