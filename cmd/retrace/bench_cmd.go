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
		runs := func(list []*analyzer.Bench, sr *analyzer.SessionReport) []*analyzer.Bench {
			for _, b := range sr.Benchmarks {
				if r := timelineRun(b); r != nil {
					list = append(list, r)
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

// timelineRun returns what the bench table reads of the number b, to
// store until every input is read: a copy without its text or the call
// that printed it, or nil for the number of a failed run, which no
// timeline follows. analyzer.TimelineRuns keeps less still.
func timelineRun(b *analyzer.Bench) *analyzer.Bench {
	if b.Failed {
		return nil
	}
	r := *b
	r.CallID, r.Msg, r.Text, r.Line = "", 0, "", 0
	return &r
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
