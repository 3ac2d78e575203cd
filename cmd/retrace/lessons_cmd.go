package main

import (
	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

type lessonsCmd struct {
	inputs
	Format   string `short:"f" enum:"${formats},markdown" default:"table" help:"Output format (${enum}); markdown writes instructions for an agent's AGENTS.md or CLAUDE.md."`
	MinCount int    `name:"min-count" default:"1" help:"Only mistakes made at least this many times."`
}

// Run prints the mistakes made and their corrections.
func (c *lessonsCmd) Run(g *Globals, env *Env) error {
	c.reduce = true
	return c.render(g, env, c.Format, func(w *output, o report.Options) error {
		var lessons []*analyzer.Lesson
		for _, l := range w.report.Lessons {
			if l.Count >= c.MinCount {
				lessons = append(lessons, l)
			}
		}
		return report.Lessons(w, o, lessons)
	})
}
