package parser

import (
	"fmt"
	"io"
	"strings"
	"testing"
)

// A repeatReader streams text n times without holding more than one copy:
// inputs of hundreds of megabytes are made on the fly, not stored.
type repeatReader struct {
	text string
	n    int64 // copies left
	off  int   // offset in the copy being read
}

func repeat(text string, n int64) *repeatReader { return &repeatReader{text: text, n: n} }

func (r *repeatReader) Read(b []byte) (int, error) {
	read := 0
	for read < len(b) && r.n > 0 {
		k := copy(b[read:], r.text[r.off:])
		read += k
		r.off += k
		if r.off == len(r.text) {
			r.off = 0
			r.n--
		}
	}
	if read == 0 && r.n == 0 {
		return 0, io.EOF
	}
	return read, nil
}

// stream joins texts and repeated texts into one reader.
func stream(parts ...io.Reader) io.Reader { return io.MultiReader(parts...) }

// The first records of a transcript in each JSON Lines format, recognized
// as it, with one call.
var jsonlHeads = map[string]string{
	"claude-code": `{"type":"user","uuid":"u1","sessionId":"s1","timestamp":"2026-02-03T10:00:00Z","message":{"role":"user","content":"go"}}
{"type":"assistant","uuid":"u2","sessionId":"s1","timestamp":"2026-02-03T10:00:02Z","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"make"}}]}}
`,
	"codex": `{"timestamp":"2026-02-03T10:00:00Z","type":"session_meta","payload":{"id":"s1","cwd":"/w"}}
{"timestamp":"2026-02-03T10:00:01Z","type":"response_item","payload":{"type":"function_call","name":"shell","arguments":"{\"command\":[\"make\"]}","call_id":"call_1"}}
`,
	"gemini": `{"sessionId":"s1","projectHash":"p","startTime":"2026-02-03T10:00:00Z"}
{"id":"m1","type":"user","content":"go"}
`,
}

// TestSkippedKeptFew checks that a transcript of millions of malformed
// lines keeps the first few of them and a count of the rest: a 32 KB
// compressed file of such lines once took gigabytes.
func TestSkippedKeptFew(t *testing.T) {
	const bad = 300_000
	for format, head := range jsonlHeads {
		t.Run(format, func(t *testing.T) {
			in := stream(strings.NewReader(head), repeat("x\n", bad))
			s, err := Parse(in, "f", Lookup(format))
			if err != nil {
				t.Fatal(err)
			}
			if len(s.Skipped) != MaxSkipped {
				t.Fatalf("%d skipped records kept, want %d", len(s.Skipped), MaxSkipped)
			}
			heads := strings.Count(head, "\n")
			for i, e := range s.Skipped {
				want := fmt.Sprintf("f:%d: invalid JSON: invalid character 'x' looking for beginning of value", heads+1+i)
				if e.Error() != want {
					t.Errorf("skipped[%d] = %s, want %s", i, e, want)
				}
			}
			if got := s.SkippedCount(); got != bad {
				t.Errorf("SkippedCount() = %d, want %d", got, bad)
			}
		})
	}
}
