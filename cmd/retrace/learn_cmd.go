package main

import (
	"errors"
	"io"
	"path/filepath"

	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/internal/guard"
	"github.com/retrace-dev/retrace/internal/pipeline"
)

type learnCmd struct {
	inputs
	Store string `placeholder:"FILE" help:"The file to keep the lessons in (default: $XDG_DATA_HOME/retrace/lessons.jsonl)."`
}

// Run keeps the lessons of the transcripts in the store that retrace
// guard reads: each flag or value a program rejected and the call that
// corrected it, with the session it was learned from. What was learned
// before from the same sessions is replaced; other sessions' lessons stay.
func (c *learnCmd) Run(g *Globals, env *Env) error {
	store := guard.Store{Path: storePath(c.Store, env)}
	if store.Path == "" {
		return errNoStore
	}
	seen := make(map[string]bool)
	var sessions []string
	var lessons []guard.Lesson
	err := c.stream(g, env, pipeline.Needs{Parts: true}, func(_ io.Writer, sr *analyzer.SessionReport) error {
		path := sr.Session.Path
		if abs, err := filepath.Abs(path); err == nil && path != "<stdin>" {
			path = abs
		}
		if !seen[path] {
			seen[path] = true
			sessions = append(sessions, path)
		}
		learned, _ := guard.Draw(sr, 0)
		for _, l := range learned {
			l.Session = path
			lessons = append(lessons, l)
		}
		return nil
	}, nil)
	if err != nil && !errors.Is(err, errPartial) {
		return err
	}
	n, serr := store.Replace(sessions, lessons)
	if serr != nil {
		return serr
	}
	if !g.Quiet {
		say(env.Stderr, "retrace: learned %d lessons from %s; %s holds %d", len(lessons), files(len(sessions), "session"), store.Path, n)
	}
	return err
}
