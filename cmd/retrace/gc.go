package main

import (
	"math"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// The commands that stream keep a few sessions, or a window of one, alive
// at a time, while every output they read is garbage as soon as it is
// analyzed: with Go's default of collecting each time the heap doubles,
// the collector runs a hundred times a gigabyte. These settings let the
// garbage grow to four times what is alive before a collection, within a
// soft limit on the memory the runtime holds of gcLimit, or, when it is
// more, of twice the live heap plus what no collection can free: goroutine
// stacks and the runtime's own memory. A limit below that would make the
// collector run back to back, costing far more than the memory it saves:
// goroutine stacks grown past the limit once kept it busy for minutes. As a last guard, when collections take more than gcMaxShare of
// the CPU time all the same, the limit is raised to twice the memory in
// use, and never lowered below that again.
const (
	gcPercent  = 400
	gcLimit    = 80 << 20
	gcMaxShare = 0.25
)

// gcMetrics are the samples tuneGC reads, in the order of the gm
// constants.
var gcMetrics = [gmCount]string{
	"/gc/heap/live:bytes",
	"/memory/classes/total:bytes",
	"/memory/classes/heap/objects:bytes",
	"/memory/classes/heap/free:bytes",
	"/memory/classes/heap/released:bytes",
	"/memory/classes/heap/unused:bytes",
	"/cpu/classes/gc/total:cpu-seconds",
	"/cpu/classes/total:cpu-seconds",
}

const (
	gmLive = iota
	gmTotal
	gmObjects
	gmFree
	gmReleased
	gmUnused
	gmGCCPU
	gmCPU
	gmCount
)

// gcState is what the limit is computed from.
type gcState struct {
	live  uint64 // the heap alive after the last collection
	fixed uint64 // memory no collection frees: stacks, the runtime's own
	inUse uint64 // memory the runtime holds and has not released
	// gcCPU and cpu count the CPU time spent collecting and the time
	// available to the process (GOMAXPROCS times the wall time), from its
	// start; winGC and winCPU are their values when the window began.
	gcCPU, cpu, winGC, winCPU float64
	floor                     int64 // the lowest limit, raised when collections cost much
}

// read updates s from the runtime's metrics, and reports false when they
// are not there.
func (s *gcState) read(samples []metrics.Sample) bool {
	metrics.Read(samples)
	var v [gmCount]uint64
	var f [gmCount]float64
	for i, sm := range samples {
		switch sm.Value.Kind() {
		case metrics.KindUint64:
			v[i] = sm.Value.Uint64()
		case metrics.KindFloat64:
			f[i] = sm.Value.Float64()
		default:
			return false
		}
	}
	heap := v[gmObjects] + v[gmFree] + v[gmReleased] + v[gmUnused]
	s.live = v[gmLive]
	s.fixed = v[gmTotal] - min(heap, v[gmTotal])
	s.inUse = v[gmTotal] - min(v[gmReleased], v[gmTotal])
	s.gcCPU, s.cpu = f[gmGCCPU], f[gmCPU]
	return true
}

// limit returns the memory limit for the state s. At the end of each
// window of one CPU second, it raises s.floor when the collections of the
// window took more than gcMaxShare of it.
func (s *gcState) limit() int64 {
	if window := s.cpu - s.winCPU; window >= 1 {
		if s.gcCPU-s.winGC > gcMaxShare*window {
			s.floor = max(s.floor, 2*clampInt64(s.inUse))
		}
		s.winGC, s.winCPU = s.gcCPU, s.cpu
	}
	return max(s.floor, gcLimit, 2*clampInt64(s.live)+clampInt64(s.fixed))
}

// clampInt64 converts n, capped at half the largest int64 so that twice
// it still fits.
func clampInt64(n uint64) int64 {
	return int64(min(n, math.MaxInt64/4))
}

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
		samples := make([]metrics.Sample, gmCount)
		for i, name := range gcMetrics {
			samples[i].Name = name
		}
		var s gcState
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			if !s.read(samples) {
				debug.SetMemoryLimit(math.MaxInt64)
				return
			}
			debug.SetMemoryLimit(s.limit())
		}
	}()
	return func() {
		close(done)
		<-stopped
		debug.SetGCPercent(percent)
		debug.SetMemoryLimit(limit)
	}
}
