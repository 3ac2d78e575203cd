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

// streamRows is stream for a command that prints rows drawn from each
// session (failures, chains, numbers) and quotes none of its calls: pick
// appends the rows of a session to a list, which are stored (see
// rowStore), and the session is let go; once every input is read, the
// rows are read back one at a time, masked with mask and the secrets
// every input taught, and handed to write. Memory holds the rows stored,
// not the sessions.
func streamRows[R any](in *inputs, g *Globals, env *Env, n pipeline.Needs,
	pick func([]*R, *analyzer.SessionReport) []*R, mask func(*R, func(string) string),
	write func(io.Writer, iter.Seq[*R]) error) error {
	var (
		store  rowStore[R]
		picked []*R
	)
	return in.stream(g, env, n, func(_ io.Writer, sr *analyzer.SessionReport) error {
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
		rows := func(yield func(*R) bool) {
			for r, err := range store.all() {
				if err != nil {
					readErr = err
					return
				}
				if known != nil {
					mask(r, known.String)
				}
				if !yield(r) {
					return
				}
			}
		}
		return cmp.Or(write(w, rows), readErr)
	})
}
