package main

import (
	"bufio"
	"io"
	"path/filepath"
	"strings"

	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/report"
)

type reportCmd struct {
	inputs
	Format string `short:"f" enum:"auto,markdown,html" default:"auto" help:"Output format (${enum}): Markdown for a pull request or a wiki, or one self-contained HTML page; auto is HTML when -o names a .html file, else Markdown."`
	Output string `short:"o" name:"output" placeholder:"FILE" help:"Write the report to FILE instead of standard output. FILE may not be an input, and an existing FILE is replaced only when it is an earlier report or empty."`
	Force  bool   `help:"Let -o replace an existing FILE that is not an earlier report (never an input)."`
	Brief  bool   `help:"In Markdown, only the totals, the mistakes made most and the sessions and failures that cost most: short enough for a pull-request comment; the HTML report has the rest."`
}

// Run writes the post-mortem of the transcripts.
func (c *reportCmd) Run(g *Globals, env *Env) error {
	if c.Format == "auto" {
		c.Format = formatOf(c.Output)
	}
	var out *outFile
	if c.Output != "" {
		out = &outFile{path: c.Output, force: c.Force, wrote: report.IsPostMortem}
	}
	rep, loadErr := c.load(g, env, pipeline.Needs{Numbers: true}, out)
	if rep == nil {
		return loadErr
	}
	render := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := report.PostMortem(bw, report.Options{Format: c.Format, Brief: c.Brief}, rep); err != nil {
			return err
		}
		return bw.Flush()
	}
	var err error
	if out != nil {
		err = out.write(render)
	} else {
		err = render(env.Stdout)
	}
	if err != nil {
		return err
	}
	return loadErr
}

// formatOf returns the report format a file name asks for: HTML for .html
// and .htm, else Markdown.
func formatOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".html", ".htm":
		return "html"
	}
	return "markdown"
}
