package report

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
	"unicode/utf16"
	"unicode/utf8"
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
	_, err := fmt.Fprintf(w, "{\n  \"version\": %d,\n  %s: %s\n}\n", Version, k, escapeHidden(bytes.TrimSuffix(body.Bytes(), []byte("\n"))))
	return err
}

// writeJSONItems writes what writeJSON writes of the list of the items
// yields, with key, an item at a time.
func writeJSONItems[T any](w io.Writer, key string, items iter.Seq[T]) error {
	bw := bufio.NewWriter(w)
	k, _ := json.Marshal(key)
	fmt.Fprintf(bw, "{\n  \"version\": %d,\n  %s: [", Version, k)
	var item, indented bytes.Buffer
	enc := json.NewEncoder(&item)
	enc.SetEscapeHTML(false)
	some := false
	for it := range items {
		item.Reset()
		indented.Reset()
		if err := enc.Encode(it); err != nil {
			return err
		}
		if err := json.Indent(&indented, bytes.TrimSuffix(item.Bytes(), []byte("\n")), "    ", "  "); err != nil {
			return err
		}
		if some {
			bw.WriteByte(',')
		}
		bw.WriteString("\n    ")
		bw.Write(escapeHidden(indented.Bytes()))
		some = true
	}
	if some {
		bw.WriteString("\n  ")
	}
	bw.WriteString("]\n}\n")
	return bw.Flush()
}

// writeJSONL writes each item as one line of JSON.
func writeJSONL[T any](w io.Writer, items iter.Seq[T]) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(hiddenEscaper{bw})
	enc.SetEscapeHTML(false)
	for it := range items {
		if err := enc.Encode(it); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// escapeHidden escapes in encoded JSON what encoding/json leaves raw and a
// terminal or a reader could be fooled by: C1 controls (U+0080 to U+009F,
// the 8-bit CSI among them), DEL, and the characters that print nothing or
// turn the text around them (see Invisible), as \u009b, \u202e; past
// U+FFFF, as a surrogate pair. Outside strings, JSON is ASCII, so every
// such character is inside one and the result is still valid JSON of the
// same value. b is returned as it is when it holds none.
func escapeHidden(b []byte) []byte {
	var out []byte
	done := 0
	for i := 0; i < len(b); {
		if b[i] < utf8.RuneSelf {
			if b[i] == 0x7f {
				out = fmt.Appendf(append(out, b[done:i]...), `\u%04x`, b[i])
				done = i + 1
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		if r >= 0x80 && r <= 0x9f || Invisible(r) {
			out = append(out, b[done:i]...)
			if r > 0xffff {
				hi, lo := utf16.EncodeRune(r)
				out = fmt.Appendf(out, `\u%04x\u%04x`, hi, lo)
			} else {
				out = fmt.Appendf(out, `\u%04x`, r)
			}
			done = i + size
		}
		i += size
	}
	if out == nil {
		return b
	}
	return append(out, b[done:]...)
}

// A hiddenEscaper writes JSON through escapeHidden. encoding/json writes
// each value whole, so no character is split between two writes.
type hiddenEscaper struct{ w io.Writer }

func (h hiddenEscaper) Write(b []byte) (int, error) {
	if _, err := h.w.Write(escapeHidden(b)); err != nil {
		return 0, err
	}
	return len(b), nil
}
