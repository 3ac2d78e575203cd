package main

import (
	"fmt"
	"io"
	"os"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressMin is the input size from which reading shows a progress bar:
// smaller inputs are read before a bar would be seen.
var progressMin int64 = 256 << 20

// A progress shows on a terminal's standard error how far reading has got:
// files, bytes, speed and the time left. A nil *progress shows nothing.
type progress struct {
	bar   *progressbar.ProgressBar
	files int
	done  atomic.Int64
}

// newProgress returns the progress of reading sources, or nil when no bar
// is wanted: with --quiet, when standard error is not a terminal, or for
// less than progressMin bytes.
func newProgress(g *Globals, env *Env, sources []source) *progress {
	if g.Quiet || !env.ErrTerminal {
		return nil
	}
	var total int64
	for _, s := range sources {
		if fi, err := os.Stat(s.name); err == nil {
			total += fi.Size()
		}
	}
	if total < progressMin {
		return nil
	}
	p := &progress{files: len(sources)}
	p.bar = progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(env.Stderr),
		progressbar.OptionSetDescription(p.description(0)),
		progressbar.OptionShowBytes(true),
		progressbar.OptionSetWidth(30),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionThrottle(100*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
	return p
}

func (p *progress) description(done int64) string {
	return fmt.Sprintf("reading %d/%d files", done, p.files)
}

// reader counts what is read from r towards the bar.
func (p *progress) reader(r io.Reader) io.Reader {
	if p == nil {
		return r
	}
	return &countingReader{r: r, bar: p.bar}
}

// fileDone counts one more file read.
func (p *progress) fileDone() {
	if p == nil {
		return
	}
	p.bar.Describe(p.description(p.done.Add(1)))
}

// finish clears the bar, leaving the terminal as it was.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.bar.Finish()
}

type countingReader struct {
	r   io.Reader
	bar *progressbar.ProgressBar
}

func (c *countingReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.bar.Add(n)
	return n, err
}
