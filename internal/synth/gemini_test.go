package synth

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGeminiSeedFile checks that the Gemini CLI seed transcript in testdata
// is what the scenario renders to; -update rewrites it.
func TestGeminiSeedFile(t *testing.T) {
	var got bytes.Buffer
	if err := WriteGemini(&got, Seeds()); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "testdata", "seeds", "gemini.json")
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
		t.Errorf("%s is not what the seed scenario renders to; run go test ./internal/synth -run TestGeminiSeedFile -update", path)
	}
}
