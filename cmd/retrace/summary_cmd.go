package main

import "github.com/retrace-dev/retrace/report"

type summaryCmd struct {
	inputs
	Format string `short:"f" enum:"${formats}" default:"table" help:"Output format (${enum})."`
}

// Run prints the counts, the failure chains and the top lessons.
func (c *summaryCmd) Run(g *Globals, env *Env) error {
	return c.render(g, env, c.Format, func(w *output, o report.Options) error {
		return report.Summary(w, o, w.report)
	})
}
