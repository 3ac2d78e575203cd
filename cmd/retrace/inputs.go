package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/alecthomas/kong"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/parser"
)

// inputs are the transcript arguments of every analysis command.
type inputs struct {
	Paths       []rawArg `arg:"" optional:"" name:"path" help:"Transcript files or directories (searched recursively); \"-\" reads standard input. With none, the agents' default locations are read."`
	InputFormat string   `name:"input-format" short:"i" default:"auto" enum:"${input_formats}" help:"Read every input as this format (${enum}); auto recognizes each from its content."`
	Since       string   `help:"Only sessions active at or after this time: a date (2026-03-01), a date and time (2026-03-01T14:00), or a span back from now (36h, 7d, 2w)."`
	Until       string   `help:"Only sessions that started at or before this time, written as for --since."`
	redaction
}

// A rawArg is a command-line argument taken as it is. Kong decodes strings
// through JSON, which would replace the bytes of a file name that are not
// UTF-8, and split a list on commas, which file names may hold.
type rawArg string

// Decode implements kong.MapperValue.
func (a *rawArg) Decode(ctx *kong.DecodeContext) error {
	t, err := ctx.Scan.PopValue("path")
	if err != nil {
		return err
	}
	s, ok := t.Value.(string)
	if !ok {
		return fmt.Errorf("expected a path but got %v", t.Value)
	}
	*a = rawArg(s)
	return nil
}

// files writes a count of files: "1 file", "2 empty files".
func files(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// countOf counts the elements of s that equal v.
func countOf(s []string, v string) int {
	n := 0
	for _, x := range s {
		if x == v {
			n++
		}
	}
	return n
}

func rawStrings(args []rawArg) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = string(a)
	}
	return out
}

// redaction holds the flags that choose what is masked.
type redaction struct {
	NoRedact    bool `name:"no-redact" help:"Show secrets as the transcripts hold them. By default API keys, tokens, passwords and private keys are masked as [secret:KIND:HASH] in every output."`
	RedactHosts bool `name:"redact-hosts" help:"Also mask IP addresses and the user names in home directory paths."`
}

// redactKeyVar names the variable that fixes the key of the masks' hashes,
// for output that must be the same from run to run; without it each run
// draws its own.
const redactKeyVar = "RETRACE_REDACT_KEY"

// redactor returns the redactor the flags ask for; nil for --no-redact.
func (r redaction) redactor(env *Env) *redact.Redactor {
	if r.NoRedact {
		return nil
	}
	return redact.New(redact.Options{Hosts: r.RedactHosts, Key: []byte(env.Getenv(redactKeyVar))})
}

// load reads and analyzes the transcripts the arguments name, as n says
// the command needs, into one report. Problems with some inputs are
// printed on stderr and make it return errPartial along with the report
// of the rest, or errNothingRead and no report when there is no rest. out,
// when not nil, is the file the command writes, checked against the
// inputs before they are read.
func (in *inputs) load(g *Globals, env *Env, n pipeline.Needs, out *outFile) (*analyzer.Report, error) {
	n, done, err := in.needs(g, env, n, out)
	if err != nil {
		return nil, err
	}
	defer done()
	rep, err := pipeline.Load(n)
	if err == errNothingRead {
		return nil, err
	}
	return rep, err
}

// each is load for a command that takes the report of each session as
// soon as it is ready (see pipeline.Each). It returns the redactor that
// learned the secrets of every input, to mask with what the command drew
// from the sessions; nil with --no-redact.
func (in *inputs) each(g *Globals, env *Env, n pipeline.Needs, out *outFile, use func(*analyzer.SessionReport)) (*redact.Redactor, error) {
	n, done, err := in.needs(g, env, n, out)
	if err != nil {
		return nil, err
	}
	defer done()
	return n.Redact, pipeline.Each(n, use)
}

// needs adds to what the command needs the inputs the arguments name (the
// agents' default folders when they name none), the period, the masking
// and where messages and progress go. It returns the function that ends
// the run's messages.
func (in *inputs) needs(g *Globals, env *Env, n pipeline.Needs, out *outFile) (pipeline.Needs, func(), error) {
	red := in.redactor(env).Remembering()
	w := &warner{w: env.Stderr, quiet: g.Quiet, verbose: g.Verbose, red: red}
	paths := rawStrings(in.Paths)
	if countOf(paths, "-") > 1 {
		return n, nil, usageError(`"-" is named twice; standard input can be read only once`)
	}
	if len(paths) == 0 {
		if env.StdinPiped {
			w.warn(`retrace: standard input is not read; name "-" to read it`)
		}
		var err error
		if paths, err = defaultPaths(env, w); err != nil {
			return n, nil, err
		}
	}
	period, err := in.period(env.now())
	if err != nil {
		return n, nil, err
	}
	if out != nil {
		if err := out.check(paths, env.Stdin); err != nil {
			return n, nil, err
		}
	}
	n.Paths, n.Stdin, n.Period, n.Redact, n.Tell = paths, env.Stdin, period, red, w.tell
	if in.InputFormat != "auto" {
		n.Format = parser.Lookup(in.InputFormat)
	}
	prog := newProgress(g, env, w)
	if prog != nil {
		n.Progress = prog
	}
	return n, func() { prog.finish(); w.end(); w.release() }, nil
}

// period reads --since and --until.
func (in *inputs) period(now time.Time) (pipeline.Period, error) {
	var p pipeline.Period
	var err error
	if p.Since, err = pipeline.ParseTime(in.Since, now); err != nil {
		return p, usageError("--since: " + err.Error())
	}
	if p.Until, err = pipeline.ParseTime(in.Until, now); err != nil {
		return p, usageError("--until: " + err.Error())
	}
	if !p.Since.IsZero() && !p.Until.IsZero() && p.Until.Before(p.Since) {
		return p, usageError("--until is before --since")
	}
	return p, nil
}

// defaultPaths returns the agents' default locations that exist, saying on
// stderr which were found.
func defaultPaths(env *Env, w *warner) ([]string, error) {
	var tried, found []string
	for _, loc := range pipeline.Locations(env.Getenv) {
		tried = append(tried, loc.Path)
		if fi, err := os.Stat(loc.Path); err == nil && fi.IsDir() {
			found = append(found, loc.Path)
			w.warn("retrace: reading %s sessions in %s", loc.Agent, loc.Path)
		}
	}
	if len(found) == 0 {
		return nil, errors.Join(usageError("no transcripts found in the default locations ("+strings.Join(tried, ", ")+")."),
			usageError("Name transcript files or directories: retrace summary PATH..."))
	}
	return found, nil
}

// A warner prints problems with the input on stderr: warnings unless
// quiet, and always that some input could not be read. Of each kind of
// message it prints the first warnCap, unless verbose, and counts the
// rest (see end). It holds them back while a progress bar is shown.
type warner struct {
	w       io.Writer
	quiet   bool
	verbose bool
	red     *redact.Redactor // masks its own messages; nil with --no-redact
	mu      sync.Mutex
	held    *bytes.Buffer  // what is kept back while a progress bar is shown
	shown   map[string]int // messages of each kind told so far
	hidden  map[string]int // things of each kind told of in messages not shown
	kinds   []string       // the kinds with messages not shown, in order
}

// warnCap is how many messages of one kind a run shows without --verbose.
const warnCap = 5

// tell prints a message of the pipeline, whose secrets it masked.
func (w *warner) tell(m pipeline.Message) {
	if !m.Lost && w.quiet {
		return
	}
	if m.Kind != "" && !w.verbose {
		w.mu.Lock()
		if w.shown == nil {
			w.shown, w.hidden = map[string]int{}, map[string]int{}
		}
		w.shown[m.Kind]++
		shown := w.shown[m.Kind] <= warnCap
		if !shown {
			if w.hidden[m.Kind] == 0 {
				w.kinds = append(w.kinds, m.Kind)
			}
			w.hidden[m.Kind] += max(m.Count, 1)
		}
		w.mu.Unlock()
		if !shown {
			return
		}
	}
	w.print(m.Text)
}

// end prints how many messages of each kind were not shown, and how to
// see them.
func (w *warner) end() {
	if len(w.kinds) == 0 {
		return
	}
	var counts []string
	for _, k := range w.kinds {
		counts = append(counts, fmt.Sprintf("%d more %s", w.hidden[k], k))
	}
	w.print("retrace: not shown: " + strings.Join(counts, ", ") + " (--verbose shows them)")
}

// warn prints a warning of the command's own unless quiet, masked.
func (w *warner) warn(format string, args ...any) {
	w.tell(pipeline.Message{Text: w.red.String(fmt.Sprintf(format, args...))})
}

func (w *warner) print(text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.w
	if w.held != nil {
		out = w.held
	}
	say(out, "%s", text)
}

// hold keeps the messages back, while a progress bar is shown, so that
// they do not break it; release prints them once it is gone.
func (w *warner) hold() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.held = new(bytes.Buffer)
}

// release prints the messages held back.
func (w *warner) release() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.held != nil {
		w.w.Write(w.held.Bytes())
		w.held = nil
	}
}

// A usageError is a mistake in how retrace was called.
type usageError string

func (e usageError) Error() string { return string(e) }
