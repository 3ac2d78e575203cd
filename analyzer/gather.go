package analyzer

import (
	"bytes"
	"encoding/gob"
	"fmt"
	"io"
	"iter"
	"time"

	"github.com/klauspost/compress/s2"

	"github.com/retrace-dev/retrace/parser"
)

// A Gathering keeps the sessions of a post-mortem, added one at a time as
// they are analyzed, until every input is read: a session is counted in
// the summary while it has all its calls, then the calls the post-mortem
// does not quote are let go and what is left is stored, encoded with gob
// and compressed, in about a tenth of the memory it takes as values. (The
// session added last is stored only when another comes: a run of one
// long session does not pay for storing it.) Sessions reads them back,
// one at a time. The zero Gathering has no sessions.
type Gathering struct {
	sum    *Summary
	last   *SessionReport // the session added last, not stored
	stored chunks         // one S2 stream of the others, gob-encoded (see storedHead)
	zw     *s2.Writer
	enc    *gob.Encoder
	n      int   // sessions stored
	err    error // the first error storing a session
}

// Add takes the report of one more session, whole (not a part), and lets
// go of it: sr is changed and must not be used after. Neither Add nor
// Sessions may be called while another call to either runs.
func (g *Gathering) Add(sr *SessionReport) {
	if g.sum == nil {
		g.sum = NewSummary()
		g.zw = s2.NewWriter(&g.stored, s2.WriterConcurrency(1))
		g.enc = gob.NewEncoder(g.zw)
	}
	g.sum.Add(sr)
	sr.pruneCalls()
	if g.last != nil && g.err == nil {
		if err := storeReport(g.enc, g.last); err != nil {
			g.err = fmt.Errorf("storing the findings of %s: %w", g.last.Session.Path, err)
		}
		g.n++
	}
	g.last = sr
}

// Summary returns the summary of the sessions added. f, when not nil, is
// first applied to every text of it that came from a transcript (see
// Summary.MapStrings), as masking the secrets that the inputs read last
// taught does; it must give back unchanged what it has already given.
func (g *Gathering) Summary(f func(string) string) *Summary {
	if g.sum == nil {
		return NewSummary()
	}
	if f != nil {
		g.sum.MapStrings(f)
	}
	return g.sum
}

// Sessions yields the reports of the sessions added, in order, each read
// back as Add stored it: its Session.Calls holds only the calls of its
// failures and fixes, with their ids, times and the agent's text before
// them; its chains' BetweenCalls and its Program return nothing; its
// Timelines follow its numbers alone. f, when not nil, is first applied
// to every text of each that came from a transcript (see
// SessionReport.MapStrings); it must give back unchanged what it has
// already given, as masking does. The sessions are read back on another
// goroutine, up to two ahead of the one yielded: f is called there, one
// call at a time, and has returned for good when Sessions returns. The
// session added last, which was not stored, is the one Add was given,
// mapped in place.
func (g *Gathering) Sessions(f func(string) string) iter.Seq2[*SessionReport, error] {
	return func(yield func(*SessionReport, error) bool) {
		if g.last == nil {
			return
		}
		if g.err == nil && g.n > 0 {
			if err := g.zw.Flush(); err != nil {
				g.err = fmt.Errorf("storing the findings: %w", err)
			}
		}
		if g.err != nil {
			yield(nil, g.err)
			return
		}
		type read struct {
			sr  *SessionReport
			err error
		}
		next := make(chan read, 1)
		done := make(chan struct{})
		defer func() {
			close(done)
			for range next { // until the reader has stopped
			}
		}()
		go func() {
			defer close(next)
			dec := gob.NewDecoder(s2.NewReader(g.stored.reader()))
			for i := range g.n + 1 {
				r := read{sr: g.last}
				if i < g.n {
					if r.sr, r.err = readReport(dec); r.err != nil {
						r.err = fmt.Errorf("reading back the findings of session %d of %d: %w", i+1, g.n+1, r.err)
					}
				}
				if r.err == nil {
					if f != nil {
						r.sr.MapStrings(f)
					}
					r.sr.Timelines = Timelines([]*SessionReport{r.sr})
				}
				select {
				case next <- r:
				case <-done:
					return
				}
				if r.err != nil {
					return
				}
			}
		}()
		for r := range next {
			if r.err != nil {
				yield(nil, r.err)
				return
			}
			if !yield(r.sr, nil) {
				return
			}
		}
	}
}

// chunks is an io.Writer that keeps what is written in blocks of
// chunkSize bytes, so that what it holds grows without being copied.
type chunks struct{ blocks [][]byte }

const chunkSize = 64 << 10

func (c *chunks) Write(p []byte) (int, error) {
	n := len(p)
	for len(p) > 0 {
		if len(c.blocks) == 0 || len(c.blocks[len(c.blocks)-1]) == chunkSize {
			c.blocks = append(c.blocks, make([]byte, 0, chunkSize))
		}
		b := &c.blocks[len(c.blocks)-1]
		k := min(len(p), chunkSize-len(*b))
		*b = append(*b, p[:k]...)
		p = p[k:]
	}
	return n, nil
}

// reader returns a reader of what was written so far.
func (c *chunks) reader() io.Reader {
	readers := make([]io.Reader, len(c.blocks))
	for i, b := range c.blocks {
		readers[i] = bytes.NewReader(b)
	}
	return io.MultiReader(readers...)
}

// A Gathering stores a session as a stream of gob values, so that no
// buffer holds all of a long session's findings at once: a storedHead,
// its calls, failures, chains and numbers, each a value. The links of the
// findings (a failure's call, a chain's failures and fix) are indexes,
// and beside the exported fields are what they do not hold (excerpts, the
// programs of steps). gob drops a pointer to a zero number, string or
// bool, and an empty list, where the output contract tells them from nil:
// a failure's and a chain's shapes say which of theirs were. (It keeps a
// pointer to a zero struct, and an empty map.)
type storedHead struct {
	Path, Format, ID, Title, Cwd, Model, Agent string
	Start, End                                 time.Time
	Notes                                      []string
	// What follows: the calls of the failures and fixes, the failures,
	// the chains and the numbers.
	Calls, Failures, Chains, Benchmarks int
}

// storedCall is what a Gathering keeps of a call: see pruneCalls.
type storedCall struct {
	Ordinal, Msg int
	ID, Text     string
	Start, End   time.Time
}

type storedFailure struct {
	Failure *Failure
	Call    int // in Session.Calls; -1 for none
	Excerpt []string
	Shape   shape
}

type storedChain struct {
	Chain      *Chain // its Failure nil: it is the first of Failures
	Failures   []int  // in storedReport.Failures
	Fix        int    // in Session.Calls; -1 for none
	Programs   []string
	Workaround string
	Shape      shape
}

// A shape says which values of a failure or a chain that the output
// contract tells from nil gob does not carry as they are: pointers to a
// zero value, and lists empty but not nil.
type shape uint16

const (
	zeroExit shape = 1 << iota
	zeroFixedBy
	zeroFixedMsg
	zeroInTraceback
	emptyRetries
	emptyBetween
	emptyBenchmarks
	emptyRenamed
	emptyRemoved
	emptyAdded
	emptyChanged
)

// set adds bit to the shape when is holds.
func (sh *shape) set(bit shape, is bool) {
	if is {
		*sh |= bit
	}
}

// has reports whether the shape holds bit.
func (sh shape) has(bit shape) bool { return sh&bit != 0 }

// isZero reports whether p points to its type's zero value.
func isZero[T comparable](p *T) bool {
	var zero T
	return p != nil && *p == zero
}

// isEmpty reports whether s is empty but not nil.
func isEmpty[T any](s []T) bool { return s != nil && len(s) == 0 }

// orEmpty returns s, or an empty list for nil when empty is true.
func orEmpty[T any](s []T, empty bool) []T {
	if s == nil && empty {
		return []T{}
	}
	return s
}

// storeReport writes sr as a Gathering stores it, once its calls are
// pruned.
func storeReport(enc *gob.Encoder, sr *SessionReport) error {
	s := sr.Session
	head := storedHead{Path: s.Path, Format: s.Format, ID: s.ID, Title: s.Title, Cwd: s.Cwd, Model: s.Model,
		Agent: s.Agent, Start: s.Start, End: s.End, Notes: s.Notes,
		Calls: len(s.Calls), Failures: len(sr.Failures), Chains: len(sr.Chains), Benchmarks: len(sr.Benchmarks)}
	if err := enc.Encode(&head); err != nil {
		return err
	}
	calls := make(map[*parser.Call]int, len(s.Calls))
	for i, c := range s.Calls {
		calls[c] = i
		if err := enc.Encode(storedCall{c.Ordinal, c.Msg, c.ID, c.Text, c.Start, c.End}); err != nil {
			return err
		}
	}
	index := func(c *parser.Call) int {
		if i, ok := calls[c]; ok {
			return i
		}
		return -1
	}
	failures := make(map[*Failure]int, len(sr.Failures))
	for i, f := range sr.Failures {
		failures[f] = i
		sf := storedFailure{Failure: f, Call: index(f.call), Excerpt: f.excerpt}
		sf.Shape.set(zeroExit, isZero(f.Exit))
		sf.Shape.set(zeroFixedBy, isZero(f.FixedBy))
		sf.Shape.set(zeroFixedMsg, isZero(f.FixedMsg))
		if err := enc.Encode(&sf); err != nil {
			return err
		}
	}
	for _, ch := range sr.Chains {
		c := *ch
		c.Failure = nil
		sc := storedChain{Chain: &c, Fix: index(ch.fix)}
		for _, f := range ch.failures {
			k, ok := failures[f]
			if !ok {
				return fmt.Errorf("a chain at msg %d has a failure not of its session", ch.Failure.Msg)
			}
			sc.Failures = append(sc.Failures, k)
		}
		for _, step := range ch.Between {
			sc.Programs = append(sc.Programs, step.program)
		}
		if w := ch.Workaround; w != nil {
			sc.Workaround = w.program
		}
		sh := &sc.Shape
		sh.set(zeroInTraceback, ch.Fix != nil && isZero(ch.Fix.InTraceback))
		sh.set(emptyRetries, isEmpty(ch.Retries))
		sh.set(emptyBetween, isEmpty(ch.Between))
		sh.set(emptyBenchmarks, isEmpty(ch.Benchmarks))
		if d := ch.Diff; d != nil {
			sh.set(emptyRenamed, isEmpty(d.Renamed))
			sh.set(emptyRemoved, isEmpty(d.Removed))
			sh.set(emptyAdded, isEmpty(d.Added))
			sh.set(emptyChanged, isEmpty(d.Changed))
		}
		if err := enc.Encode(&sc); err != nil {
			return err
		}
	}
	for _, b := range sr.Benchmarks {
		if err := enc.Encode(b); err != nil {
			return err
		}
	}
	return nil
}

// readReport reads back a session's report as storeReport wrote it, its
// links restored.
func readReport(dec *gob.Decoder) (*SessionReport, error) {
	var head storedHead
	if err := dec.Decode(&head); err != nil {
		return nil, err
	}
	sr := &SessionReport{Session: &parser.Session{Path: head.Path, Format: head.Format, ID: head.ID, Title: head.Title,
		Cwd: head.Cwd, Model: head.Model, Agent: head.Agent, Start: head.Start, End: head.End, Notes: head.Notes}}
	calls := make([]*parser.Call, head.Calls)
	for i := range calls {
		var c storedCall
		if err := dec.Decode(&c); err != nil {
			return nil, err
		}
		calls[i] = &parser.Call{Ordinal: c.Ordinal, Msg: c.Msg, ID: c.ID, Text: c.Text, Start: c.Start, End: c.End}
	}
	sr.Session.Calls = calls
	call := func(i int) *parser.Call {
		if i >= 0 && i < len(calls) {
			return calls[i]
		}
		return nil
	}
	sr.Failures = make([]*Failure, head.Failures)
	for i := range sr.Failures {
		var sf storedFailure
		if err := dec.Decode(&sf); err != nil {
			return nil, err
		}
		f := sf.Failure
		f.call, f.excerpt = call(sf.Call), sf.Excerpt
		if sf.Shape.has(zeroExit) {
			f.Exit = new(int)
		}
		if sf.Shape.has(zeroFixedBy) {
			f.FixedBy = new(string)
		}
		if sf.Shape.has(zeroFixedMsg) {
			f.FixedMsg = new(int)
		}
		sr.Failures[i] = f
	}
	sr.Chains = make([]*Chain, head.Chains)
	for i := range sr.Chains {
		var sc storedChain
		if err := dec.Decode(&sc); err != nil {
			return nil, err
		}
		ch, sh := sc.Chain, sc.Shape
		for _, k := range sc.Failures {
			if k < 0 || k >= len(sr.Failures) {
				return nil, fmt.Errorf("a chain of %s has no failure %d", head.Path, k)
			}
			ch.failures = append(ch.failures, sr.Failures[k])
		}
		if len(ch.failures) == 0 || len(sc.Programs) != len(ch.Between) {
			return nil, fmt.Errorf("a chain of %s is not whole", head.Path)
		}
		ch.Failure = ch.failures[0]
		ch.fix = call(sc.Fix)
		for k := range ch.Between {
			ch.Between[k].program = sc.Programs[k]
		}
		if w := ch.Workaround; w != nil {
			w.program = sc.Workaround
		}
		if sh.has(zeroInTraceback) && ch.Fix != nil {
			ch.Fix.InTraceback = new(bool)
		}
		ch.Retries = orEmpty(ch.Retries, sh.has(emptyRetries))
		ch.Between = orEmpty(ch.Between, sh.has(emptyBetween))
		ch.Benchmarks = orEmpty(ch.Benchmarks, sh.has(emptyBenchmarks))
		if d := ch.Diff; d != nil {
			d.Renamed = orEmpty(d.Renamed, sh.has(emptyRenamed))
			d.Removed = orEmpty(d.Removed, sh.has(emptyRemoved))
			d.Added = orEmpty(d.Added, sh.has(emptyAdded))
			d.Changed = orEmpty(d.Changed, sh.has(emptyChanged))
		}
		sr.Chains[i] = ch
	}
	if head.Benchmarks > 0 {
		sr.Benchmarks = make([]*Bench, head.Benchmarks)
	}
	for i := range sr.Benchmarks {
		b := new(Bench)
		if err := dec.Decode(b); err != nil {
			return nil, err
		}
		sr.Benchmarks[i] = b
	}
	return sr, nil
}
