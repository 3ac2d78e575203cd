package cputime

import (
	"flag"
	"runtime"
	"testing"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

func TestUsed(t *testing.T) {
	if runtime.GOOS == "windows" || runtime.GOOS == "plan9" || runtime.GOOS == "js" || runtime.GOOS == "wasip1" {
		t.Skip("no CPU time here")
	}
	start := Used()
	x := 0
	for i := range 50_000_000 {
		x += i % 7
	}
	if Used() <= start || x < 0 {
		t.Errorf("Used did not grow over a busy loop: %v then %v", start, Used())
	}
}
