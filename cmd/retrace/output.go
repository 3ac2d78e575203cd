package main

import (
	"bufio"
	"errors"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

// output is a command's buffered standard output, with the report it
// renders.
type output struct {
	*bufio.Writer
	report *analyzer.Report
}

// render loads the inputs, then writes with write in the given format.
// What could be read is rendered even when some input could not be.
func (in *inputs) render(g *Globals, env *Env, format string, write func(*output, report.Options) error) error {
	rep, loadErr := in.load(g, env)
	if rep == nil {
		return loadErr
	}
	w := &output{Writer: bufio.NewWriter(env.Stdout), report: rep}
	if err := write(w, report.Options{Format: format, Color: g.color(env)}); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return errors.Join(loadErr)
}
