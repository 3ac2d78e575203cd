package main

import (
	"fmt"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressMin is the input size from which reading shows a progress bar:
// smaller inputs are read before a bar would be seen.
var progressMin int64 = 256 << 20

// A progress shows on a terminal's standard error how far reading has got:
// files, bytes, speed and the time left. It is the pipeline.Progress of a
// run, and shows a bar once told of at least progressMin bytes to read. A
// nil *progress shows nothing.
type progress struct {
	env   *Env
	w     *warner // holds its messages back while the bar is shown
	bar   *progressbar.ProgressBar
	files int
	done  atomic.Int64
}

// newProgress returns the progress of reading, or nil when no bar is
// wanted: with --quiet, or when standard error is not a terminal.
func newProgress(g *Globals, env *Env, w *warner) *progress {
	if g.Quiet || !env.ErrTerminal {
		return nil
	}
	return &progress{env: env, w: w}
}

// Start shows the bar for files of size bytes, unless they are fewer than
// progressMin.
func (p *progress) Start(files int, size int64) {
	if size < progressMin {
		return
	}
	p.files = files
	p.bar = progressbar.NewOptions64(size,
		progressbar.OptionSetWriter(p.env.Stderr),
		progressbar.OptionSetDescription(p.description(0)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	p.w.hold()
}

func (p *progress) description(done int64) string {
	return fmt.Sprintf("reading %d/%d files", done, p.files)
}

// Read counts n bytes read towards the bar.
func (p *progress) Read(n int) {
	if p.bar != nil {
		p.bar.Add(n)
	}
}

// FileDone counts one more file read.
func (p *progress) FileDone() {
	if p.bar != nil {
		p.bar.Describe(p.description(p.done.Add(1)))
	}
}

// finish clears the bar, leaving the terminal as it was.
func (p *progress) finish() {
	if p != nil && p.bar != nil {
		p.bar.Finish()
	}
}
