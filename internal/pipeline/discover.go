package pipeline

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/retrace-dev/retrace/parser"
)

// stdinName is how standard input is named in messages and reports.
const stdinName = "<stdin>"

// A source is one transcript to read.
type source struct {
	name     string // as shown in messages: the path, or "<stdin>"
	explicit bool   // named on the command line, rather than found in a directory
	opencode bool   // an opencode data folder or database, of many sessions
}

// expand turns the paths into the transcripts to read, walking folders in
// lexical order and passing over those whose name starts with a dot. A
// path is taken as it is: no pattern in it is expanded. Paths that cannot
// be read are told. Files found in folders that were last written before
// the period are passed over unread.
func (t *teller) expand(paths []string, per Period) []source {
	var sources []source
	for _, p := range paths {
		if p == "-" {
			sources = append(sources, source{name: stdinName, explicit: true})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			t.fail("%s", PathError(err))
			continue
		}
		if parser.IsOpencodeData(p) {
			sources = append(sources, source{name: p, explicit: true, opencode: true})
			continue
		}
		if !fi.IsDir() {
			sources = append(sources, source{name: p, explicit: true})
			continue
		}
		root := p
		if li, err := os.Lstat(p); err == nil && li.Mode()&fs.ModeSymlink != 0 {
			root += string(filepath.Separator) // a link to a directory: walk what it points to
		}
		err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				t.fail("%s", PathError(err))
				return nil
			}
			if d.IsDir() {
				if path != root && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir // .git and the like
				}
				if path != root && parser.IsOpencodeData(path) {
					sources = append(sources, source{name: path, opencode: true})
					return filepath.SkipDir
				}
				return nil
			}
			if !d.Type().IsRegular() {
				return nil
			}
			if !per.Since.IsZero() {
				if fi, err := d.Info(); err == nil && fi.ModTime().Before(per.Since) {
					return nil
				}
			}
			sources = append(sources, source{name: path})
			return nil
		})
		if err != nil {
			t.fail("%s", PathError(err))
		}
	}
	return sources
}

// sqliteCompanion reports whether the file name is the write-ahead log,
// shared-memory index or rollback journal SQLite keeps beside a database.
func sqliteCompanion(name string) bool {
	for _, suffix := range []string{"-wal", "-shm", "-journal"} {
		if db, ok := strings.CutSuffix(name, suffix); ok && parser.IsSQLite(db) {
			return true
		}
	}
	return false
}

// PathError words a file system error the way ls and cat do:
// "name: no such file or directory".
func PathError(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg := pe.Err.Error()
		if errors.Is(pe.Err, fs.ErrNotExist) {
			msg = "no such file or directory"
		} else if errors.Is(pe.Err, fs.ErrPermission) {
			msg = "permission denied"
		}
		return pe.Path + ": " + msg
	}
	return err.Error()
}
