// Command gencorpus writes a corpus of synthetic agent transcripts for
// benchmarks: sessions drawn by internal/synth, with the mix of calls and
// outputs real transcripts hold, in one agent's format or in all of them.
//
// Usage:
//
//	go run ./tools/gencorpus [-format claude-code|codex|gemini|opencode|mixed] [-size 100MB] [-seed 1] [-single] DIR
//
// It writes sessions into DIR until they add up to -size: Claude Code's as
// DIR/claude-code/<project>/<session>.jsonl, Codex CLI's as
// DIR/codex/rollout-<time>-<session>.jsonl, Gemini CLI's as
// DIR/gemini/session-<session>.json and opencode exports as
// DIR/opencode/<session>.json; -format mixed takes the four in turn.
// -single writes one session of -size in one file instead (JSONL formats
// only). The same flags always give the same bytes. A line on standard
// error says what was written.
package main

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/retrace-dev/retrace/internal/synth"
)

func main() {
	if err := run(os.Args[1:], os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gencorpus:", err)
		os.Exit(2)
	}
}

func run(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("gencorpus", flag.ContinueOnError)
	fs.SetOutput(stderr)
	format := fs.String("format", "claude-code", "transcript format: "+strings.Join(formatNames, ", ")+", or mixed")
	size := fs.String("size", "100MB", "bytes to write: a number with an optional kB, MB or GB (powers of 1000) or KiB, MiB, GiB")
	seed := fs.Uint64("seed", 1, "seed of the random draws")
	single := fs.Bool("single", false, "write one session of -size in one file (claude-code and codex only)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return errors.New("want one output directory")
	}
	n, err := parseSize(*size)
	if err != nil {
		return err
	}
	opts := options{dir: fs.Arg(0), format: *format, size: n, seed: *seed, single: *single}
	start := time.Now()
	files, err := generate(opts)
	if err != nil {
		return err
	}
	var bytes int64
	calls := 0
	for _, f := range files {
		bytes += f.size
		calls += f.calls
	}
	fmt.Fprintf(stderr, "gencorpus: %d files, %d bytes, %d calls in %s (%s)\n", len(files), bytes, calls, opts.dir, time.Since(start).Round(time.Millisecond))
	return nil
}

// options say what to generate.
type options struct {
	dir    string
	format string // a name of formats, or "mixed"
	size   int64
	seed   uint64
	single bool
}

// A file is one transcript written.
type file struct {
	path   string
	format string // the retrace format name it is written in
	size   int64
	calls  int // tool calls in it
}

// A writer renders a session in one format, in the file where the agent
// would keep it.
type writer struct {
	synth.Format
	path func(*synth.Session) string // relative to the corpus directory
}

// paths name the file of a session in each format synth writes.
var paths = map[string]func(*synth.Session) string{
	"claude-code": func(s *synth.Session) string {
		return filepath.Join("claude-code", "-home-dev-"+filepath.Base(s.Cwd), s.ID+".jsonl")
	},
	"codex": func(s *synth.Session) string {
		return filepath.Join("codex", "rollout-"+s.Start.Format("2006-01-02T15-04-05")+"-"+s.ID+".jsonl")
	},
	"gemini": func(s *synth.Session) string {
		return filepath.Join("gemini", "session-"+s.Start.Format("2006-01-02T15-04")+"-"+s.ID[:8]+".json")
	},
	"opencode": func(s *synth.Session) string {
		return filepath.Join("opencode", "ses_"+strings.ReplaceAll(s.ID, "-", "")[:26]+".json")
	},
}

var writers = func() []writer {
	var ws []writer
	for _, f := range synth.Formats {
		ws = append(ws, writer{f, paths[f.Name]})
	}
	return ws
}()

var formatNames = func() []string {
	var names []string
	for _, w := range writers {
		names = append(names, w.Name)
	}
	return names
}()

func lookup(name string) (writer, bool) {
	for _, w := range writers {
		if w.Name == name {
			return w, true
		}
	}
	return writer{}, false
}

// generate writes the corpus opts describe and returns its files in the
// order they were drawn.
func generate(opts options) ([]file, error) {
	if opts.single {
		return generateSingle(opts)
	}
	var pickWriter func(n int) writer
	if opts.format == "mixed" {
		pickWriter = func(n int) writer { return writers[n%len(writers)] }
	} else {
		w, ok := lookup(opts.format)
		if !ok {
			return nil, fmt.Errorf("unknown format %q", opts.format)
		}
		pickWriter = func(int) writer { return w }
	}
	// Sessions are drawn and rendered in parallel, and written in the
	// order they were drawn until they reach the size, so that the corpus
	// does not depend on the scheduling. The jobs in flight are bounded.
	type rendered struct {
		f    file
		data []byte
		err  error
	}
	type job struct {
		n   int
		out chan rendered
	}
	workers := runtime.GOMAXPROCS(0)
	pending := make(chan job, 2*workers) // in order, for the writer
	jobs := make(chan job)
	done := make(chan struct{})
	go func() {
		defer close(jobs)
		defer close(pending)
		for n := 0; ; n++ {
			j := job{n, make(chan rendered, 1)}
			select {
			case pending <- j:
			case <-done:
				return
			}
			select {
			case jobs <- j:
			case <-done:
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for j := range jobs {
				w := pickWriter(j.n)
				s := synth.Corpus(opts.seed, j.n)
				var buf bytes.Buffer
				err := w.Write(&buf, s)
				f := file{path: filepath.Join(opts.dir, w.path(s)), format: w.Name, size: int64(buf.Len()), calls: calls(s)}
				j.out <- rendered{f: f, data: buf.Bytes(), err: err}
			}
		})
	}
	var files []file
	var total int64
	var err error
	for j := range pending {
		if total >= opts.size {
			break
		}
		r := <-j.out
		if err = r.err; err == nil {
			err = writeFile(r.f.path, r.data)
		}
		if err != nil {
			break
		}
		files = append(files, r.f)
		total += r.f.size
	}
	close(done)
	wg.Wait()
	return files, err
}

// generateSingle writes one session of opts.size: sessions drawn one after
// the other, written as parts of one, with one session id.
func generateSingle(opts options) ([]file, error) {
	w, ok := lookup(opts.format)
	if !ok || (w.Name != "claude-code" && w.Name != "codex") {
		return nil, fmt.Errorf("-single writes claude-code or codex, not %q", opts.format)
	}
	first := synth.Corpus(opts.seed, 0)
	path := filepath.Join(opts.dir, w.path(first))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	out, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	cw := &countingWriter{w: out}
	f := file{path: path, format: w.Name}
	start := first.Start
	for n := 0; cw.n < opts.size; n++ {
		s := first
		if n > 0 {
			s = synth.Corpus(opts.seed, n)
			s.ID, s.Cwd = first.ID, first.Cwd
			s.Seed = first.ID + "/part/" + strconv.Itoa(n)
		}
		s.Start = start
		if err := w.Write(cw, s); err != nil {
			out.Close()
			return nil, err
		}
		f.calls += calls(s)
		start = end(s).Add(time.Minute)
	}
	f.size = cw.n
	return []file{f}, out.Close()
}

type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// calls counts the tool calls of a session: its steps that are not
// prompts.
func calls(s *synth.Session) int {
	n := 0
	for _, st := range s.Steps {
		if st.Prompt == "" {
			n++
		}
	}
	return n
}

// end returns a time after every event of s.
func end(s *synth.Session) time.Time {
	t := s.Start
	for _, st := range s.Steps {
		t = t.Add(st.Think + st.Duration + 5*time.Second)
	}
	return t
}

func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, data, 0o644)
}

// parseSize reads "500MB", "2GB", "64KiB" or a number of bytes.
func parseSize(s string) (int64, error) {
	units := []struct {
		suffix string
		n      int64
	}{
		{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30},
		{"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1},
	}
	for _, u := range units {
		if num, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
			if err != nil || v < 0 {
				return 0, fmt.Errorf("bad size %q", s)
			}
			return int64(v * float64(u.n)), nil
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return 0, fmt.Errorf("bad size %q", s)
	}
	return v, nil
}
