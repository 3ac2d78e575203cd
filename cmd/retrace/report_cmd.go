package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

type reportCmd struct {
	inputs
	Format string `short:"f" enum:"markdown,html" default:"markdown" help:"Output format (${enum}): Markdown for a pull request or a wiki, or one self-contained HTML page."`
	Output string `short:"o" name:"output" placeholder:"FILE" help:"Write the report to FILE instead of standard output."`
}

// Run writes the post-mortem of the transcripts.
func (c *reportCmd) Run(g *Globals, env *Env) error {
	rep, loadErr := c.load(g, env)
	if rep == nil {
		return loadErr
	}
	if err := c.refuseOverwrite(rep); err != nil {
		return err
	}
	w := env.Stdout
	var file *os.File
	if c.Output != "" {
		f, err := os.Create(c.Output)
		if err != nil {
			return errors.New(pathError(err))
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

// refuseOverwrite returns a usage error when the -o file is one of the
// transcripts read: found in a directory, or named through a link.
func (c *reportCmd) refuseOverwrite(rep *analyzer.Report) error {
	if c.Output == "" {
		return nil
	}
	out, err := os.Stat(c.Output)
	if err != nil {
		return nil // a new file
	}
	for _, s := range rep.Sessions {
		if in, err := os.Stat(s.Session.Path); err == nil && os.SameFile(in, out) {
			return usageError(fmt.Sprintf("-o %s would overwrite an input", c.Output))
		}
	}
	return nil
}
