package main

import (
	"io"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/report"
)

type summaryCmd struct {
	inputs
	Format string `short:"f" enum:"${formats}" default:"table" help:"Output format (${enum})."`
	Top    int    `default:"10" help:"In the table, list the N sessions, targets, failure chains and lessons that cost most, and count the rest; 0 lists every one."`
	Sort   string `enum:"cost,count,time" default:"cost" help:"Rank the table's sessions and chains by calls lost (cost), failures (count) or time lost (time)."`
	By     string `enum:",project,day,week,agent" default:"" help:"In the table, add the sessions up by project, day, week (ISO, UTC) or agent, one row each."`
}

// Run prints the counts, the failure chains and the top lessons.
func (c *summaryCmd) Run(g *Globals, env *Env) error {
	if !report.CountsOnly(c.Format) {
		return c.render(g, env, pipeline.Needs{Numbers: true}, c.Format, func(w *output, o report.Options) error {
			o.Top, o.Sort, o.By = c.Top, c.Sort, c.By
			return report.Summary(w, o, w.report)
		})
	}
	// Only the counts are written: each session is counted as soon as it
	// is analyzed, the numbers it printed are not read, and the texts of
	// its calls, which are not printed, are not masked.
	sum := analyzer.NewSummary()
	return c.stream(g, env, pipeline.Needs{Parts: true, CountsOnly: true}, func(_ io.Writer, sr *analyzer.SessionReport) error {
		sum.Add(sr)
		return nil
	}, func(w io.Writer, _ *redact.Redactor) error {
		return report.SummaryCounts(w, g.options(env, c.Format), sum)
	})
}
