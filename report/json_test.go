package report

import (
	"bytes"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestJSONItems holds the JSON document written an item at a time to the
// one written of the whole list.
func TestJSONItems(t *testing.T) {
	type item struct {
		Name  string         `json:"name"`
		Flags []string       `json:"flags"`
		Inner map[string]any `json:"inner,omitempty"`
	}
	tests := map[string][]item{
		"none": nil,
		"one":  {{Name: "a"}},
		"several": {
			{Name: "<b> & c", Flags: []string{"--x", ""}},
			{Name: "hidden \u202e\u009b\x7f", Inner: map[string]any{"deep": []any{1, map[string]any{}, []any{}}}},
			{Name: "𝑥 \U000e0041"},
		},
	}
	for name, list := range tests {
		var want, got bytes.Buffer
		if err := writeJSON(&want, "items", nonNil(list)); err != nil {
			t.Fatal(err)
		}
		if err := writeJSONItems(&got, "items", slices.Values(list)); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want.String(), got.String()); diff != "" {
			t.Errorf("%s: (-whole +item at a time):\n%s", name, diff)
		}
	}
}
