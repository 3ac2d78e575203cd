package main

import (
	"runtime"
	"runtime/debug"
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
	restore()
	if percent() != wantPercent || limit() != wantLimit {
		t.Errorf("after restore: %d%% and %d bytes, want %d%% and %d", percent(), limit(), wantPercent, wantLimit)
	}
}
