package main

import (
	"strings"
	"testing"
)

// TestRecord checks that each part of a record is counted where it
// belongs, and that the parts and the rest add up to the line.
func TestRecord(t *testing.T) {
	lines := []string{
		`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t1","content":"out"}]},"toolUseResult":{"stdout":"out"}}`,
		`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"type":"text","text":"ab"},{"type":"image","source":{"data":"QUJD"}}]}]}}`,
		`{"type":"assistant","message":{"content":[{"type":"thinking","thinking":"hm","signature":"s"},{"type":"text","text":"ok"},{"type":"tool_use","input":{"command":"ls"}}]}}`,
		`{"type":"user","message":{"content":"a prompt"}}`,
		`not json`,
	}
	m := mix{}
	total := 0
	for _, l := range lines {
		m.record([]byte(l))
		total += len(l)
	}
	want := map[string]int64{
		"toolUseResult":  int64(len(`{"stdout":"out"}`)),
		"tool_result":    int64(len(`"out"`) + len(`"ab"`)),
		"image":          int64(len(`"QUJD"`)),
		"thinking":       int64(len(`"hm"`) + len(`"s"`)),
		"text":           int64(len(`"ok"`) + len(`"a prompt"`)),
		"tool_use input": int64(len(`{"command":"ls"}`)),
	}
	var sum int64
	for _, p := range parts {
		sum += m[p]
		if p != "other" && m[p] != want[p] {
			t.Errorf("%s: %d bytes, want %d", p, m[p], want[p])
		}
	}
	if sum != int64(total) {
		t.Errorf("the parts add up to %d bytes, the lines hold %d", sum, total)
	}
	var b strings.Builder
	m.print(&b)
	if !strings.Contains(b.String(), "image") {
		t.Errorf("print left a part out:\n%s", b.String())
	}
}
