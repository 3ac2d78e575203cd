package guard

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// A Guard answers hook payloads from the lessons of a Store and of the
// sessions' own transcripts.
type Guard struct {
	Store Store
}

// tracker returns the Tracker that keeps its state beside the store.
func (g Guard) tracker() Tracker {
	return Tracker{Dir: g.Store.stateDir()}
}

// Handle answers one payload. Before a shell call, the reply blocks it
// when it uses a flag or value that a confirmed lesson of its target says
// is wrong; after a shell call that failed, it holds the fix that an
// earlier chain found for the same failure. The error reports what could
// not be read (the transcript, the store): the reply is then drawn from
// the rest.
func (g Guard) Handle(p *Payload) (Reply, error) {
	if p.Command == "" {
		return Reply{}, nil
	}
	cmd := shell.Parse(p.Command)
	if cmd.Target == "" {
		return Reply{}, nil
	}
	var own Found
	var errs []error
	if p.Transcript != "" {
		var err error
		if own, err = g.tracker().Session(p.Transcript); err != nil {
			errs = append(errs, err)
		}
	}
	stored, err := g.Store.For(cmd.Target)
	if err != nil {
		errs = append(errs, err)
	}
	// The store's lessons of this very transcript are read from it.
	stored = slices.DeleteFunc(stored, func(l Lesson) bool { return l.Session == p.Transcript })
	if p.Before {
		return Reply{Block: block(cmd, own.Lessons, stored)}, errors.Join(errs...)
	}
	c := &parser.Call{Kind: parser.KindShell, Tool: p.Tool, Command: p.Command, Output: p.Output, Exit: p.Exit, IsError: p.Failed}
	d := diagnose.Call(c, cmd)
	if d == nil {
		return Reply{}, errors.Join(errs...)
	}
	return Reply{Context: context(cmd.Target, d, own.Fixes, stored)}, errors.Join(errs...)
}

// block returns the reason to block cmd, or "": one reason for each wrong
// flag or value it uses that a confirmed lesson of its target names, the
// session's own lessons first.
func block(cmd *shell.Command, own, stored []Lesson) string {
	var lessons []Lesson
	for _, l := range own {
		if l.Target == cmd.Target {
			lessons = append(lessons, l)
		}
	}
	mine := len(lessons)
	lessons = append(lessons, stored...)
	// A flag that any usage text of the target offers is not wrong,
	// whatever a lesson says.
	var valid []string
	for _, l := range lessons {
		valid = append(valid, l.ValidFlags...)
	}
	var reasons, seen []string
	for i, l := range lessons {
		if slices.Contains(seen, l.Wrong) || !l.confirmed(valid) || !l.usedBy(cmd.Args) {
			continue
		}
		seen = append(seen, l.Wrong)
		reasons = append(reasons, l.reason(i < mine))
	}
	return strings.Join(reasons, "; ")
}

// context returns what to tell the model about the failure d of target:
// the latest fix of the session that followed the same failure, else a
// fix learned from another session for a flag the failure rejected; ""
// when there is none.
func context(target string, d *diagnose.Diagnosis, fixes []Fix, stored []Lesson) string {
	for i := len(fixes) - 1; i >= 0; i-- {
		f := fixes[i]
		if f.Target == target && f.Category == string(d.Category) && sameWay(f, d) {
			return fmt.Sprintf("this failed the same way at msg %d; msg %d fixed it %s", f.Failed, f.Fixed, f.With)
		}
	}
	if d.Category != diagnose.CLIUsage {
		return ""
	}
	for _, l := range stored {
		if l.Kind == "flag" && slices.Contains(d.BadFlags, l.Wrong) {
			return fmt.Sprintf("this failed the same way at msg %d in %s; msg %d fixed it %s",
				l.Failed, filepath.Base(l.Session), l.Fixed, l.With)
		}
	}
	return ""
}

// sameWay reports whether the failure d is the failure of f again: a usage
// error that rejected one of the same flags, or the same error message.
func sameWay(f Fix, d *diagnose.Diagnosis) bool {
	if d.Category == diagnose.CLIUsage && len(d.BadFlags) > 0 {
		return slices.ContainsFunc(d.BadFlags, func(b string) bool { return slices.Contains(f.BadFlags, b) })
	}
	return f.Message == d.Message
}
