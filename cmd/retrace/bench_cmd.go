package main

import (
	"io"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
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
	needs := pipeline.Needs{Numbers: true, Records: true}
	if c.Format == report.JSONL {
		return c.stream(g, env, needs, func(w io.Writer, sr *analyzer.SessionReport) error {
			return report.Bench(w, g.options(env, c.Format), c.numbers(nil, sr))
		}, nil)
	}
	return c.render(g, env, needs, c.Format, func(w *output, o report.Options) error {
		if o.Format == report.Table && !c.Runs {
			return report.Timelines(w, o, w.report.Timelines)
		}
		var bench []*analyzer.Bench
		for _, s := range w.report.Sessions {
			bench = c.numbers(bench, s)
		}
		return report.Bench(w, o, bench)
	})
}

// numbers appends to list the numbers of the session that are asked for.
func (c *benchCmd) numbers(list []*analyzer.Bench, sr *analyzer.SessionReport) []*analyzer.Bench {
	for _, b := range sr.Benchmarks {
		if c.Failed || !b.Failed {
			list = append(list, b)
		}
	}
	return list
}
