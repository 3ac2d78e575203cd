package pipeline

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/parser"
)

// Needs says what a command needs of its inputs, and where they are. The
// zero value reads nothing; with Paths, it reads every session whole, with
// no benchmark numbers and nothing masked.
type Needs struct {
	// Paths name the inputs: files, folders (searched recursively, in
	// lexical order) and opencode data; "-" reads Stdin.
	Paths []string
	Stdin io.Reader
	// Format is the format of every input; nil recognizes each.
	Format *parser.Format
	// Period keeps the sessions active in it; the zero Period keeps all.
	Period Period

	// Numbers reads the benchmark numbers the calls printed, the costliest
	// analysis: without it the reports and their chains hold none.
	Numbers bool
	// Parts lets a long session come in parts (see
	// analyzer.StreamOptions.Part), for a command that adds sessions up or
	// keeps only rows drawn from them: a part's findings name their
	// session by its path alone, and the last part is the session itself.
	// It is ignored with a Period, as a part does not know when its
	// session was active.
	Parts bool
	// Records reads retrace's own JSONL output (of pairs and bench) back,
	// as the sessions it names; without it such an input is an error.
	Records bool
	// CountsOnly says that the command prints no text of any call, only
	// counts and the sessions' own texts: the calls' texts and the
	// findings are not masked, but the calls' texts are read for the
	// secrets they teach, which a session's title may say too.
	CountsOnly bool

	// Redact masks the secrets in every text the reports hold and in
	// every Message; nil masks nothing. A Redactor that remembers (see
	// redact.Redactor.Remembering) learns the secrets masked in every
	// input, so that a report also has those of the inputs before it
	// masked, and once the run is over it masks them all.
	Redact *redact.Redactor
	// Tell is told each problem with the inputs; nil drops them.
	Tell func(Message)
	// Progress, when not nil, is told how far reading has got.
	Progress Progress
}

// A Message tells of a problem with the inputs, worded for the reader,
// with the secrets it quotes masked.
type Message struct {
	Text string
	// Lost says that some input could not be read, and the run ends with
	// ErrPartial; a Message that is not Lost is a warning, which a quiet
	// command need not show.
	Lost bool
	// Kind names what messages of its kind are about, as a plural a count
	// precedes ("malformed records"), for a command that shows only the
	// first few of each; empty for a message that sums others up.
	Kind string
	// Count says how many things of its Kind the message tells of, when
	// more than one: "2000 more malformed records skipped".
	Count int
}

// The kinds of Message.
const (
	KindUnread    = "inputs not read"
	KindMalformed = "malformed records"
	KindNote      = "notes on sessions"
	KindUnknown   = "files of no known format"
	KindBinary    = "binary files"
)

// A Progress is told how far reading has got, for a progress bar. Read
// and FileDone may be called from several goroutines at once.
type Progress interface {
	// Start is called once, when the inputs are found, with the number of
	// files to read and their size in bytes.
	Start(files int, size int64)
	// Read is told of n more bytes read from the files, as they are
	// stored (compressed, for a compressed file).
	Read(n int)
	// FileDone is called once a file is read.
	FileDone()
}

// ErrPartial reports that some input could not be read; what could be read
// was handed on, and the reasons were told.
var ErrPartial = errors.New("some input could not be read")

// ErrNothingRead is ErrPartial when no input at all could be read: there
// is nothing to report.
var ErrNothingRead = errors.New("nothing was read: no input could be read")

// Load reads and analyzes the inputs, as Each does, and returns the report
// of them all, with every secret any input taught masked everywhere. It
// returns ErrPartial, along with the report of the rest, when some input
// could not be read.
func Load(n Needs) (*analyzer.Report, error) {
	var reports []*analyzer.SessionReport
	err := Each(n, func(r *analyzer.SessionReport) {
		reports = append(reports, r)
	})
	if n.Redact.Remembers() {
		for _, r := range reports {
			r.MapStrings(n.Redact.Known)
		}
	}
	return analyzer.Combine(reports), err
}

// Each reads and analyzes the inputs n names, as n says, and hands use the
// report of each session in the order of the inputs, as soon as it is
// ready: what use does not keep is let go. Problems with some inputs are
// told and make it return ErrPartial once the rest is read, or
// ErrNothingRead when there is no rest; it returns no other error.
//
// Secrets are masked before analysis, each input by a Redactor of its own
// that remembers them (so that one masked where it was assigned is masked
// where the input says it again); a report handed to use also has the
// secrets masked that this input and those before it taught n.Redact, and
// so does every Message.
func Each(n Needs, use func(*analyzer.SessionReport)) error {
	t := &teller{tell: n.Tell, red: n.Redact}
	sources := t.expand(n.Paths, n.Period)
	if n.Progress != nil {
		n.Progress.Start(len(sources), size(sources))
	}
	rd := reader{format: n.Format, red: n.Redact, study: n.CountsOnly, prog: n.Progress, records: n.Records,
		opts:  analyzer.StreamOptions{NoNumbers: !n.Numbers},
		parts: n.Parts && n.Period.IsZero()}

	sessions, unknown, empty := 0, 0, 0
	readOK := 0     // inputs read without error
	byFileTime := 0 // sessions without times, kept in the period by their files' times
	workers := min(runtime.GOMAXPROCS(0), max(len(sources), 1))
	read := func(i int, part func(result)) result { return rd.read(sources[i], n.Stdin, part) }
	readAll(len(sources), workers, read, func(i int, r result) {
		src := sources[i]
		n.Redact.Learn(r.known)
		switch {
		case r.err != nil && !src.explicit && sqliteCompanion(src.name):
			return // read with its database, if that is opencode's
		case errors.Is(r.err, parser.ErrDatabase) && !src.explicit:
			unknown++
			t.warn(KindUnknown, "%s: skipped: an SQLite database, but not opencode's", src.name)
			return
		case errors.Is(r.err, parser.ErrBinary) && !src.explicit:
			t.warn(KindBinary, "%s: skipped: binary file", src.name)
			return
		case errors.Is(r.err, parser.ErrEmpty) && !src.explicit:
			empty++
			return
		case errors.Is(r.err, parser.ErrUnknownFormat) && !src.explicit:
			unknown++
			t.warn(KindUnknown, "%s: skipped: no known transcript format", src.name)
			return
		case errors.Is(r.err, parser.ErrDatabase):
			t.fail("%s: an SQLite database, but not opencode's: not a transcript", src.name)
		case errors.Is(r.err, parser.ErrBinary):
			t.fail("%s: binary file, not a transcript", src.name)
		case errors.Is(r.err, parser.ErrUnknownFormat):
			t.fail("%s: not a transcript format retrace knows (see \"retrace formats\"; --input-format names one)", src.name)
		case errors.Is(r.err, parser.ErrEmpty):
			t.fail("%s: empty file", src.name)
		case r.err != nil:
			t.fail("%v", r.err)
		}
		if r.err == nil {
			readOK++
		}
		t.skipped(src.name, r.skipped, r.moreSkipped)
		for _, rep := range r.reports {
			if !n.Period.Holds(rep.Session, r.modTime) {
				continue
			}
			if !n.Period.IsZero() && rep.Session.Start.IsZero() && !r.modTime.IsZero() {
				byFileTime++
			}
			if r.known != nil && !n.CountsOnly {
				finish(rep, n.Redact)
			}
			s := rep.Session
			t.skipped(s.Path, s.Skipped, s.MoreSkipped)
			for _, note := range s.Notes {
				t.warn(KindNote, "%s: %s", s.Path, note)
			}
			sessions++
			use(rep)
		}
	})

	if empty > 0 {
		t.warn("", "retrace: skipped %s", count(empty, "empty file"))
	}
	if unknown > 0 {
		t.warn("", "retrace: skipped %s of no known transcript format", count(unknown, "file"))
	}
	if byFileTime > 0 {
		t.warn("", "retrace: kept %s without times, by when their files were last written (--since, --until)", count(byFileTime, "session"))
	}
	switch {
	case sessions == 0 && !t.lost && n.Period.IsZero():
		t.fail("retrace: no transcripts found in %s", strings.Join(n.Paths, ", "))
	case sessions == 0 && readOK > 0 && !n.Period.IsZero():
		t.warn("", "retrace: no session was active in the period (--since, --until)")
	}
	switch {
	case t.lost && readOK == 0:
		return ErrNothingRead
	case t.lost:
		return ErrPartial
	}
	return nil
}

// finish masks what masking before analysis could not, once the source
// of rep is read whole: the names of its calls (ids, tools, statuses),
// which the decoder reads until then, the findings drawn from them, and
// the secrets known taught, from this input and the inputs before it. The
// calls' texts went through the rules already.
func finish(rep *analyzer.SessionReport, known *redact.Redactor) {
	rep.MapFindings(known.String)
	for _, c := range rep.Session.Calls {
		c.MapNames(known.String)
		c.MapTexts(known.Known)
	}
}

// count writes a count of things: "1 file", "2 empty files".
func count(n int, what string) string {
	if n != 1 {
		what += "s"
	}
	return fmt.Sprintf("%d %s", n, what)
}

// size returns the size in bytes of the sources that are files.
func size(sources []source) int64 {
	var total int64
	for _, s := range sources {
		if fi, err := os.Stat(s.name); err == nil {
			total += fi.Size()
		}
	}
	return total
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

// A reader reads sources.
type reader struct {
	format  *parser.Format   // the format of every source; nil to recognize each
	red     *redact.Redactor // masks the texts; each source gets one that remembers
	study   bool             // read the calls' texts for their secrets, not masking them
	prog    Progress         // nil shows nothing
	records bool             // read retrace's own JSONL output too
	opts    analyzer.StreamOptions
	parts   bool // hand long sessions out in parts
}

// readAll calls read for each of n sources, on up to workers goroutines,
// and hands use the results of each, in the order of the sources, as soon
// as they and those before them are read. Reading runs at most a few
// sources ahead of use, so that the results waiting their turn stay few.
// A source gives one result, or with parts, one per part (handed to part)
// and a last.
func readAll[R any](n, workers int, read func(i int, part func(R)) R, use func(int, R)) {
	done := make([]chan R, n)
	for i := range done {
		done[i] = make(chan R, 4)
	}
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := range jobs {
				done[i] <- read(i, func(r R) { done[i] <- r })
				close(done[i])
			}
		})
	}
	// A source is handed out only when fewer than ahead are read or being
	// read and not yet used; the one use waits for is always among them.
	ahead := make(chan struct{}, 2*workers)
	go func() {
		for i := range n {
			ahead <- struct{}{}
			jobs <- i
		}
		close(jobs)
	}()
	for i := range n {
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
	if rd.prog != nil {
		rd.prog.FileDone()
	}
	return res
}

// readWith is read, masking with red.
func (rd reader) readWith(src source, stdin io.Reader, part func(result), red *redact.Redactor) result {
	if src.opencode {
		return rd.readOpencode(src, red)
	}
	var r io.Reader = stdin
	var modTime time.Time
	if src.name != stdinName {
		f, err := os.Open(src.name)
		if err != nil {
			return result{err: errors.New(PathError(err))}
		}
		defer f.Close()
		if fi, err := f.Stat(); err == nil {
			modTime = fi.ModTime()
		}
		r = f
		if rd.prog != nil {
			r = &countingReader{r: f, prog: rd.prog}
		}
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
		if !rd.records {
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
			rd.redactCall(red, c)
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
	if src.name == stdinName {
		return result{err: errors.New("<stdin>: an SQLite database, which retrace reads only from its file")}
	}
	if parser.IsOpencodeDB(src.name) {
		return rd.readOpencode(src, red)
	}
	return result{err: parser.ErrDatabase}
}

// readOpencode reads the sessions of an opencode data folder or database,
// masking with red.
func (rd reader) readOpencode(src source, red *redact.Redactor) result {
	sessions, err := parser.ReadOpencodeData(src.name)
	var res result
	for _, s := range sessions {
		st := analyzer.NewSessionStream(rd.opts)
		for _, c := range s.Calls {
			rd.redactCall(red, c)
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
// masked once the source is read (see finish). For a command that prints
// no text of a call, the texts are only read for the secrets they teach.
func (rd reader) redactCall(red *redact.Redactor, c *parser.Call) {
	switch {
	case red == nil:
	case rd.study:
		c.MapTexts(func(s string) string { red.Study(s); return s })
	default:
		c.MapTexts(red.String)
	}
}

// A countingReader tells prog of the bytes read through it.
type countingReader struct {
	r    io.Reader
	prog Progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.prog.Read(n)
	return n, err
}

// A teller tells the problems with the inputs, masked with red, and
// remembers whether any input was lost. It is used from one goroutine.
type teller struct {
	tell func(Message)
	red  *redact.Redactor
	lost bool
}

// warn tells a warning of the kind given ("" for one that sums others
// up).
func (t *teller) warn(kind, format string, args ...any) {
	t.say(Message{Text: fmt.Sprintf(format, args...), Kind: kind})
}

// fail tells that some input could not be read.
func (t *teller) fail(format string, args ...any) {
	t.lost = true
	t.say(Message{Text: fmt.Sprintf(format, args...), Lost: true, Kind: KindUnread})
}

// say tells m, its secrets masked.
func (t *teller) say(m Message) {
	if t.tell != nil {
		m.Text = t.red.String(m.Text)
		t.tell(m)
	}
}

// skipped warns of the malformed records of the input named name, the first
// parser.MaxSkipped of them one by one, and of the more records skipped
// beyond the list.
func (t *teller) skipped(name string, skipped []*parser.SyntaxError, more int) {
	for j, e := range skipped {
		if j == parser.MaxSkipped {
			more += len(skipped) - parser.MaxSkipped
			break
		}
		t.warn(KindMalformed, "%v", e)
	}
	if more > 0 {
		t.say(Message{Text: fmt.Sprintf("%s: %d more malformed records skipped", name, more), Kind: KindMalformed, Count: more})
	}
}
