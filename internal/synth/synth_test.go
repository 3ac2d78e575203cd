package synth

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

// TestSeedFiles checks that the seed transcripts in testdata are what the
// scenario renders to; -update rewrites them.
func TestSeedFiles(t *testing.T) {
	for _, tt := range []struct {
		file  string
		write func(*bytes.Buffer) error
	}{
		{"opencode.json", func(b *bytes.Buffer) error { return WriteOpencode(b, Seeds()) }},
		{"claude-code.jsonl", func(b *bytes.Buffer) error { return WriteClaude(b, Seeds()) }},
	} {
		var got bytes.Buffer
		if err := tt.write(&got); err != nil {
			t.Fatalf("%s: %v", tt.file, err)
		}
		path := filepath.Join("..", "..", "testdata", "seeds", tt.file)
		if *update {
			if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("%s is not what the seed scenario renders to; run go test ./internal/synth -update", path)
		}
	}
}
