package main

import (
	"bytes"
	"path/filepath"
	"runtime"
	"testing"
)

// TestWorkers checks that the output does not depend on how many files
// are read at once: every command's JSON over many transcripts is the same
// with one worker as with eight.
func TestWorkers(t *testing.T) {
	testdata := filepath.Join("..", "..", "testdata")
	runAll := func(procs int) map[string]string {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		out := map[string]string{}
		for _, cmd := range []string{"summary", "errors", "pairs", "bench", "lessons"} {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr,
				Getenv: func(k string) string {
					if k == redactKeyVar {
						return "workers"
					}
					return ""
				}}
			run([]string{cmd, "-f", "json", testdata}, env)
			out[cmd] = stdout.String() + stderr.String()
		}
		return out
	}
	one, many := runAll(1), runAll(8)
	for cmd, want := range one {
		if len(want) < 100 {
			t.Errorf("%s: too little output to compare: %q", cmd, want)
		}
		if many[cmd] != want {
			t.Errorf("%s: output with 8 workers differs from the output with 1", cmd)
		}
	}
}
