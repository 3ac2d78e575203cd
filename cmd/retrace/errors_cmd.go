package main

import (
	"io"
	"iter"
	"slices"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/report"
)

type errorsCmd struct {
	inputs
	Format   string   `short:"f" enum:"${formats},csv" default:"table" help:"Output format (${enum})."`
	Category []string `short:"c" enum:"${categories}" help:"Only failures of these categories (${category_list}); repeat or separate with commas."`
}

// Run prints every failed call.
func (c *errorsCmd) Run(g *Globals, env *Env) error {
	var needs pipeline.Needs // no numbers
	if c.Format == report.JSONL {
		return c.stream(g, env, needs, func(w io.Writer, sr *analyzer.SessionReport) error {
			return report.Errors(w, g.options(env, c.Format), slices.Values(c.failures(nil, sr)))
		}, nil)
	}
	return streamRows(&c.inputs, g, env, needs, c.failures, func(w io.Writer, failures iter.Seq[*analyzer.Failure]) error {
		return report.Errors(w, g.options(env, c.Format), failures)
	})
}

// failures appends to list the failures of the session that are asked for.
func (c *errorsCmd) failures(list []*analyzer.Failure, sr *analyzer.SessionReport) []*analyzer.Failure {
	for _, f := range sr.Failures {
		if len(c.Category) == 0 || slices.Contains(c.Category, string(f.Category)) {
			list = append(list, f)
		}
	}
	return list
}
