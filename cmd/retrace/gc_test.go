package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

// TestTuneGC checks that tuneGC sets the collector's settings, raises the
// heap limit above what is alive, puts Go's own settings back, and leaves
// them alone when GOGC is set.
func TestTuneGC(t *testing.T) {
	percent := func() int {
		p := debug.SetGCPercent(100)
		debug.SetGCPercent(p)
		return p
	}
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	wantPercent, wantLimit := percent(), limit()

	set := &Env{Getenv: func(k string) string {
		if k == "GOGC" {
			return "50"
		}
		return ""
	}}
	restore := tuneGC(set)
	if percent() != wantPercent || limit() != wantLimit {
		t.Errorf("with GOGC set, tuneGC changed the settings to %d%% and %d bytes", percent(), limit())
	}
	restore()

	restore = tuneGC(&Env{Getenv: func(string) string { return "" }})
	if percent() != gcPercent || limit() != gcLimit {
		t.Errorf("tuneGC set %d%% and %d bytes, want %d%% and %d", percent(), limit(), gcPercent, gcLimit)
	}
	live := make([]byte, gcLimit) // more alive than half the limit
	for i := range live {
		live[i] = 1
	}
	runtime.GC()
	deadline := time.Now().Add(5 * time.Second)
	for limit() < 2*gcLimit && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if limit() < 2*gcLimit {
		t.Errorf("with %d bytes alive the limit stayed at %d", len(live), limit())
	}
	runtime.KeepAlive(live)
	live = nil
	runtime.GC()

	// A goroutine stack larger than the limit: no collection can free it,
	// and a limit below it would have the collector run back to back.
	stop, deep := make(chan struct{}), make(chan struct{})
	go growStack(100<<20/stackFrame, deep, stop)
	<-deep
	stacks := []metrics.Sample{{Name: "/memory/classes/heap/stacks:bytes"}}
	metrics.Read(stacks)
	deadline = time.Now().Add(5 * time.Second)
	for limit() <= int64(stacks[0].Value.Uint64()) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if limit() <= int64(stacks[0].Value.Uint64()) {
		t.Errorf("with %d bytes of stacks the limit stayed at %d", stacks[0].Value.Uint64(), limit())
	}
	close(stop)
	restore()
	if percent() != wantPercent || limit() != wantLimit {
		t.Errorf("after restore: %d%% and %d bytes, want %d%% and %d", percent(), limit(), wantPercent, wantLimit)
	}
}

// stackFrame is the size of a frame of growStack.
const stackFrame = 4 << 10

// growStack calls itself n times, each call with a frame of stackFrame
// bytes, then closes deep and waits for stop.
func growStack(n int, deep, stop chan struct{}) byte {
	var frame [stackFrame]byte
	frame[n%stackFrame] = byte(n)
	if n == 0 {
		close(deep)
		<-stop
		return frame[0]
	}
	return growStack(n-1, deep, stop) + frame[n%stackFrame]
}

// TestGCLimit checks the limit tuneGC sets for states of the heap, the
// stacks and the collector's CPU time.
func TestGCLimit(t *testing.T) {
	const mb = 1 << 20
	s := &gcState{}
	for _, step := range []struct {
		name              string
		live, fixed, used uint64
		gcCPU, cpu        float64
		want              int64
	}{
		{"little alive", 10 * mb, 5 * mb, 60 * mb, 0, 0.5, gcLimit},
		{"much alive", 100 * mb, 5 * mb, 300 * mb, 0, 0.9, 205 * mb},
		{"stacks past the limit", 4 * mb, 300 * mb, 320 * mb, 0.1, 0.95, 308 * mb},
		// Two seconds of CPU time, 40% of them collecting: the limit is
		// raised to twice the memory in use, and stays there.
		{"collections costly", 4 * mb, 100 * mb, 300 * mb, 0.8, 2, 600 * mb},
		{"less in use", 4 * mb, 20 * mb, 50 * mb, 0.85, 3.5, 600 * mb},
	} {
		s.live, s.fixed, s.inUse, s.gcCPU, s.cpu = step.live, step.fixed, step.used, step.gcCPU, step.cpu
		if got := s.limit(); got != step.want {
			t.Errorf("%s: limit %d MiB, want %d MiB", step.name, got/mb, step.want/mb)
		}
	}
}
