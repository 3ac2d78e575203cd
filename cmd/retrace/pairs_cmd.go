package main

import (
	"io"
	"iter"
	"slices"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/report"
)

type pairsCmd struct {
	inputs
	Format     string `short:"f" enum:"${formats},csv" default:"table" help:"Output format (${enum})."`
	Unresolved bool   `help:"Only failures that no later call fixed."`
}

// Run prints each failure chain with its fix.
func (c *pairsCmd) Run(g *Globals, env *Env) error {
	needs := pipeline.Needs{Numbers: true}
	if c.Format == report.JSONL {
		return c.stream(g, env, needs, func(w io.Writer, sr *analyzer.SessionReport) error {
			return report.Pairs(w, g.options(env, c.Format), slices.Values(c.chains(nil, sr)))
		}, nil)
	}
	return streamRows(&c.inputs, g, env, needs, c.chains, func(w io.Writer, chains iter.Seq[*analyzer.Chain]) error {
		return report.Pairs(w, g.options(env, c.Format), chains)
	})
}

// chains appends to list the chains of the session that are asked for.
func (c *pairsCmd) chains(list []*analyzer.Chain, sr *analyzer.SessionReport) []*analyzer.Chain {
	for _, ch := range sr.Chains {
		if !c.Unresolved || ch.Fix == nil {
			list = append(list, ch)
		}
	}
	return list
}
