package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestSeedFileCodex checks that testdata/seeds/codex.jsonl is what the seed
// scenario renders to; -update rewrites it.
func TestSeedFileCodex(t *testing.T) {
	var got bytes.Buffer
	if err := WriteCodex(&got, Seeds()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "testdata", "seeds", "codex.jsonl")
	if *update {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("%s is not what the seed scenario renders to; run go test ./internal/synth -run TestSeedFileCodex -update", path)
	}
}
