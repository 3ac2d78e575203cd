package main

import (
	"bufio"
	"slices"
	"strconv"
	"strings"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/report"
)

type showCmd struct {
	File        rawArg `arg:"" name:"file" help:"The transcript; FILE#CALL names the call too."`
	Call        string `arg:"" optional:"" name:"call" help:"A call of the chain to tell: its id (toolu_…, call_…, #N) or its message number (33 or msg33). Without it, every chain of the file is told."`
	InputFormat string `name:"input-format" short:"i" default:"auto" enum:"${input_formats}" help:"Read the file as this format (${enum}); auto recognizes it from its content."`
	Format      string `short:"f" enum:"text,json,jsonl" default:"text" help:"Output format (${enum})."`
	redaction
}

// Run tells the failure chains of one transcript as stories.
func (c *showCmd) Run(g *Globals, env *Env) error {
	file, sel := string(c.File), c.Call
	if sel == "" {
		if i := strings.LastIndexByte(file, '#'); i > 0 {
			file, sel = file[:i], file[i+1:]
		}
	}
	in := inputs{Paths: []rawArg{rawArg(file)}, InputFormat: c.InputFormat, redaction: c.redaction}
	rep, loadErr := in.load(g, env, pipeline.Needs{Numbers: true}, nil)
	if rep == nil || len(rep.Sessions) == 0 {
		return loadErr
	}
	// The chains the call is a failure or the fix of; else those it
	// came between the attempts of.
	var own, between []*analyzer.Chain
	for _, s := range rep.Sessions {
		for _, ch := range s.Chains {
			switch {
			case sel == "" || chainHas(ch, sel, false):
				own = append(own, ch)
			case chainHas(ch, sel, true):
				between = append(between, ch)
			}
		}
	}
	chains := own
	if len(chains) == 0 {
		chains = between
	}
	if len(chains) == 0 {
		if sel == "" {
			say(env.Stderr, "retrace: %s has no failed calls", file)
			return loadErr
		}
		say(env.Stderr, "retrace: %s: no failure chain holds call %q (see \"retrace pairs %s\")", file, sel, file)
		return errPartial
	}
	w := bufio.NewWriter(env.Stdout)
	if err := report.Show(w, g.options(env, c.Format), chains); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return loadErr
}

// chainHas reports whether a chain holds the call sel names, by id or by
// message number ("33", "msg33", "msg 33"): as a failure or the fix, or,
// with between, as a call between its attempts.
func chainHas(ch *analyzer.Chain, sel string, between bool) bool {
	ids := slices.Concat(ch.Retries, []string{ch.Failure.CallID})
	msgs := []int{ch.Failure.Msg}
	for _, f := range ch.Failures() {
		msgs = append(msgs, f.Msg)
	}
	if between {
		for _, st := range ch.Between {
			ids = append(ids, st.CallID)
			msgs = append(msgs, st.Msg)
		}
	}
	if ch.Fix != nil {
		ids = append(ids, ch.Fix.CallID)
		msgs = append(msgs, ch.Fix.Msg)
	}
	if slices.Contains(ids, sel) {
		return true
	}
	n, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(sel, "msg")))
	return err == nil && slices.Contains(msgs, n)
}
