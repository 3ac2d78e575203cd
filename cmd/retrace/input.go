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
	"time"

	"github.com/alecthomas/kong"
	"github.com/klauspost/compress/zstd"

	"github.com/retrace-dev/retrace/analyzer"
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

	// reduce lets the inputs include earlier JSONL output of `retrace
	// pairs` and `retrace bench`, merged as if analysed here.
	reduce bool
	// unread leaves out of the analysis what the command does not print.
	unread analyzer.StreamOptions
	// parts lets a long session come to the command in parts (see
	// analyzer.StreamOptions.Part), for commands that add sessions up.
	parts bool
	// callsUnprinted says that the command prints no text of any call,
	// only counts: the calls' texts need no masking.
	callsUnprinted bool
	// out is the file the command writes, if any; it is checked against
	// the inputs before they are read.
	out *outFile
	// known masks, once the inputs are read, the secrets masked anywhere
	// in them (see redact.Redactor.Remembering); nil with --no-redact.
	known *redact.Redactor
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

// A source is one transcript to read.
type source struct {
	name     string // as shown in messages: the path, or "<stdin>"
	explicit bool   // named on the command line, rather than found in a directory
	opencode bool   // an opencode data folder or database, of many sessions
}

// A result is what reading one source gave.
type result struct {
	// reports holds the session the source held, or, for retrace's own
	// JSONL output, the sessions it names; none if nothing could be read.
	reports []*analyzer.SessionReport
	skipped []*parser.SyntaxError // lines of retrace's JSONL output that are not its records
	// moreSkipped counts the lines of retrace's JSONL output that are not
	// its records beyond those listed in skipped.
	moreSkipped int
	err         error
	modTime     time.Time // when the file was last written; zero for stdin
	// known remembers the secrets masked in the source; set on its last
	// result only, once the source is read whole.
	known *redact.Redactor
}

// maxWarnings bounds the malformed-record warnings printed per file.
const maxWarnings = parser.MaxSkipped

// load reads and analyzes the transcripts the arguments name. Problems with
// some inputs are printed on stderr and make it return errPartial along with
// the report of the rest. A secret masked in any input is masked in all.
func (in *inputs) load(g *Globals, env *Env) (*analyzer.Report, error) {
	var reports []*analyzer.SessionReport
	err := in.each(g, env, func(r *analyzer.SessionReport) {
		reports = append(reports, r)
	})
	if err != nil && err != errPartial {
		return nil, err
	}
	if in.known.Remembers() {
		for _, r := range reports {
			r.MapStrings(in.known.Known)
		}
	}
	return analyzer.Combine(reports), err
}

// each reads and analyzes the transcripts the arguments name, leaving out
// what in.unread says, and hands use the report of each session in the
// order of the inputs, as soon as it is ready: what use does not keep is
// let go. Problems with some inputs are printed on stderr and make it
// return errPartial once the rest is read; other errors mean nothing was.
//
// Secrets are masked before analysis, each input by a Redactor of its own
// that remembers them (so that one masked where it was assigned is masked
// where the input says it again); a report handed to use also has the
// secrets masked that this input and those before it remembered, and so
// does every message on stderr. in.known holds them all once each
// returns.
func (in *inputs) each(g *Globals, env *Env, use func(*analyzer.SessionReport)) error {
	red := in.redactor(env)
	in.known = red.Remembering()
	w := &warner{w: env.Stderr, quiet: g.Quiet, red: in.known}
	paths := rawStrings(in.Paths)
	if countOf(paths, "-") > 1 {
		return usageError(`"-" is named twice; standard input can be read only once`)
	}
	if len(paths) == 0 {
		var err error
		if paths, err = defaultPaths(env, w); err != nil {
			return err
		}
	}
	period, err := in.period(env.now())
	if err != nil {
		return err
	}
	if in.out != nil {
		if err := in.out.check(paths, env.Stdin); err != nil {
			return err
		}
	}
	sources := w.expand(paths, period)
	var format *parser.Format
	if in.InputFormat != "auto" {
		format = parser.Lookup(in.InputFormat)
	}
	prog := newProgress(g, env, sources)
	w.holdWhile(prog)
	rd := reader{format: format, red: red, calls: !in.callsUnprinted, prog: prog, reduce: in.reduce, opts: in.unread,
		parts: in.parts && period.isZero()} // a part does not know when its session was active

	sessions, unknown, empty := 0, 0, 0
	readAll(sources, rd, env.Stdin, func(i int, r result) {
		src := sources[i]
		in.known.Learn(r.known)
		switch {
		case r.err != nil && !src.explicit && sqliteCompanion(src.name):
			return // read with its database, if that is opencode's
		case errors.Is(r.err, parser.ErrDatabase) && !src.explicit:
			unknown++ // an SQLite database, but not opencode's
			return
		case errors.Is(r.err, parser.ErrBinary) && !src.explicit:
			w.warn("%s: skipped: binary file", src.name)
			return
		case errors.Is(r.err, parser.ErrEmpty) && !src.explicit:
			empty++
			return
		case errors.Is(r.err, parser.ErrUnknownFormat) && !src.explicit:
			unknown++
			return
		case errors.Is(r.err, parser.ErrDatabase):
			w.fail("%s: an SQLite database, but not opencode's: not a transcript", src.name)
		case errors.Is(r.err, parser.ErrBinary):
			w.fail("%s: binary file, not a transcript", src.name)
		case errors.Is(r.err, parser.ErrUnknownFormat):
			w.fail("%s: not a transcript format retrace knows (see \"retrace formats\"; --input-format names one)", src.name)
		case errors.Is(r.err, parser.ErrEmpty):
			w.fail("%s: empty file", src.name)
		case r.err != nil:
			w.fail("%v", r.err)
		}
		w.skipped(src.name, r.skipped, r.moreSkipped)
		for _, rep := range r.reports {
			if !period.holds(rep.Session, r.modTime) {
				continue
			}
			if r.known != nil && !in.callsUnprinted {
				in.finish(rep)
			}
			s := rep.Session
			w.skipped(s.Path, s.Skipped, s.MoreSkipped)
			for _, n := range s.Notes {
				w.warn("%s: %s", s.Path, n)
			}
			sessions++
			use(rep)
		}
	})
	prog.finish()
	w.release()

	if empty > 0 {
		w.warn("retrace: skipped %s", files(empty, "empty file"))
	}
	if unknown > 0 {
		w.warn("retrace: skipped %s of no known transcript format", files(unknown, "file"))
	}
	if sessions == 0 && !w.failed && period.isZero() {
		w.fail("retrace: no transcripts found in %s", strings.Join(paths, ", "))
	}
	if w.failed {
		return errPartial
	}
	return nil
}

// finish masks what masking before analysis could not, once the source
// of rep is read whole: the names of its calls (ids, tools, statuses),
// which the decoder reads until then, the findings drawn from them, and
// the secrets this input and the inputs before it taught. The calls'
// texts went through the rules already.
func (in *inputs) finish(rep *analyzer.SessionReport) {
	rep.MapFindings(in.known.String)
	for _, c := range rep.Session.Calls {
		c.MapNames(in.known.String)
		c.MapTexts(in.known.Known)
	}
}

// skipped warns of the malformed records of the input named name, the first
// maxWarnings of them one by one, and of the more records skipped beyond
// the list.
func (w *warner) skipped(name string, skipped []*parser.SyntaxError, more int) {
	for j, e := range skipped {
		if j == maxWarnings {
			more += len(skipped) - maxWarnings
			break
		}
		w.warn("%v", e)
	}
	if more > 0 {
		w.warn("%s: %d more malformed records skipped", name, more)
	}
}

// expand turns the arguments into the transcripts to read, walking
// directories in lexical order. Paths that cannot be read are reported.
// Files found in directories that were last written before the period are
// passed over unread.
func (w *warner) expand(paths []string, per period) []source {
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
				w.fail("%s", pathError(err))
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
			if !per.since.IsZero() {
				if fi, err := d.Info(); err == nil && fi.ModTime().Before(per.since) {
					return nil
				}
			}
			sources = append(sources, source{name: path})
			return nil
		})
		if err != nil {
			w.fail("%s", pathError(err))
		}
	}
	return sources
}

// A reader reads sources.
type reader struct {
	format *parser.Format   // the format of every source; nil to recognize each
	red    *redact.Redactor // masks the texts; each source gets one that remembers
	calls  bool             // mask the calls' texts too, as some are printed
	prog   *progress
	reduce bool // read retrace's own JSONL output too
	opts   analyzer.StreamOptions
	parts  bool // hand long sessions out in parts
}

// readAll reads the sources in parallel and hands use the results of each,
// in the order of the sources, as soon as they and those before them are
// read. Reading runs at most a few sources ahead of use, so that the
// results waiting their turn stay few.
func readAll(sources []source, rd reader, stdin io.Reader, use func(int, result)) {
	workers := min(runtime.GOMAXPROCS(0), max(len(sources), 1))
	// A source gives one result, or with parts, one per part and a last.
	done := make([]chan result, len(sources))
	for i := range done {
		done[i] = make(chan result, 4)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				done[i] <- rd.read(sources[i], stdin, func(r result) { done[i] <- r })
				close(done[i])
				rd.prog.fileDone()
			}
		})
	}
	// A source is handed out only when fewer than ahead are read or being
	// read and not yet used; the one use waits for is always among them.
	ahead := make(chan struct{}, 2*workers)
	go func() {
		for i := range sources {
			ahead <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	for i := range sources {
		for r := range done[i] {
			use(i, r)
		}
		done[i] = nil
		<-ahead
	}
	wg.Wait()
}

// read parses, redacts and analyzes one source. With rd.parts, the parts
// of a long session go to part as they are analyzed, and the result holds
// the last.
func (rd reader) read(src source, stdin io.Reader, part func(result)) result {
	red := rd.red.Remembering()
	res := rd.readWith(src, stdin, part, red)
	res.known = red
	return res
}

// readWith is read, masking with red.
func (rd reader) readWith(src source, stdin io.Reader, part func(result), red *redact.Redactor) result {
	if src.opencode {
		return rd.readOpencode(src, red)
	}
	callRed := red
	if !rd.calls {
		callRed = nil
	}
	var r io.Reader = stdin
	var modTime time.Time
	if src.name != "<stdin>" {
		f, err := os.Open(src.name)
		if err != nil {
			return result{err: errors.New(pathError(err))}
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			modTime = fi.ModTime()
		}
		r = rd.prog.reader(f)
	}
	r, closeFn, err := decompress(r, src.name)
	if err != nil {
		return result{err: err}
	}
	defer closeFn()
	br := bufReaders.Get().(*bufio.Reader)
	br.Reset(r)
	defer func() { br.Reset(nil); bufReaders.Put(br) }()
	br = parser.UTF8(br) // itself, unless the text is UTF-16
	if rd.format == nil && analyzer.IsRecord(firstLine(br)) {
		if !rd.reduce {
			return result{err: fmt.Errorf("%s: the JSONL output of retrace pairs or bench; only retrace lessons and retrace bench read it", src.name)}
		}
		reports, skipped, more, err := analyzer.ReadJSONL(br, src.name)
		if red != nil {
			for _, rep := range reports {
				rep.MapStrings(red.String) // records written with --no-redact hold secrets
			}
		}
		return result{reports: reports, skipped: skipped, moreSkipped: more, err: err, modTime: modTime}
	}
	// Each call is redacted and analyzed as soon as the decoder is done
	// with it, and the outputs no report quotes are let go, so that a
	// large transcript is never held whole. The analysis runs beside the
	// decoder, so that even one large file keeps two cores busy.
	opts := rd.opts
	if rd.parts {
		opts.Path = src.name
		opts.Part = func(rep *analyzer.SessionReport) {
			rep.Compact()
			part(result{reports: []*analyzer.SessionReport{rep}})
		}
	}
	st := analyzer.NewSessionStream(opts)
	calls := make(chan *parser.Call, 64)
	analyzed := make(chan struct{})
	go func() {
		for c := range calls {
			redactCall(callRed, c)
			st.Add(c)
		}
		close(analyzed)
	}()
	parse := []parser.Option{parser.Each(func(c *parser.Call) { calls <- c })}
	if rd.parts {
		parse = append(parse, parser.Forget()) // the parts hold the calls
	}
	s, err := parser.Parse(br, src.name, rd.format, parse...)
	close(calls)
	<-analyzed
	if s == nil && errors.Is(err, parser.ErrDatabase) {
		return rd.readDatabase(src, red)
	}
	if s == nil {
		return result{err: err}
	}
	redactSession(red, s)
	rep := st.Report(s)
	rep.Compact()
	return result{reports: []*analyzer.SessionReport{rep}, err: err, modTime: modTime}
}

// readDatabase reads a source that is an SQLite database: an opencode
// database whatever its name, or else no transcript; masking with red.
func (rd reader) readDatabase(src source, red *redact.Redactor) result {
	if src.name == "<stdin>" {
		return result{err: errors.New("<stdin>: an SQLite database, which retrace reads only from its file")}
	}
	if parser.IsOpencodeDB(src.name) {
		return rd.readOpencode(src, red)
	}
	return result{err: parser.ErrDatabase}
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

// readOpencode reads the sessions of an opencode data folder or database,
// masking with red.
func (rd reader) readOpencode(src source, red *redact.Redactor) result {
	sessions, err := parser.ReadOpencodeData(src.name)
	callRed := red
	if !rd.calls {
		callRed = nil
	}
	var res result
	for _, s := range sessions {
		st := analyzer.NewSessionStream(rd.opts)
		for _, c := range s.Calls {
			redactCall(callRed, c)
			st.Add(c)
		}
		redactSession(red, s)
		rep := st.Report(s)
		rep.Compact()
		res.reports = append(res.reports, rep)
	}
	res.err = err // each names its file: the database, the folder or a file in it
	return res
}

// bufReaders hold the buffers inputs are read through, one per worker at a
// time rather than one per file: a directory of 10 000 small transcripts
// would otherwise allocate 10 000 of them. Parse uses a reader of its size
// as it is.
var bufReaders = sync.Pool{New: func() any { return bufio.NewReaderSize(nil, parser.HeadSize) }}

// firstLine returns the first line br holds, if it ends within its buffer.
func firstLine(br *bufio.Reader) []byte {
	b, _ := br.Peek(br.Size())
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		return b[:i]
	}
	return nil
}

// redactSession masks the secrets in the session's own texts (its notes
// and the messages of its skipped records included), and redactCall those
// of one call, before analysis, so that no output can show them. A nil red
// leaves them as they are.
func redactSession(red *redact.Redactor, s *parser.Session) {
	if red != nil {
		s.MapStrings(red.String)
	}
}

// redactCall masks what a call's texts say: its command, file, argument
// values, output, note and text. Its names (id, tool, status, sidechain),
// which the decoder may still read once it has handed the call on, are
// masked once the source is read (see inputs.finish).
func redactCall(red *redact.Redactor, c *parser.Call) {
	if red != nil {
		c.MapTexts(red.String)
	}
}

// decompress reads gzip- and zstd-compressed input transparently, knowing
// them by their magic numbers, and stops reading compressed data that grows
// as only a decompression bomb does (see bombGuard). The returned function
// releases the decoder.
func decompress(r io.Reader, name string) (io.Reader, func(), error) {
	in := &byteCounter{r: r}
	br := bufio.NewReader(in)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: corrupt gzip data: %v", name, err)
		}
		return &bombGuard{r: corruptReader{zr, "gzip"}, in: in, name: name}, func() {}, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: corrupt zstd data: %v", name, err)
		}
		return &bombGuard{r: corruptReader{zr, "zstd"}, in: in, name: name}, zr.Close, nil
	}
	return br, func() {}, nil
}

// Compressed data that has grown past bombFloor and past bombRatio times
// the compressed bytes read is not read further. Transcripts compress ten
// to fifty times; gzip cannot pass 1032 times, zstd can pass a million.
const (
	bombRatio = 1000
	bombFloor = 64 << 20
)

// A bombGuard reads decompressed data until it grows as bombRatio and
// bombFloor say transcripts do not, and then fails with a
// parser.LimitError: the input is skipped.
type bombGuard struct {
	r    io.Reader    // the decompressed data
	in   *byteCounter // the compressed data, as read so far
	out  int64        // decompressed bytes read so far
	name string
}

func (g *bombGuard) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	g.out += int64(n)
	if g.out > bombFloor && g.out > bombRatio*g.in.n {
		return 0, &parser.LimitError{Name: g.name,
			Msg: fmt.Sprintf("decompressed past %d MiB, over %d times its compressed size", bombFloor>>20, bombRatio)}
	}
	return n, err
}

// A byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// A corruptReader says that an error reading compressed data is the data's.
type corruptReader struct {
	r    io.Reader
	kind string // "gzip", "zstd"
}

func (c corruptReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("corrupt %s data: %w", c.kind, err)
	}
	return n, err
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

// A warner prints problems with the input on stderr and remembers whether
// any input was lost. Messages quote what the input holds, so they are
// masked as every output is.
type warner struct {
	w      io.Writer
	quiet  bool
	red    *redact.Redactor // masks the messages; nil with --no-redact
	failed bool
	mu     sync.Mutex
	held   *bytes.Buffer // what is kept back while a progress bar is shown
}

// warn prints a warning unless quiet.
func (w *warner) warn(format string, args ...any) {
	if !w.quiet {
		w.print(format, args...)
	}
}

// fail prints that some input could not be read, even when quiet.
func (w *warner) fail(format string, args ...any) {
	w.print(format, args...)
	w.mu.Lock()
	w.failed = true
	w.mu.Unlock()
}

func (w *warner) print(format string, args ...any) {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.w
	if w.held != nil {
		out = w.held
	}
	say(out, "%s", w.red.String(fmt.Sprintf(format, args...)))
}

// holdWhile keeps the messages back while the progress bar p is shown, so
// that they do not break it, and prints them once it is gone; release
// does.
func (w *warner) holdWhile(p *progress) {
	if p != nil {
		w.held = new(bytes.Buffer)
	}
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
