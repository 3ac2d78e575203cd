package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestProgress checks that the progress bar shows on a terminal's standard
// error, for large enough inputs, and never with --quiet, on a pipe, or in
// standard output.
func TestProgress(t *testing.T) {
	defer func(n int64) { progressMin = n }(progressMin)
	progressMin = 1 // every input is large enough
	seeds := filepath.Join("..", "..", "testdata", "seeds")
	tests := []struct {
		name        string
		errTerminal bool
		args        []string
		want        bool
	}{
		{"terminal", true, []string{"errors", seeds}, true},
		{"quiet", true, []string{"errors", "-q", seeds}, false},
		{"pipe", false, []string{"errors", seeds}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, ErrTerminal: tt.errTerminal,
				Getenv: func(string) string { return "" }}
			if status := run(tt.args, env); status != 0 {
				t.Fatalf("status %d: %s", status, stderr.String())
			}
			if got := strings.Contains(stderr.String(), "files"); got != tt.want {
				t.Errorf("progress shown: %v, want %v; stderr:\n%q", got, tt.want, stderr.String())
			}
			if strings.Contains(stdout.String(), "reading") {
				t.Error("progress in standard output")
			}
		})
	}
}
