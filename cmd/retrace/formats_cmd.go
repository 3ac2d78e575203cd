package main

import (
	"bufio"

	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/report"
)

type formatsCmd struct {
	Format string `short:"f" enum:"${formats}" default:"table" help:"Output format (${enum})."`
}

// Run prints the transcript formats.
func (c *formatsCmd) Run(g *Globals, env *Env) error {
	w := bufio.NewWriter(env.Stdout)
	if err := report.TranscriptFormats(w, g.options(env, c.Format), parser.Formats()); err != nil {
		return err
	}
	return w.Flush()
}
