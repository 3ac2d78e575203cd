package main

import (
	"io"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/internal/redact"
	"github.com/retrace-dev/retrace/report"
)

type lessonsCmd struct {
	inputs
	Format   string `short:"f" enum:"${formats},markdown" default:"table" help:"Output format (${enum}); markdown writes instructions for an agent's AGENTS.md or CLAUDE.md."`
	MinCount int    `name:"min-count" default:"1" help:"Only mistakes made at least this many times."`
}

// Run prints the mistakes made and their corrections. The lessons are
// drawn from each session as soon as it is analyzed; the numbers the calls
// printed are not read.
func (c *lessonsCmd) Run(g *Globals, env *Env) error {
	var set analyzer.LessonSet
	return c.stream(g, env, pipeline.Needs{Records: true, Parts: true}, func(_ io.Writer, sr *analyzer.SessionReport) error {
		set.Add(sr)
		return nil
	}, func(w io.Writer, known *redact.Redactor) error {
		var lessons []*analyzer.Lesson
		for _, l := range set.Lessons() {
			if l.Count >= c.MinCount {
				if known != nil {
					// Lessons come from parts of sessions, whose call ids
					// are not masked yet, and learn nothing of the secrets
					// the inputs after theirs taught.
					l.MapStrings(known.String)
				}
				lessons = append(lessons, l)
			}
		}
		return report.Lessons(w, g.options(env, c.Format), lessons)
	})
}
