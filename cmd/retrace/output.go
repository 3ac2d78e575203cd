package main

import (
	"bufio"
	"cmp"
	"io"
	"iter"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/internal/redact"
)

// stream loads the inputs as n says, for what is written a session at a
// time, or drawn from what is kept of each session: each session's report
// is handed to each as soon as it is analyzed, and let go, so that memory
// holds a few sessions rather than all of them. Then end,
// when not nil, writes what was kept, masking with known what it drew from
// the sessions (see inputs.each).
func (in *inputs) stream(g *Globals, env *Env, n pipeline.Needs, each func(io.Writer, *analyzer.SessionReport) error, end func(w io.Writer, known *redact.Redactor) error) error {
	defer tuneGC(env)()
	w := bufio.NewWriter(env.Stdout)
	var writeErr error
	known, loadErr := in.each(g, env, n, nil, func(sr *analyzer.SessionReport) {
		if writeErr == nil {
			writeErr = each(w, sr)
		}
	})
	if loadErr != nil && loadErr != errPartial {
		return loadErr
	}
	if writeErr == nil && end != nil {
		writeErr = end(w, known)
	}
	if writeErr != nil {
		return writeErr
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return loadErr
}

// A row is what errors, pairs and bench print: *analyzer.Failure,
// *analyzer.Chain or *analyzer.Bench.
type row[R any] interface {
	*R
	MapStrings(func(string) string)
	SetSession(analyzer.SessionRef)
}

// streamRows is stream for a command that prints rows drawn from each
// session (failures, chains, numbers) and quotes none of its calls: pick
// appends the rows of a session to a list, which a rowStore keeps, and the
// session is let go; a long session comes in parts
// (see pipeline.Needs.Parts). Once every input is read, the rows are read
// back one at a time, masked with the secrets every input taught, and
// handed to write. Memory holds the rows stored, not the sessions.
func streamRows[R any, P row[R]](in *inputs, g *Globals, env *Env, n pipeline.Needs,
	pick func([]P, *analyzer.SessionReport) []P, write func(io.Writer, iter.Seq[P]) error) error {
	var (
		store  rowStore[R]
		picked []P
		// The rows of a session's parts name it by its path alone: named
		// holds the session each run of them is of, learned from its last
		// part; from is where the run being stored began, or -1, and
		// fromPath the path its rows name.
		named    []namedRows
		from     = -1
		fromPath string
	)
	n.Parts = true
	return in.stream(g, env, n, func(_ io.Writer, sr *analyzer.SessionReport) error {
		path := sr.Session.Path
		if from >= 0 && (!sr.Part || path != fromPath) {
			if path == fromPath { // else it was lost before its end: its rows name it by its path
				named = append(named, namedRows{from, store.len(), analyzer.RefOf(sr.Session)})
			}
			from = -1
		}
		if sr.Part && from < 0 {
			from, fromPath = store.len(), path
		}
		picked = pick(picked[:0], sr)
		for _, r := range picked {
			if err := store.add(r); err != nil {
				return err
			}
		}
		clear(picked)
		return nil
	}, func(w io.Writer, known *redact.Redactor) error {
		var readErr error
		rows := func(yield func(P) bool) {
			i := 0
			for r, err := range store.all() {
				if err != nil {
					readErr = err
					return
				}
				for len(named) > 0 && i >= named[0].to {
					named = named[1:]
				}
				if len(named) > 0 && i >= named[0].from {
					P(r).SetSession(named[0].ref)
				}
				i++
				if known != nil {
					P(r).MapStrings(known.String)
				}
				if !yield(r) {
					return
				}
			}
		}
		return cmp.Or(write(w, rows), readErr)
	})
}

// namedRows are the rows stored from index from up to to, and the session
// they are of.
type namedRows struct {
	from, to int
	ref      analyzer.SessionRef
}
