package main

import (
	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/report"
)

type pairsCmd struct {
	inputs
	Format     string `short:"f" enum:"${formats},csv" default:"table" help:"Output format (${enum})."`
	Unresolved bool   `help:"Only failures that no later call fixed."`
}

// Run prints each failure chain with its fix.
func (c *pairsCmd) Run(g *Globals, env *Env) error {
	return c.render(g, env, c.Format, func(w *output, o report.Options) error {
		var chains []*analyzer.Chain
		for _, s := range w.report.Sessions {
			for _, ch := range s.Chains {
				if !c.Unresolved || ch.Fix == nil {
					chains = append(chains, ch)
				}
			}
		}
		return report.Pairs(w, o, chains)
	})
}
