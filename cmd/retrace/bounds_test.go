package main

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/retrace-dev/retrace/analyzer"
)

// A repeatReader streams text n times without holding more than a few
// kilobytes of it: inputs of hundreds of megabytes are made on the fly,
// not stored.
type repeatReader struct {
	unit string // text, repeated to a few kilobytes
	off  int    // offset in unit of the next byte
	left int64  // bytes left to stream
}

func repeat(text string, n int64) *repeatReader {
	k := max(1, min(n, int64(4096/max(1, len(text)))))
	return &repeatReader{unit: strings.Repeat(text, int(k)), left: int64(len(text)) * n}
}

func (r *repeatReader) Read(b []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	read := 0
	for read < len(b) && r.left > 0 {
		k := copy(b[read:min(int64(len(b)), int64(read)+r.left)], r.unit[r.off:])
		read += k
		r.left -= int64(k)
		r.off = (r.off + k) % len(r.unit)
	}
	return read, nil
}

// writeCompressed writes what r streams to the file name, compressed
// with gzip or zstd as its extension says.
func writeCompressed(t *testing.T, name string, r io.Reader) {
	t.Helper()
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	var w io.WriteCloser
	if strings.HasSuffix(name, ".gz") {
		w, err = gzip.NewWriterLevel(f, gzip.BestCompression)
	} else {
		w, err = zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedFastest))
	}
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, r); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestDecompressionBomb checks that a compressed file that grows past a
// thousand times its size (and past 64 MiB) is not read further: a 130 KB
// .json.zst once expanded to 4 GiB, and 17 GB of memory, before any check.
// The file is named with the limit, and the other inputs are reported.
func TestDecompressionBomb(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 66 MiB through each compressor")
	}
	dir := t.TempDir()
	gemini := `{"sessionId":"s1","projectHash":"p","startTime":"2026-01-01T00:00:00Z","messages":[{"id":"m1","type":"user","content":"`
	claude := `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-03T10:00:00Z","message":{"role":"user","content":"go"}}` + "\n"
	const size = 66 << 20
	bombs := map[string]io.Reader{
		"gemini.json.zst": io.MultiReader(strings.NewReader(gemini), repeat("x", size), strings.NewReader(`"}]}`)),
		"gemini.json.gz":  io.MultiReader(strings.NewReader(gemini), repeat("x", size), strings.NewReader(`"}]}`)),
		"claude.jsonl.gz": io.MultiReader(strings.NewReader(claude), repeat("\n", size)),
	}
	for name, r := range bombs {
		writeCompressed(t, filepath.Join(dir, name), r)
	}
	for name := range bombs {
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
			good := filepath.Join("..", "..", "testdata", "seeds", "claude-code.jsonl")
			status := run([]string{"summary", "-f", "jsonl", filepath.Join(dir, name), good}, env)
			if status != 1 {
				t.Errorf("status %d, want 1", status)
			}
			want := filepath.Join(dir, name) + ": decompressed past 64 MiB, over 1000 times its compressed size; skipped\n"
			if stderr.String() != want {
				t.Errorf("stderr = %q, want %q", stderr.String(), want)
			}
			if !strings.Contains(stdout.String(), `"path":"`+good+`"`) || strings.Contains(stdout.String(), name) {
				t.Errorf("stdout does not report the good file alone:\n%s", stdout.String())
			}
		})
	}
}

// TestSummaryCutShortLast checks that a long session whose input the
// decompression guard cuts short, after some of its parts were read, is
// counted in the totals as its row counts it when it is the last input:
// its last part, which would close it, never comes.
func TestSummaryCutShortLast(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 66 MiB through zstd")
	}
	var b strings.Builder
	for i := range 9000 { // more than two parts of 4096 calls
		fmt.Fprintf(&b, `{"type":"assistant","sessionId":"s1","timestamp":"2026-02-03T10:00:00Z","message":{"role":"assistant","content":[{"type":"tool_use","id":"t%d","name":"Bash","input":{"command":"make"}}]}}`+"\n", i)
		fmt.Fprintf(&b, `{"type":"user","sessionId":"s1","timestamp":"2026-02-03T10:00:01Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t%d","content":"ok"}]}}`+"\n", i)
	}
	long := filepath.Join(t.TempDir(), "long.jsonl.zst")
	writeCompressed(t, long, io.MultiReader(strings.NewReader(b.String()), repeat("\n", 66<<20)))
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	good := filepath.Join("..", "..", "testdata", "seeds", "claude-code.jsonl")
	if status := run([]string{"summary", "-f", "jsonl", good, long}, env); status != 1 {
		t.Errorf("status %d, want 1; stderr:\n%s", status, stderr.String())
	}
	var rows []analyzer.SessionSummary
	var totals analyzer.Totals
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	for i, line := range lines {
		var err error
		if i == len(lines)-1 {
			err = json.Unmarshal([]byte(line), &totals)
		} else {
			var row analyzer.SessionSummary
			err = json.Unmarshal([]byte(line), &row)
			rows = append(rows, row)
		}
		if err != nil {
			t.Fatalf("line %d: %v\n%s", i+1, err, line)
		}
	}
	calls := 0
	for _, r := range rows {
		calls += r.Calls
	}
	if len(rows) != 2 || rows[1].Path != long || rows[1].Calls < 4096 {
		t.Fatalf("rows %+v, want the seed's and at least a part of %s", rows, long)
	}
	if totals.Sessions != len(rows) || totals.Calls != calls {
		t.Errorf("totals count %d sessions and %d calls, the rows %d and %d", totals.Sessions, totals.Calls, len(rows), calls)
	}
	// The table adds up its rows apart from the JSON forms.
	stdout.Reset()
	run([]string{"summary", good, long}, env)
	if want := fmt.Sprintf(`(?m)^total \(2 sessions\) +%d `, calls); !regexp.MustCompile(want).MatchString(stdout.String()) {
		t.Errorf("the table's totals do not match %s:\n%s", want, stdout.String())
	}
}
