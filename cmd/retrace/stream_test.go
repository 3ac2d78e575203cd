package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestStreamedLines checks that the commands that write JSON Lines a
// session at a time, as the sessions are read, write the items the same
// command lists in JSON, in the same order, with the same warnings.
func TestStreamedLines(t *testing.T) {
	testdata := filepath.Join("..", "..", "testdata")
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
		whole, wholeErr := runCmd(cmd, "-f", "json", testdata)
		lines, linesErr := runCmd(cmd, "-f", "jsonl", testdata)
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
		if len(want) < 10 {
			t.Errorf("%s: only %d items to compare", cmd, len(want))
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s: JSON Lines differ from the JSON items (-json +jsonl):\n%s", cmd, diff)
		}
	}
}
