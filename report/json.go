package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
)

// writeJSON writes {"version": 1, "<key>": v}, indented.
func writeJSON(w io.Writer, key string, v any) error {
	var body bytes.Buffer
	enc := json.NewEncoder(&body)
	enc.SetEscapeHTML(false)
	enc.SetIndent("  ", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	k, _ := json.Marshal(key)
	_, err := fmt.Fprintf(w, "{\n  \"version\": %d,\n  %s: %s\n}\n", Version, k, bytes.TrimSuffix(body.Bytes(), []byte("\n")))
	return err
}

// writeJSONL writes each item as one line of JSON.
func writeJSONL[T any](w io.Writer, items []T) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return bw.Flush()
}
