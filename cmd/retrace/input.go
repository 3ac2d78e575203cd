package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// inputs are the transcript arguments of every analysis command.
type inputs struct {
	Paths       []string `arg:"" optional:"" name:"path" help:"Transcript files or directories (searched recursively); \"-\" reads standard input. With none, the agents' default locations are read."`
	InputFormat string   `name:"input-format" short:"i" default:"auto" enum:"${input_formats}" help:"Read every input as this format (${enum}); auto recognizes each from its content."`
}

// A source is one transcript to read.
type source struct {
	name     string // as shown in messages: the path, or "<stdin>"
	explicit bool   // named on the command line, rather than found in a directory
}

// A result is what reading one source gave.
type result struct {
	report *analyzer.SessionReport // nil if nothing could be read
	err    error
}

// maxWarnings bounds the malformed-record warnings printed per file.
const maxWarnings = 10

// load reads and analyzes the transcripts the arguments name. Problems with
// some inputs are printed on stderr and make it return errPartial along with
// the report of the rest.
func (in *inputs) load(g *Globals, env *Env) (*analyzer.Report, error) {
	w := &warner{w: env.Stderr, quiet: g.Quiet}
	paths := in.Paths
	if len(paths) == 0 {
		var err error
		if paths, err = defaultPaths(env, w); err != nil {
			return nil, err
		}
	}
	sources := w.expand(paths)
	var format *parser.Format
	if in.InputFormat != "auto" {
		format = parser.Lookup(in.InputFormat)
	}
	results := readAll(sources, format, env.Stdin)

	var reports []*analyzer.SessionReport
	unknown := 0
	for i, r := range results {
		src := sources[i]
		switch {
		case errors.Is(r.err, parser.ErrBinary) && !src.explicit:
			w.warn("%s: skipped: binary file", src.name)
			continue
		case (errors.Is(r.err, parser.ErrUnknownFormat) || errors.Is(r.err, parser.ErrEmpty)) && !src.explicit:
			unknown++
			continue
		case errors.Is(r.err, parser.ErrBinary):
			w.fail("%s: binary file, not a transcript", src.name)
		case errors.Is(r.err, parser.ErrUnknownFormat):
			w.fail("%s: not a transcript format retrace knows (see \"retrace formats\"; --input-format names one)", src.name)
		case errors.Is(r.err, parser.ErrEmpty):
			w.fail("%s: empty file", src.name)
		case r.err != nil:
			w.fail("%v", r.err)
		}
		if r.report == nil {
			continue
		}
		s := r.report.Session
		for j, e := range s.Skipped {
			if j == maxWarnings {
				w.warn("%s: %d more malformed records skipped", s.Path, len(s.Skipped)-maxWarnings)
				break
			}
			w.warn("%v", e)
		}
		for _, n := range s.Notes {
			w.warn("%s: %s", s.Path, n)
		}
		reports = append(reports, r.report)
	}
	if unknown > 0 {
		w.warn("retrace: skipped %d files of no known transcript format", unknown)
	}
	if len(reports) == 0 && !w.failed {
		w.fail("retrace: no transcripts found in %s", strings.Join(paths, ", "))
	}
	rep := analyzer.Combine(reports)
	if w.failed {
		return rep, errPartial
	}
	return rep, nil
}

// expand turns the arguments into the transcripts to read, walking
// directories in lexical order. Paths that cannot be read are reported.
func (w *warner) expand(paths []string) []source {
	var sources []source
	for _, p := range paths {
		if p == "-" {
			sources = append(sources, source{name: "<stdin>", explicit: true})
			continue
		}
		fi, err := os.Stat(p)
		if err != nil {
			w.fail("%s", pathError(err))
			continue
		}
		if !fi.IsDir() {
			sources = append(sources, source{name: p, explicit: true})
			continue
		}
		err = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				w.fail("%s", pathError(err))
				return nil
			}
			if d.IsDir() {
				if path != p && strings.HasPrefix(d.Name(), ".") {
					return filepath.SkipDir // .git and the like
				}
				return nil
			}
			if d.Type().IsRegular() {
				sources = append(sources, source{name: path})
			}
			return nil
		})
		if err != nil {
			w.fail("%s", pathError(err))
		}
	}
	return sources
}

// readAll reads the sources in parallel and returns their results in order.
func readAll(sources []source, format *parser.Format, stdin io.Reader) []result {
	results := make([]result, len(sources))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), max(len(sources), 1)) {
		wg.Go(func() {
			for i := range jobs {
				results[i] = read(sources[i], format, stdin)
			}
		})
	}
	for i := range sources {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	return results
}

// read parses and analyzes one source.
func read(src source, format *parser.Format, stdin io.Reader) result {
	var r io.Reader = stdin
	if src.name != "<stdin>" {
		f, err := os.Open(src.name)
		if err != nil {
			return result{err: errors.New(pathError(err))}
		}
		defer f.Close()
		r = f
	}
	r, err := decompress(r, src.name)
	if err != nil {
		return result{err: err}
	}
	s, err := parser.Parse(r, src.name, format)
	if s == nil {
		return result{err: err}
	}
	return result{report: analyzer.AnalyzeSession(s), err: err}
}

// decompress reads gzip-compressed input transparently.
func decompress(r io.Reader, name string) (io.Reader, error) {
	br := bufio.NewReader(r)
	magic, _ := br.Peek(2)
	if !bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		return br, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return zr, nil
}

// pathError words a file system error the way ls and cat do:
// "name: no such file or directory".
func pathError(err error) string {
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

// defaultPaths returns the agents' default transcript folders that exist,
// saying on stderr which were found.
func defaultPaths(env *Env, w *warner) ([]string, error) {
	var candidates []string
	if dirs := env.Getenv("CLAUDE_CONFIG_DIR"); dirs != "" {
		for _, d := range strings.Split(dirs, ",") {
			candidates = append(candidates, filepath.Join(strings.TrimSpace(d), "projects"))
		}
	} else if home := env.Getenv("HOME"); home != "" {
		candidates = append(candidates,
			filepath.Join(home, ".claude", "projects"),
			filepath.Join(home, ".config", "claude", "projects"))
	}
	var found []string
	for _, c := range candidates {
		if fi, err := os.Stat(c); err == nil && fi.IsDir() {
			found = append(found, c)
			w.warn("retrace: reading Claude Code sessions in %s", c)
		}
	}
	if len(found) == 0 {
		return nil, usageError("no transcripts found in the default locations (" + strings.Join(candidates, ", ") +
			").\nName transcript files or directories: retrace summary PATH...; opencode sessions are read from \"opencode export <id> > session.json\"")
	}
	return found, nil
}

// A warner prints problems with the input on stderr and remembers whether
// any input was lost.
type warner struct {
	w      io.Writer
	quiet  bool
	failed bool
	mu     sync.Mutex
}

// warn prints a warning unless quiet.
func (w *warner) warn(format string, args ...any) {
	if !w.quiet {
		w.mu.Lock()
		fmt.Fprintf(w.w, format+"\n", args...)
		w.mu.Unlock()
	}
}

// fail prints that some input could not be read, even when quiet.
func (w *warner) fail(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.failed = true
	fmt.Fprintf(w.w, format+"\n", args...)
}

// A usageError is a mistake in how retrace was called.
type usageError string

func (e usageError) Error() string { return string(e) }
