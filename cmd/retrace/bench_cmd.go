package main

import (
	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

type benchCmd struct {
	inputs
	Format string `short:"f" enum:"${formats},csv" default:"table" help:"Output format (${enum})."`
	Failed bool   `help:"Include numbers printed by calls that failed."`
	Runs   bool   `help:"In the table, list every number rather than one line per metric and configuration (JSON, JSONL and CSV always list every number)."`
}

// Run prints the benchmark numbers.
func (c *benchCmd) Run(g *Globals, env *Env) error {
	c.reduce = true
	return c.render(g, env, c.Format, func(w *output, o report.Options) error {
		var bench []*analyzer.Bench
		for _, s := range w.report.Sessions {
			for _, b := range s.Benchmarks {
				if c.Failed || !b.Failed {
					bench = append(bench, b)
				}
			}
		}
		if o.Format == report.Table && !c.Runs {
			return report.Timelines(w, o, analyzer.Timelines(w.report.Sessions))
		}
		return report.Bench(w, o, bench)
	})
}
