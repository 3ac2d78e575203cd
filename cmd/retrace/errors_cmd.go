package main

import (
	"slices"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

type errorsCmd struct {
	inputs
	Format   string   `short:"f" enum:"${formats},csv" default:"table" help:"Output format (${enum})."`
	Category []string `short:"c" help:"Only failures of these categories (cli-usage, command-not-found, exception, …; repeat or separate with commas)."`
}

// Run prints every failed call.
func (c *errorsCmd) Run(g *Globals, env *Env) error {
	return c.render(g, env, c.Format, func(w *output, o report.Options) error {
		var failures []*analyzer.Failure
		for _, s := range w.report.Sessions {
			for _, f := range s.Failures {
				if len(c.Category) == 0 || slices.Contains(c.Category, string(f.Category)) {
					failures = append(failures, f)
				}
			}
		}
		return report.Errors(w, o, failures)
	})
}
