package main

import (
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The commands that stream keep a few sessions, or a window of one, alive
// at a time, while every output they read is garbage as soon as it is
// analyzed: with Go's default of collecting each time the heap doubles,
// the collector runs a hundred times a gigabyte. These settings let the
// garbage grow to four times what is alive before a collection, within a
// soft limit on the heap of gcLimit, or of twice what is alive when that
// is more, so that an input that keeps much alive is not collected over
// and over.
const (
	gcPercent = 400
	gcLimit   = 128 << 20
)

// tuneGC applies the settings above, unless GOGC or GOMEMLIMIT says
// otherwise, and returns the function that puts back Go's own.
func tuneGC(env *Env) (restore func()) {
	if env.Getenv("GOGC") != "" || env.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	percent := debug.SetGCPercent(gcPercent)
	limit := debug.SetMemoryLimit(gcLimit)
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			metrics.Read(sample)
			if sample[0].Value.Kind() != metrics.KindUint64 {
				return
			}
			debug.SetMemoryLimit(max(gcLimit, 2*int64(sample[0].Value.Uint64())))
		}
	}()
	return func() {
		close(done)
		<-stopped
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
