package parser

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"io"
	"os"
	"strings"
	"testing"
	"testing/iotest"
	"unicode/utf16"
)

// encodeUTF16 writes s as UTF-16 in the byte order given, after a
// byte-order mark, as Windows PowerShell 5.1 writes a command's output
// into a file.
func encodeUTF16(s string, order binary.AppendByteOrder) []byte {
	b := order.AppendUint16(nil, 0xFEFF)
	for _, u := range utf16.Encode([]rune(s)) {
		b = order.AppendUint16(b, u)
	}
	return b
}

// TestUTF16 checks that a transcript written as UTF-16 with a byte-order
// mark, in either byte order, or as UTF-8 with one, is read as the same
// transcript in UTF-8: it was once taken for a binary file.
func TestUTF16(t *testing.T) {
	data, err := os.ReadFile("../testdata/opencode/basic.json")
	if err != nil {
		t.Fatal(err)
	}
	dump := func(t *testing.T, r io.Reader) string {
		t.Helper()
		s, err := Parse(r, "f", nil)
		if err != nil {
			t.Fatal(err)
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	want := dump(t, bytes.NewReader(data))
	crlf := strings.ReplaceAll(string(data), "\n", "\r\n")
	for name, in := range map[string][]byte{
		"UTF-16LE":      encodeUTF16(string(data), binary.LittleEndian),
		"UTF-16BE":      encodeUTF16(string(data), binary.BigEndian),
		"UTF-16LE CRLF": encodeUTF16(crlf, binary.LittleEndian),
		"UTF-8 BOM":     append([]byte("\xef\xbb\xbf"), data...),
	} {
		t.Run(name, func(t *testing.T) {
			if f := Detect(head(in)); f == nil || f.Name != "opencode" {
				t.Errorf("Detect = %v, want opencode", f)
			}
			if got := dump(t, bytes.NewReader(in)); got != want {
				t.Errorf("read otherwise than in UTF-8:\n%s\nwant\n%s", got, want)
			}
			if got := dump(t, iotest.OneByteReader(bytes.NewReader(in))); got != want {
				t.Errorf("read a byte at a time, otherwise than in UTF-8:\n%s\nwant\n%s", got, want)
			}
		})
	}
}

// TestUTF16Decode checks the decoder against unicode/utf16 on text with
// surrogate pairs, lone surrogates and an odd last byte, read in pieces
// of every size.
func TestUTF16Decode(t *testing.T) {
	units := []uint16{'a', 0xD83D, 0xDE00, 'b', 0xD800, 'c', 0xDC00, 0xD83D}
	for _, order := range []binary.AppendByteOrder{binary.LittleEndian, binary.BigEndian} {
		in := order.AppendUint16(nil, 0xFEFF)
		for _, u := range units {
			in = order.AppendUint16(in, u)
		}
		for _, odd := range []bool{false, true} {
			raw, want := in, string(utf16.Decode(units))
			if odd {
				raw, want = append(raw, 'z'), want+"\uFFFD"
			}
			for _, r := range []io.Reader{bytes.NewReader(raw), iotest.OneByteReader(bytes.NewReader(raw)), iotest.HalfReader(bytes.NewReader(raw))} {
				got, err := io.ReadAll(UTF8(r))
				if err != nil || string(got) != want {
					t.Errorf("%v, odd %v: UTF8 gives %q, %v; want %q", order, odd, got, err, want)
				}
			}
		}
	}
	for _, plain := range []string{"", "a", "{}", "\xff", "\xfe"} {
		got, err := io.ReadAll(UTF8(strings.NewReader(plain)))
		if err != nil || string(got) != plain {
			t.Errorf("UTF8(%q) = %q, %v; want it as it is", plain, got, err)
		}
	}
}

// FuzzUTF16 checks the decoder against unicode/utf16 on any text after a
// little-endian byte-order mark, read in pieces.
func FuzzUTF16(f *testing.F) {
	f.Add([]byte("a\x00=\xd8\x00\xde"))
	f.Add([]byte("\x00\xd8z"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in := append([]byte{0xFF, 0xFE}, data...)
		got, err := io.ReadAll(UTF8(iotest.HalfReader(bytes.NewReader(in))))
		if err != nil {
			t.Fatal(err)
		}
		var units []uint16
		for i := 0; i+1 < len(data); i += 2 {
			units = append(units, binary.LittleEndian.Uint16(data[i:]))
		}
		want := string(utf16.Decode(units))
		if len(data)%2 == 1 {
			want += "\uFFFD"
		}
		if string(got) != want {
			t.Errorf("UTF8 gives %q, want %q", got, want)
		}
	})
}
