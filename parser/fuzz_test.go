package parser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParse checks that no input makes a decoder panic, that every reported
// position lies in the input, that sessions marshal to JSON, and that
// parsing is deterministic. It is seeded with every sample transcript.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*"))
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("{\"type\":\"user\"}\n{"))
	f.Add([]byte("Exporting session: ses_x{\"info\":{\"id\":\"ses_x\"},\"messages\":[{\"parts\":[{\"type\":\"tool\""))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append(Formats(), nil) {
			s, err := Parse(bytes.NewReader(data), "fuzz", format)
			if s == nil {
				if err == nil {
					t.Fatal("Parse returned neither a session nor an error")
				}
				continue
			}
			lines := bytes.Count(data, []byte("\n")) + 1
			for _, e := range s.Skipped {
				if e.Pos.Line < 0 || e.Pos.Line > lines {
					t.Errorf("%v: line outside the input's %d lines", e, lines)
				}
			}
			for _, c := range s.Calls {
				if c.Pos.Line < 1 || c.Pos.Line > lines {
					t.Errorf("call %s at line %d, outside the input's %d lines", c.ID, c.Pos.Line, lines)
				}
			}
			a, err := json.Marshal(s)
			if err != nil {
				t.Fatalf("session does not marshal: %v", err)
			}
			again, _ := Parse(bytes.NewReader(data), "fuzz", format)
			if b, _ := json.Marshal(again); !bytes.Equal(a, b) {
				t.Fatal("parsing the same input twice gave different sessions")
			}
		}
	})
}
