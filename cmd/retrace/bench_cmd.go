package main

import (
	"io"
	"iter"
	"slices"

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
			return report.Bench(w, g.options(env, c.Format), slices.Values(c.numbers(nil, sr)))
		}, nil)
	}
	o := g.options(env, c.Format)
	if o.Format == report.Table && !c.Runs {
		// The timelines leave out the numbers of failed runs themselves,
		// read of a number neither its text nor the call that printed it,
		// and keep of each run its value and start alone.
		runs := func(list []*analyzer.Bench, sr *analyzer.SessionReport) []*analyzer.Bench {
			for _, b := range sr.Benchmarks {
				if !b.Failed {
					run := *b
					run.CallID, run.Msg, run.Text, run.Line = "", 0, "", 0
					list = append(list, &run)
				}
			}
			return list
		}
		return streamRows(&c.inputs, g, env, needs, runs, func(w io.Writer, bench iter.Seq[*analyzer.Bench]) error {
			return report.Timelines(w, o, analyzer.TimelineRuns(bench))
		})
	}
	return streamRows(&c.inputs, g, env, needs, c.numbers, func(w io.Writer, bench iter.Seq[*analyzer.Bench]) error {
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
