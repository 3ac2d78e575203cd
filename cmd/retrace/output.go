package main

import (
	"bufio"
	"io"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/report"
)

// output is a command's buffered standard output, with the report it
// renders.
type output struct {
	*bufio.Writer
	report *analyzer.Report
}

// render loads the inputs as n says, then writes with write in the given
// format. What could be read is rendered even when some input could not
// be.
func (in *inputs) render(g *Globals, env *Env, n pipeline.Needs, format string, write func(*output, report.Options) error) error {
	rep, loadErr := in.load(g, env, n, nil)
	if rep == nil {
		return loadErr
	}
	w := &output{Writer: bufio.NewWriter(env.Stdout), report: rep}
	if err := write(w, g.options(env, format)); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return loadErr
}

// stream is render for what is written a session at a time, or drawn from
// what is kept of each session rather than from the whole report: each
// session's report is handed to each as soon as it is analyzed, and let go,
// so that memory holds a few sessions rather than all of them. Then end,
// when not nil, writes what was kept, masking with known what it drew from
// the sessions (see inputs.each).
func (in *inputs) stream(g *Globals, env *Env, n pipeline.Needs, each func(io.Writer, *analyzer.SessionReport) error, end func(w io.Writer, known *redact.Redactor) error) error {
	defer tuneGC(env)()
	w := bufio.NewWriter(env.Stdout)
	var writeErr error
	known, loadErr := in.each(g, env, n, func(sr *analyzer.SessionReport) {
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
