package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/retrace-dev/retrace/analyzer"
	"github.com/retrace-dev/retrace/parser"
)

// TestStreamedLines checks that the commands that write JSON Lines a
// session at a time, as the sessions are read, write the items the same
// command lists in JSON, in the same order, with the same warnings.
func TestStreamedLines(t *testing.T) {
	compareStreamed(t, 10, filepath.Join("..", "..", "testdata"))
}

// TestStreamedParts is TestStreamedLines over a session long enough to come
// in parts to the commands that store their rows (the JSON documents),
// while the JSON Lines read it whole: the rows of the parts name their
// session as the whole session's do.
func TestStreamedParts(t *testing.T) {
	log := &claudeLog{t: t}
	for i := range 3000 {
		id := fmt.Sprintf("toolu_%05d", i)
		log.call(id+"a", "", "python bench.py --num-prompts 5",
			"Exit code 2\nusage: bench.py [-h] [--num-runs N]\nbench.py: error: unrecognized arguments: --num-prompts 5", true)
		log.call(id+"b", "", "python bench.py --num-runs 5", fmt.Sprintf("Average: %d.5 tok/s", 60+i%20), false)
		log.call(id+"c", "", "ls", "bench.py", false)
	}
	data := []byte(strings.Join(log.lines, "\n") + "\n")
	path := filepath.Join(t.TempDir(), "long.jsonl")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	parts := 0
	st := analyzer.NewSessionStream(analyzer.StreamOptions{Path: path, Part: func(*analyzer.SessionReport) { parts++ }})
	if _, err := parser.Parse(bytes.NewReader(data), path, nil, parser.Each(st.Add)); err != nil {
		t.Fatal(err)
	}
	if parts == 0 {
		t.Fatal("the long session does not come in parts")
	}
	// Short sessions before and after it, whole.
	sample := filepath.Join("..", "..", "testdata", "claude-code")
	compareStreamed(t, 3, filepath.Join(sample, "basic.jsonl"), path, filepath.Join(sample, "background.jsonl"))
}

// compareStreamed checks, for errors, pairs, bench and summary run over
// paths, that the JSON Lines list the items of the JSON document, and
// that each command lists at least fewest.
func compareStreamed(t *testing.T, fewest int, paths ...string) {
	t.Helper()
	runCmd := func(args ...string) (stdout, stderr string) {
		var out, errb bytes.Buffer
		env := &Env{Stdin: &bytes.Buffer{}, Stdout: &out, Stderr: &errb,
			Getenv: func(k string) string {
				if k == redactKeyVar {
					return "stream"
				}
				return ""
			}}
		run(args, env)
		return out.String(), errb.String()
	}
	for _, cmd := range []string{"errors", "pairs", "bench", "summary"} {
		whole, wholeErr := runCmd(append([]string{cmd, "-f", "json"}, paths...)...)
		lines, linesErr := runCmd(append([]string{cmd, "-f", "jsonl"}, paths...)...)
		if wholeErr != linesErr {
			t.Errorf("%s: the warnings differ:\n%s", cmd, cmp.Diff(wholeErr, linesErr))
		}
		var doc map[string]json.RawMessage
		if err := json.Unmarshal([]byte(whole), &doc); err != nil {
			t.Fatalf("%s -f json: %v", cmd, err)
		}
		var want []any
		if cmd == "summary" {
			var s struct {
				Sessions []any
				Totals   any
			}
			if err := json.Unmarshal(doc[cmd], &s); err != nil {
				t.Fatal(err)
			}
			want = append(s.Sessions, s.Totals)
		} else if err := json.Unmarshal(doc[cmd], &want); err != nil {
			t.Fatalf("%s -f json: %v", cmd, err)
		}
		var got []any
		dec := json.NewDecoder(bytes.NewReader([]byte(lines)))
		for dec.More() {
			var v any
			if err := dec.Decode(&v); err != nil {
				t.Fatalf("%s -f jsonl: %v", cmd, err)
			}
			got = append(got, v)
		}
		if len(want) < fewest {
			t.Errorf("%s: only %d items to compare", cmd, len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: JSON Lines differ from the JSON items (-json +jsonl):\n%s", cmd, diff)
		}
	}
}
