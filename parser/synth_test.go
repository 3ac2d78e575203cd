package parser

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/retrace-dev/retrace/internal/synth"
)

// TestParseSynth decodes the first transcripts internal/synth writes in
// the Gemini and opencode formats, the ones BenchmarkDecode reads, and
// compares the sessions with ../testdata/synth/<format>.golden. The
// sessions are large, so the golden holds each session's own fields, then
// one line per call with its position, tool and status and a digest of
// the whole call as JSON.
func TestParseSynth(t *testing.T) {
	for _, format := range []string{"gemini", "opencode"} {
		t.Run(format, func(t *testing.T) {
			files, err := synth.Transcripts(format, 1, 2<<20)
			if err != nil {
				t.Fatal(err)
			}
			var got bytes.Buffer
			for i, data := range files {
				s, err := Parse(bytes.NewReader(data), fmt.Sprintf("synth-%d", i), Lookup(format))
				if err != nil {
					t.Fatal(err)
				}
				calls := s.Calls
				s.Calls = nil
				head, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				fmt.Fprintf(&got, "%s\n", head)
				for _, c := range calls {
					b, err := json.Marshal(c)
					if err != nil {
						t.Fatal(err)
					}
					exit := "-"
					if c.Exit != nil {
						exit = fmt.Sprint(*c.Exit)
					}
					sum := sha256.Sum256(b)
					fmt.Fprintf(&got, "%d %s %s %q %s %d %x\n", c.Ordinal, c.Pos, c.Tool, c.Status, exit, len(c.Output), sum[:8])
				}
			}
			golden(t, filepath.Join("..", "testdata", "synth", format+".golden"), got.Bytes())
		})
	}
}
