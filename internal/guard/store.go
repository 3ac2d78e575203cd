package guard

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// A Store is the file `retrace learn` keeps lessons in: JSON Lines, one
// Lesson per line, and beside it, in the folder "sessions", the guard's
// state for each transcript it has read.
type Store struct {
	Path string
}

// DefaultStore returns the path of the store: lessons.jsonl in
// $XDG_DATA_HOME/retrace, or in ~/.local/share/retrace; "" when neither
// variable holds an absolute path.
func DefaultStore(getenv func(string) string) string {
	dir := getenv("XDG_DATA_HOME")
	if !filepath.IsAbs(dir) {
		home := getenv("HOME")
		if !filepath.IsAbs(home) {
			return ""
		}
		dir = filepath.Join(home, ".local", "share")
	}
	return filepath.Join(dir, "retrace", "lessons.jsonl")
}

// stateDir is the folder of the per-transcript state.
func (st Store) stateDir() string {
	return filepath.Join(filepath.Dir(st.Path), "sessions")
}

// For returns the lessons of the store about target. A store that does
// not exist holds none; lines that are not lessons are skipped.
func (st Store) For(target string) ([]Lesson, error) {
	f, err := os.Open(st.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The prefix is written as Replace writes lines.
	var key bytes.Buffer
	enc := json.NewEncoder(&key)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(target); err != nil {
		return nil, err
	}
	prefix := append(append([]byte(`{"target":`), bytes.TrimSuffix(key.Bytes(), []byte("\n"))...), ',')
	var out []Lesson
	err = eachLine(f, func(line []byte) {
		// Lines are written target first: the others are passed over
		// without being decoded.
		if !bytes.HasPrefix(line, prefix) && bytes.HasPrefix(line, []byte(`{"target":`)) {
			return
		}
		var l Lesson
		if json.Unmarshal(line, &l) == nil && l.Target == target {
			out = append(out, l)
		}
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", st.Path, err)
	}
	return out, nil
}

// Replace replaces the lessons learned from sessions by lessons, keeping
// those of other sessions, and returns how many lessons the store holds.
// The store is written whole to a new file that then takes its name, so
// that a guard reading it never sees half of it.
func (st Store) Replace(sessions []string, lessons []Lesson) (int, error) {
	var buf bytes.Buffer
	n := 0
	f, err := os.Open(st.Path)
	switch {
	case err == nil:
		err = eachLine(f, func(line []byte) {
			var l struct {
				Session *string `json:"session"`
			}
			if json.Unmarshal(line, &l) == nil && l.Session != nil && slices.Contains(sessions, *l.Session) {
				return
			}
			if len(bytes.TrimSpace(line)) > 0 {
				buf.Write(line)
				buf.WriteByte('\n')
				n++
			}
		})
		f.Close()
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", st.Path, err)
		}
	case !errors.Is(err, fs.ErrNotExist):
		return 0, err
	}
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, l := range lessons {
		if err := enc.Encode(l); err != nil {
			return 0, err
		}
		n++
	}
	return n, writeFile(st.Path, buf.Bytes(), 0o644)
}

// eachLine calls use with each line of r, without its newline.
func eachLine(r io.Reader, use func([]byte)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: read the rest of it.
			long := append([]byte(nil), line...)
			for errors.Is(err, bufio.ErrBufferFull) {
				line, err = br.ReadSlice('\n')
				long = append(long, line...)
			}
			line = long
		}
		if len(line) > 0 {
			use(bytes.TrimSuffix(line, []byte("\n")))
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// writeFile writes b to a new file of mode perm in the folder of path,
// which it creates if need be, and renames it to path.
func writeFile(path string, b []byte, perm fs.FileMode) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Chmod(perm)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
