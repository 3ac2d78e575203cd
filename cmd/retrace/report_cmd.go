package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/retrace-dev/retrace/report"
)

type reportCmd struct {
	inputs
	Format string `short:"f" enum:"markdown,html" default:"markdown" help:"Output format (${enum}): Markdown for a pull request or a wiki, or one self-contained HTML page."`
	Output string `short:"o" name:"output" placeholder:"FILE" help:"Write the report to FILE instead of standard output."`
}

// Run writes the post-mortem of the transcripts.
func (c *reportCmd) Run(g *Globals, env *Env) error {
	if c.Output != "" {
		out, err := filepath.Abs(c.Output)
		if err != nil {
			return err
		}
		for _, p := range rawStrings(c.Paths) {
			if in, err := filepath.Abs(p); err == nil && in == out {
				return usageError(fmt.Sprintf("-o %s would overwrite an input", c.Output))
			}
		}
	}
	rep, loadErr := c.load(g, env)
	if rep == nil {
		return loadErr
	}
	w := env.Stdout
	var file *os.File
	if c.Output != "" {
		f, err := os.Create(c.Output)
		if err != nil {
			return err
		}
		file, w = f, f
	}
	bw := bufio.NewWriter(w)
	err := report.PostMortem(bw, report.Options{Format: c.Format}, rep)
	if err == nil {
		err = bw.Flush()
	}
	if file != nil {
		err = errors.Join(err, file.Close())
	}
	if err != nil {
		return err
	}
	return loadErr
}
