package parser

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// FuzzParse checks that no input makes a decoder panic, that every reported
// position lies in the input, that sessions marshal to JSON, and that
// parsing is deterministic. It is seeded with every sample transcript, and
// tries every format on each input; the Fuzz targets of each decoder below
// reach its corners faster.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "*", "*"))
	addSeeds(f, files)
	f.Add([]byte("{\"type\":\"user\"}\n{"))
	f.Add([]byte("Exporting session: ses_x{\"info\":{\"id\":\"ses_x\"},\"messages\":[{\"parts\":[{\"type\":\"tool\""))
	// Nested a level deeper than the validators go, in a record and in
	// a document.
	deep := strings.Repeat("[", rawjson.MaxDepth+1) + strings.Repeat("]", rawjson.MaxDepth+1)
	f.Add([]byte(`{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"ls","x":` + deep + "}}]}}\n"))
	f.Add([]byte(`{"info":{"id":"ses_x"},"messages":[{"parts":[{"type":"tool","state":{"input":` + deep + "}}]}]}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range append(Formats(), nil) {
			checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", format) })
		}
	})
}

// FuzzClaudeCode fuzzes the Claude Code decoder with the invariants of
// FuzzParse, and checks that Forget hands out the calls Each alone
// does.
func FuzzClaudeCode(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "claude-code", "*"))
	addSeeds(f, files)
	fm := Lookup("claude-code")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", fm) })
		var each, stream []*Call
		want, _ := Parse(bytes.NewReader(data), "fuzz", fm, Each(func(c *Call) { each = append(each, c) }))
		got, _ := Parse(bytes.NewReader(data), "fuzz", fm, Forget(), Each(func(c *Call) { stream = append(stream, c) }))
		if want == nil || got == nil {
			if want != got {
				t.Errorf("with Each alone: %v; with Forget: %v", want, got)
			}
			return
		}
		if len(got.Calls) != 0 {
			t.Errorf("the session of Parse with Forget keeps %d calls", len(got.Calls))
		}
		want.Calls, got.Calls = nil, nil
		w, _ := json.Marshal([]any{want, each})
		g, _ := json.Marshal([]any{got, stream})
		if !bytes.Equal(w, g) {
			t.Errorf("Forget gives otherwise than Each alone:\n%s\n%s", w, g)
		}
	})
}
func FuzzOpencode(f *testing.F)       { fuzzFormat(f, "opencode", "opencode") }
func FuzzSWEAgent(f *testing.F)       { fuzzFormat(f, "swe-agent", "swe-agent") }
func FuzzMiniSWEAgent(f *testing.F)   { fuzzFormat(f, "mini-swe-agent", "mini-swe-agent") }
func FuzzOpenHands(f *testing.F)      { fuzzFormat(f, "openhands", "openhands") }
func FuzzOpenAIMessages(f *testing.F) { fuzzFormat(f, "openai-messages", "openai-messages") }

// fuzzFormat fuzzes the decoder of one format, seeded with the samples in
// testdata/dir, with the invariants of FuzzParse.
func fuzzFormat(f *testing.F, format, dir string) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", dir, "*"))
	addSeeds(f, files)
	fm := Lookup(format)
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", fm) })
	})
}

// addSeeds adds the files, but golden files, to the seed corpus.
func addSeeds(f *testing.F, files []string) {
	for _, file := range files {
		if strings.HasSuffix(file, ".golden") {
			continue
		}
		data, err := os.ReadFile(file)
		if err != nil {
			continue // a directory, such as a storage folder
		}
		f.Add(data)
	}
}

// checkParse checks the invariants of a decoder on data: parse returns a
// session or an error; every position it reports lies within data; the
// session marshals to JSON, and parsing again gives the same.
func checkParse(t *testing.T, data []byte, parse func() (*Session, error)) {
	t.Helper()
	s, err := parse()
	if s == nil {
		if err == nil {
			t.Fatal("Parse returned neither a session nor an error")
		}
		return
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
		if !utf8.ValidString(c.Output) || !utf8.ValidString(c.Command) {
			t.Errorf("call %s holds invalid UTF-8", c.ID)
		}
	}
	a, err := json.Marshal(s)
	if err != nil {
		t.Fatalf("session does not marshal: %v", err)
	}
	again, _ := parse()
	if b, _ := json.Marshal(again); !bytes.Equal(a, b) {
		t.Fatal("parsing the same input twice gave different sessions")
	}
}
