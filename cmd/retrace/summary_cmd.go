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

// Run prints the counts, the failure chains and the top lessons. Each
// session is added up as soon as it is analyzed and let go: the table
// keeps only the chains it lists.
func (c *summaryCmd) Run(g *Globals, env *Env) error {
	sum := analyzer.NewSummary()
	if report.CountsOnly(c.Format) {
		// The numbers the calls printed are not read, and the texts of
		// the calls, which are not printed, are not masked.
		return c.stream(g, env, pipeline.Needs{Parts: true, CountsOnly: true}, func(_ io.Writer, sr *analyzer.SessionReport) error {
			sum.Add(sr)
			return nil
		}, func(w io.Writer, known *redact.Redactor) error {
			sum.End()
			if known != nil {
				sum.MapStrings(known.Known) // titles said before the inputs that taught their secrets
			}
			return report.SummaryCounts(w, g.options(env, c.Format), sum)
		})
	}
	o := g.options(env, c.Format)
	o.Top, o.Sort, o.By = c.Top, c.Sort, c.By
	digest := report.NewDigest(o)
	var lessons analyzer.LessonSet
	// The numbers are those of the chains' fixes, which a part holds.
	return c.stream(g, env, pipeline.Needs{Numbers: true, Parts: true}, func(_ io.Writer, sr *analyzer.SessionReport) error {
		sum.Add(sr)
		digest.Add(sr)
		lessons.Add(sr)
		return nil
	}, func(w io.Writer, known *redact.Redactor) error {
		sum.End()
		list := lessons.Lessons()
		if known != nil {
			// What was kept of a session learned nothing of the secrets
			// the inputs after it taught.
			sum.MapStrings(known.String)
			digest.MapStrings(known.String)
			for _, l := range list {
				l.MapStrings(known.String)
			}
		}
		return report.SummaryTable(w, o, sum, digest, list)
	})
}
