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

// Run writes the post-mortem of the transcripts. The sessions are
// gathered as they are analyzed, each letting go of the calls the
// post-mortem does not quote, and masked, once every input is read, with
// the secrets all of them taught.
func (c *reportCmd) Run(g *Globals, env *Env) error {
	if c.Format == "auto" {
		c.Format = formatOf(c.Output)
	}
	var out *outFile
	if c.Output != "" {
		out = &outFile{path: c.Output, force: c.Force, wrote: report.IsPostMortem}
	}
	defer tuneGC(env)()
	var gathered report.Gathering
	known, loadErr := c.each(g, env, pipeline.Needs{Numbers: true}, out, gathered.Add)
	if loadErr != nil && loadErr != errPartial {
		return loadErr
	}
	var mask func(string) string
	if known.Remembers() {
		mask = known.Known
	}
	render := func(w io.Writer) error {
		bw := bufio.NewWriter(w)
		if err := gathered.Write(bw, report.Options{Format: c.Format, Brief: c.Brief}, mask); err != nil {
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
