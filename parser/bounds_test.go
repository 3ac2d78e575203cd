package parser

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
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

// The opening of a transcript in each format that is one JSON document,
// recognized as it, up to a string left open for the test to fill.
var documentHeads = map[string]string{
	"gemini":          `{"sessionId":"s1","projectHash":"p","startTime":"2026-01-01T00:00:00Z","messages":[{"id":"m1","type":"user","content":"`,
	"opencode":        `{"info":{"id":"ses_1"},"messages":[{"info":{"id":"msg_1","role":"user"},"parts":[{"type":"text","text":"`,
	"swe-agent":       `{"trajectory":[{"action":"ls","observation":"`,
	"mini-swe-agent":  `{"info":{"mini_version":"1.0"},"messages":[{"role":"user","content":"`,
	"openhands":       `[{"id":1,"source":"agent","action":"run","args":{"command":"`,
	"openai-messages": `[{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"bash","arguments":"`,
}

// A boundedReader fails a read past its bound, for a test that checks an
// input is not read to its end.
type boundedReader struct {
	r     io.Reader
	bound int64 // bytes left
}

var errPastBound = errors.New("read past the bound")

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.bound <= 0 {
		return 0, errPastBound
	}
	n, err := b.r.Read(p[:min(int64(len(p)), b.bound)])
	b.bound -= int64(n)
	return n, err
}

// TestDocumentLimit checks that a transcript that is one JSON document is
// read no further than maxDocument: a larger one, which a small compressed
// file can expand to, is refused, named with the limit, without being read
// to its end.
func TestDocumentLimit(t *testing.T) {
	defer func(n int) { maxDocument = n }(maxDocument)
	maxDocument = 1 << 20
	for format, head := range documentHeads {
		t.Run(format, func(t *testing.T) {
			if f := Detect([]byte(head + strings.Repeat("x", HeadSize))); f == nil || f.Name != format {
				t.Fatalf("the head is recognized as %v, want %s", f, format)
			}
			// Just within the limit, the document is read.
			small := stream(strings.NewReader(head), repeat("x", int64(maxDocument-len(head)-8)), strings.NewReader(`"}]}]}]}`))
			if s, err := Parse(small, "f", nil); err != nil || s == nil {
				t.Fatalf("a document of the limit's size: %v", err)
			}
			in := &boundedReader{r: stream(strings.NewReader(head), repeat("x", 1<<40)), bound: int64(maxDocument) + 2*HeadSize}
			s, err := Parse(in, "big.json", nil)
			var le *LimitError
			if !errors.As(err, &le) || s != nil {
				t.Fatalf("Parse = %v, %v; want no session and a LimitError", s, err)
			}
			if want := "big.json: a JSON document larger than 1 MiB, the limit on one record; skipped"; err.Error() != want {
				t.Errorf("error = %q, want %q", err, want)
			}
		})
	}
}

// TestBlankLines checks the line numbers reported after runs of blank
// lines, which are passed over a buffer at a time: runs longer than the
// reader's buffer, of spaces, tabs and CRLF endings, a blank line cut by
// the end of the buffer, and blank lines at the end of the input.
func TestBlankLines(t *testing.T) {
	head := jsonlHeads["claude-code"]
	tests := []struct {
		name  string
		blank io.Reader
		lines int // blank lines the reader streams
	}{
		{"newlines past the buffer", repeat("\n", 3*HeadSize+5), 3*HeadSize + 5},
		{"one", strings.NewReader("\n"), 1},
		{"none", strings.NewReader(""), 0},
		{"spaces and tabs", repeat(" \t \n", 100_000), 100_000},
		{"CRLF", repeat("\r\n", 200_000), 200_000},
		{"mixed, cut by the buffer", repeat("  \r\n\n\t\n \n", 50_001), 4 * 50_001},
		{"a space then a record", stream(repeat("\n", 70_000), strings.NewReader("   ")), 70_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			again := strings.NewReplacer("toolu_1", "toolu_2", `"u1"`, `"u3"`, `"u2"`, `"u4"`, `"m1"`, `"m2"`).Replace(head)
			in := stream(strings.NewReader(head), tt.blank, strings.NewReader("x\n\n\n \n"+again), repeat("\n \n", 10))
			s, err := Parse(in, "f", nil)
			if err != nil {
				t.Fatal(err)
			}
			heads := strings.Count(head, "\n")
			bad := heads + tt.lines + 1
			want := []string{fmt.Sprintf("f:%d: invalid JSON: invalid character 'x' looking for beginning of value", bad)}
			var got []string
			for _, e := range s.Skipped {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("skipped %q, want %q", got, want)
			}
			if len(s.Calls) != 2 {
				t.Fatalf("%d calls, want 2", len(s.Calls))
			}
			if want := fmt.Sprintf("f:%d", bad+3+heads); s.Calls[1].Pos.String() != want {
				t.Errorf("second call at %s, want %s", s.Calls[1].Pos, want)
			}
		})
	}
}

// BenchmarkBlankLines measures reading runs of blank lines, in MB/s.
func BenchmarkBlankLines(b *testing.B) {
	const n = 64 << 20
	b.SetBytes(n)
	for b.Loop() {
		in := stream(strings.NewReader(jsonlHeads["claude-code"]), repeat("\n", n))
		if _, err := Parse(in, "f", nil); err != nil {
			b.Fatal(err)
		}
	}
}

// abridgeRawCases are JSON strings whose escapes fall where the head and
// tail of abridgeStringAt are cut: \n, \u00e9, surrogate pairs, lone
// surrogates, escaped backslashes and quotes, and raw UTF-8.
func abridgeRawCases() []string {
	pieces := []string{`a`, `\n`, `\u00e9`, `\ud83d\ude00`, `\ud800`, `\udc00x`, `\\`, `\\\\`, `\"`, `é`, `😀`, `\\u0041`, `\/`}
	var out []string
	for i := range 200 {
		var b strings.Builder
		b.WriteByte('"')
		for j := range 10 + i%37 {
			b.WriteString(pieces[(i*7+j*j+j/3)%len(pieces)])
		}
		b.WriteByte('"')
		out = append(out, b.String())
	}
	return out
}

// TestAbridgeRaw checks that abridging a long JSON string as it is decoded
// gives what decoding it whole and then abridging it gives, for every cut
// of the head and tail, with and without an exit line to drop.
func TestAbridgeRaw(t *testing.T) {
	// drop looks at no more than the start of the text, as it must.
	drop := func(out string) int {
		if strings.HasPrefix(out, "#\n") {
			return 2
		}
		return 0
	}
	for _, raw := range abridgeRawCases() {
		for _, prefix := range []string{"", `#\n`} {
			raw := `"` + prefix + raw[1:]
			v := jsonString(t, raw)
			for half := 1; half < 12; half++ {
				text := v.Text()
				text = text[drop(text):]
				want := abridgeAt(text, half)
				if got := abridgeStringAt(v, drop, half, 0); got != want {
					t.Fatalf("abridgeStringAt(%s, half %d) = %q, want %q", raw, half, got, want)
				}
			}
		}
	}
	// At full size, an output of 24 MiB is abridged from its ends.
	exit := func(out string) int {
		if strings.HasPrefix(out, "Exit code 2\n") {
			return len("Exit code 2\n")
		}
		return 0
	}
	raw := `"Exit code 2\n` + strings.Repeat(`ab\ncd\u00e9\ud83d\ude00`, 1<<20) + `"`
	long := jsonString(t, raw)
	text := long.Text()
	want := abridgeBytes(text[exit(text):])
	if got := abridgeString(long, exit); got != want {
		t.Errorf("abridgeString of a 100 MiB string differs from abridging it decoded")
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	abridgeString(long, exit)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 4<<20 {
		t.Errorf("abridgeString of a %d MiB string allocates %d MiB", len(raw)>>20, n>>20)
	}
}

// FuzzAbridgeRaw checks abridgeStringAt against decoding whole on any
// valid JSON string.
func FuzzAbridgeRaw(f *testing.F) {
	for _, raw := range abridgeRawCases()[:20] {
		f.Add(raw, 3)
	}
	f.Fuzz(func(t *testing.T, raw string, half int) {
		v, ok := rawjson.Parse(raw)
		if !ok || v.Kind() != rawjson.String || half < 1 || half > 64 {
			return
		}
		want := abridgeAt(v.Text(), half)
		if got := abridgeStringAt(v, func(string) int { return 0 }, half, 0); got != want {
			t.Errorf("abridgeStringAt(%s, %d) = %q, want %q", raw, half, got, want)
		}
	})
}

// jsonString returns the value of raw, a valid JSON string.
func jsonString(t testing.TB, raw string) rawjson.Value {
	t.Helper()
	v, ok := rawjson.Parse(raw)
	if !ok || v.Kind() != rawjson.String {
		t.Fatalf("%.40q is no JSON string", raw)
	}
	return v
}

// A pausingReader streams r, and after at bytes says so on reached and
// waits for release.
type pausingReader struct {
	r        io.Reader
	at       int64
	reached  chan struct{}
	release  chan struct{}
	read     int64
	reported bool
}

func (p *pausingReader) Read(b []byte) (int, error) {
	if p.read >= p.at && !p.reported {
		p.reported = true
		close(p.reached)
		<-p.release
	}
	if left := p.at - p.read; left > 0 && int64(len(b)) > left {
		b = b[:left]
	}
	n, err := p.r.Read(b)
	p.read += int64(n)
	return n, err
}

// bigTranscript streams a Claude Code transcript whose tool result is
// size bytes long.
func bigTranscript(size int64) io.Reader {
	head := jsonlHeads["claude-code"]
	return stream(strings.NewReader(head),
		strings.NewReader(`{"type":"user","uuid":"u3","sessionId":"s1","timestamp":"2026-02-03T10:00:03Z","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","content":"Exit code 2\nboom `),
		repeat("x", size), strings.NewReader(`","is_error":true}]}}`+"\n"))
}

// TestBigRecordsOneAtATime checks that while one reader holds a record
// past bigRecord, another waits before taking one too: two workers no
// longer each hold a record of 256 MiB and its copies. Both are read once
// the first is done.
func TestBigRecordsOneAtATime(t *testing.T) {
	first := &pausingReader{r: bigTranscript(bigRecord + 1<<20), at: bigRecord + 1<<19,
		reached: make(chan struct{}), release: make(chan struct{})}
	// The second says when it is read past bigRecord, which it must not
	// be while the first holds its record.
	second := &pausingReader{r: bigTranscript(bigRecord + 1<<20), at: bigRecord + 1<<19,
		reached: make(chan struct{}), release: make(chan struct{})}
	close(second.release)
	parse := func(r io.Reader, done chan<- *Session) {
		s, err := Parse(r, "f", nil)
		if err != nil {
			t.Error(err)
		}
		done <- s
	}
	firstDone, secondDone := make(chan *Session, 1), make(chan *Session, 1)
	go parse(first, firstDone)
	<-first.reached // the first holds a big record, and waits for its input
	go parse(second, secondDone)
	select {
	case <-second.reached:
		t.Fatal("a second big record was read while the first was held")
	case <-time.After(2 * time.Second):
	}
	close(first.release)
	for _, done := range []chan *Session{firstDone, secondDone} {
		s := <-done
		if s == nil || len(s.Calls) != 1 || s.Calls[0].Exit == nil || *s.Calls[0].Exit != 2 || len(s.Calls[0].Output) > MaxOutput+100 {
			t.Errorf("the big record was not read as it should be: %+v", s)
		}
	}
}

// TestBigRecordHandOut checks that the calls a big record finishes go to
// the caller after the record's token is given back: a caller that waits
// (for the output of an earlier file) must not keep other readers waiting.
func TestBigRecordHandOut(t *testing.T) {
	var got int
	_, err := Parse(bigTranscript(bigRecord+1<<20), "f", nil, Each(func(c *Call) {
		got++
		select {
		case b := <-bigRecords:
			bigRecords <- b
		default:
			t.Error("a call was handed out while its record held the token")
		}
	}))
	if err != nil || got != 1 {
		t.Errorf("Parse with Each: %v, %d calls", err, got)
	}
}

// TestTextBlankRun checks that a run of blank lines inside an output of a
// text transcript costs no more than the output kept of it: 100 MB of
// blank lines took 5.8 GB, a string for each line.
func TestTextBlankRun(t *testing.T) {
	head := "[user]\nList it.\n\n[assistant] [bash] ls\n[output] first\n"
	in := stream(strings.NewReader(head), repeat("\n", 4<<20), strings.NewReader("last\n\n[user]\nThanks.\n"))
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	s, err := Parse(in, "f", nil)
	runtime.ReadMemStats(&after)
	if err != nil || s.Format != "text:transcript" || len(s.Calls) != 1 {
		t.Fatalf("Parse = %+v, %v", s, err)
	}
	out := s.Calls[0].Output
	if !strings.HasPrefix(out, "first\n\n") || !strings.HasSuffix(out, "\n\nlast") || len(out) > MaxOutput+100 {
		t.Errorf("output %q…%q, %d bytes", out[:min(20, len(out))], out[max(0, len(out)-20):], len(out))
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 32<<20 {
		t.Errorf("reading 4 MiB of blank lines allocates %d MiB", n>>20)
	}
}
