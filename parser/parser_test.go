package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite golden files")

// samples returns the transcripts under ../testdata/<format>/, by format.
func samples(t testing.TB) map[string][]string {
	t.Helper()
	out := make(map[string][]string)
	for _, f := range Formats() {
		files, err := filepath.Glob(filepath.Join("..", "testdata", f.Name, "*"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if !strings.HasSuffix(file, ".golden") {
				out[f.Name] = append(out[f.Name], file)
			}
		}
	}
	return out
}

// TestParse reads every sample, checks it is recognized as the format of
// its folder, and compares the session with its golden dump.
func TestParse(t *testing.T) {
	for format, files := range samples(t) {
		for _, file := range files {
			name := format + "/" + strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
			t.Run(name, func(t *testing.T) {
				data, err := os.ReadFile(file)
				if err != nil {
					t.Fatal(err)
				}
				if f := Detect(head(data)); f == nil || f.Name != format {
					t.Errorf("Detect(%s) = %v, want %s", file, f, format)
				}
				// Name the input as from the repository's root.
				name := strings.TrimPrefix(filepath.ToSlash(file), "../")
				s, err := Parse(bytes.NewReader(data), name, nil)
				if err != nil {
					t.Fatalf("Parse(%s): %v", file, err)
				}
				var got bytes.Buffer
				enc := json.NewEncoder(&got)
				enc.SetEscapeHTML(false)
				enc.SetIndent("", "  ")
				if err := enc.Encode(s); err != nil {
					t.Fatal(err)
				}
				golden(t, file+".parse.golden", got.Bytes())
			})
		}
	}
}

func TestFormatsHaveSamples(t *testing.T) {
	have := samples(t)
	seen := make(map[string]bool)
	for _, f := range Formats() {
		if seen[f.Name] {
			t.Errorf("format %q registered twice", f.Name)
		}
		seen[f.Name] = true
		if f.Name != strings.ToLower(f.Name) || strings.ContainsAny(f.Name, " _") {
			t.Errorf("format name %q is not lower-kebab", f.Name)
		}
		if f.Doc == "" || f.Producer == "" || f.Sniff == "" {
			t.Errorf("format %q lacks Doc, Producer or Sniff", f.Name)
		}
		if len(have[f.Name]) == 0 {
			t.Errorf("format %q has no sample in testdata/%s", f.Name, f.Name)
		}
		if Lookup(f.Name) != f {
			t.Errorf("Lookup(%q) does not return the format", f.Name)
		}
	}
}

func TestDetectRejects(t *testing.T) {
	for _, in := range []string{
		`{"type":"session_meta","payload":{"id":"x"}}`, // Codex
		`{"sessionId":"a","projectHash":"b","messages":[]}`,
		`{"info":{"id":"not-a-session"},"messages":[]}`,
		`[{"role":"user","content":"hi"}]`,
		"just some text\nwith lines\n",
		"Exporting session: ses_1\nnot json",
		"\x00\x01\x02binary",
	} {
		if f := Detect([]byte(in)); f != nil {
			t.Errorf("Detect(%q) = %s, want nil", in, f.Name)
		}
	}
}

func TestParseNoFormat(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want error
	}{
		{"", ErrEmpty},
		{" \n\t\n", ErrEmpty},
		{"\xef\xbb\xbf\n", ErrEmpty},
		{`{"hello":"world"}`, ErrUnknownFormat},
		{"PNG\x89\x00\x00", ErrBinary},
		{"SQLite format 3\x00\x10\x00\x02\x02", ErrDatabase},
	} {
		if _, err := Parse(strings.NewReader(tt.in), "x", nil); !errors.Is(err, tt.want) {
			t.Errorf("Parse(%q) error = %v, want %v", tt.in, err, tt.want)
		}
	}
}

// TestSkipped states the exact warning for each kind of malformed record,
// and that the records around it are still read.
func TestSkipped(t *testing.T) {
	const ok = `{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]}}`
	tests := []struct {
		name  string
		in    string
		calls int
		want  []string
	}{
		{"truncated last line", ok + "\n" + `{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_re`, 1,
			[]string{"f:2: invalid JSON: record ends early"}},
		{"bad character", ok + "\n{\"type\":\"user\",\"x\":tru}\n" + ok, 1,
			[]string{"f:2: invalid JSON: invalid character '}' in literal true (expecting 'e')"}},
		{"not an object", "[1,2]\n" + ok, 1, []string{"f:1: record is not a JSON object"}},
		{"control character in a string", ok + "\n{\"type\":\"user\",\"x\":\"a\x01b\"}\n", 1,
			[]string{"f:2: invalid JSON: invalid character '\\x01' in string literal"}},
		{"orphan result", ok + "\n" + `{"type":"user","message":{"content":[{"tool_use_id":"t9","type":"tool_result","content":"x"}]}}`, 1,
			[]string{`f:2: tool_result for unknown tool_use "t9"`}},
		{"trailing garbage", ok + " x\n" + ok, 1, []string{"f:1: invalid JSON: extra data after the record"}},
		{"blank lines and CRLF", "\r\n\n" + ok + "\r\n\r\n", 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(strings.NewReader(tt.in), "f", Lookup("claude-code"))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range s.Skipped {
				got = append(got, e.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("skipped records (-want +got):\n%s", diff)
			}
			if len(s.Calls) != tt.calls {
				t.Errorf("got %d calls, want %d", len(s.Calls), tt.calls)
			}
		})
	}
}

// TestHugeRecord reads a 50 MB line: a tool result holding a large file.
func TestHugeRecord(t *testing.T) {
	big := strings.Repeat("0123456789abcdef", 50<<20/16)
	in := `{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat big.txt"}}]}}` + "\n" +
		`{"type":"user","message":{"content":[{"tool_use_id":"t1","type":"tool_result","content":"` + big + `"}]}}` + "\n" +
		`{"type":"assistant","sessionId":"s","message":{"id":"m2","content":[{"type":"tool_use","id":"t2","name":"Bash","input":{"command":"ls"}}]}}` + "\n"
	s, err := Parse(iotest.HalfReader(strings.NewReader(in)), "big", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Calls) != 2 || len(s.Skipped) != 0 {
		t.Fatalf("got %d calls and %d skipped, want 2 and 0", len(s.Calls), len(s.Skipped))
	}
	out := s.Calls[0].Output
	if len(out) > MaxOutput+100 || !strings.HasPrefix(out, "0123456789abcdef") || !strings.HasSuffix(out, "0123456789abcdef") || !strings.Contains(out, "bytes omitted") {
		t.Errorf("output of %d bytes was not abridged to its head and tail", len(out))
	}
}

// TestAbridgeCutsBetweenLines checks that an output too long to keep whole
// is cut between lines, or between words when a line is longer than the
// cut may move, so that no secret on a line cut in two leaves its start or
// its end behind.
func TestAbridgeCutsBetweenLines(t *testing.T) {
	marker := func(l string) bool {
		return strings.HasPrefix(l, "[… ") && strings.HasSuffix(l, " bytes omitted …]")
	}
	for _, tc := range []struct {
		name string
		unit string // what the output repeats
		sep  string // what it is cut between
	}{
		{"lines", "export TOKEN=Zq8XwVu6Ts5Rq4Po3Nm2Lk1Ji0Hg9Fe8Dc7Ba6 && ./deploy.sh --verbose\n", "\n"},
		{"words", "--password Zq8XwVu6Ts5Rq4Po3Nm2Lk1Ji0Hg9Fe8Dc7Ba6 ", " "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for shift := range len(tc.unit) {
				in := strings.Repeat("y", shift) + strings.Repeat(tc.unit, 3*MaxOutput/len(tc.unit))
				if tail := abridge(in)[strings.Index(abridge(in), "omitted …]\n")+len("omitted …]\n"):]; !strings.HasPrefix(tail, tc.unit[:10]) {
					t.Errorf("shift %d: the tail starts %.20q, not where a %s starts", shift, tail, strings.TrimSuffix(tc.name, "s"))
				}
			}
			in := strings.Repeat(tc.unit, 3*MaxOutput/len(tc.unit))
			whole := map[string]bool{}
			for _, p := range strings.Split(in, tc.sep) {
				whole[p] = true
			}
			out := abridge(in)
			if len(out) > MaxOutput+100 || !strings.Contains(out, "bytes omitted") {
				t.Fatalf("%d bytes abridged to %d", len(in), len(out))
			}
			for _, line := range strings.Split(out, "\n") {
				if marker(line) {
					continue
				}
				for _, p := range strings.Split(line, tc.sep) {
					if !whole[p] {
						t.Errorf("%q is a part of a %s cut in two", p, strings.TrimSuffix(tc.name, "s"))
					}
				}
			}
		})
	}
}

// TestTooLongRecord checks that a line over the limit is skipped and
// reported, and reading goes on after it.
func TestTooLongRecord(t *testing.T) {
	in := "short one\n" + strings.Repeat("x", 5000) + "\nshort two\n" + strings.Repeat("y", 3000)
	lr := newLineReader(iotest.OneByteReader(strings.NewReader(in)))
	lr.max = 1000
	var got []string
	for {
		line, err := lr.next()
		switch {
		case errors.Is(err, errTooLong):
			got = append(got, fmt.Sprintf("%d: too long", lr.line))
			continue
		case len(line) > 0:
			got = append(got, fmt.Sprintf("%d: %s", lr.line, line))
		}
		if err != nil {
			break
		}
	}
	want := []string{"1: short one", "2: too long", "3: short two", "4: too long"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
}

func TestReadError(t *testing.T) {
	const ok = `{"type":"assistant","sessionId":"s","message":{"id":"m1","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"true"}}]}}` + "\n"
	r := io.MultiReader(strings.NewReader(ok), iotest.ErrReader(errors.New("disk on fire")))
	s, err := Parse(r, "f", nil)
	if err == nil || err.Error() != "read f: disk on fire" {
		t.Errorf("Parse error = %v, want read f: disk on fire", err)
	}
	if s == nil || len(s.Calls) != 1 {
		t.Errorf("Parse lost the call read before the error")
	}
}

func head(data []byte) []byte {
	if len(data) > HeadSize {
		return data[:HeadSize]
	}
	return data
}

// golden compares got with the golden file, or rewrites it with -update.
func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s mismatch (-want +got):\n%s", path, diff)
	}
}

// TestForget checks that Parse with Each and Forget hands done the calls
// it hands done with Each alone, in the same order and the same, and
// returns the same session but for the calls, which a format that streams
// does not keep.
func TestForget(t *testing.T) {
	use := func(id, cmd string) string {
		return `{"type":"assistant","sessionId":"s","message":{"id":"m` + id + `","content":[{"type":"tool_use","id":"` + id + `","name":"Bash","input":{"command":"` + cmd + `"}}]}}`
	}
	result := func(id, out string) string {
		return `{"type":"user","message":{"content":[{"tool_use_id":"` + id + `","type":"tool_result","content":"` + out + `"}]}}`
	}
	inputs := map[string]string{
		"replays": strings.Join([]string{use("a", "ls"), result("a", "x"), use("a", "ls"), result("a", "x"),
			use("a", "rm"), result("a", "y"), use("b", "pwd"), result("c", "z"), result("b", "/")}, "\n"),
		"unanswered and no id": strings.Join([]string{use("a", "ls"), use("", "true"), use("b", "pwd"),
			result("b", "/"), use("c", "date"), result("c", "now")}, "\n"),
		"out of order": strings.Join([]string{use("a", "ls"), use("b", "pwd"), use("c", "id"),
			result("c", "1"), result("a", "x"), result("b", "/")}, "\n"),
	}
	for format, files := range samples(t) {
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			inputs[format+"/"+filepath.Base(file)] = string(data)
		}
	}
	dump := func(v any) string {
		b, err := json.MarshalIndent(v, "", " ")
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	streamed := 0
	for name, in := range inputs {
		var each, stream []*Call
		want, werr := Parse(strings.NewReader(in), name, nil, Each(func(c *Call) { each = append(each, c) }))
		got, gerr := Parse(strings.NewReader(in), name, nil, Forget(), Each(func(c *Call) { stream = append(stream, c) }))
		if (werr == nil) != (gerr == nil) || (want == nil) != (got == nil) {
			t.Errorf("%s: with Each alone: %v; with Forget: %v", name, werr, gerr)
			continue
		}
		if want == nil {
			continue
		}
		if diff := cmp.Diff(dump(each), dump(stream)); diff != "" {
			t.Errorf("%s: the calls handed to done differ (-Each +Forget):\n%s", name, diff)
		}
		// done is called once for each call of the session, whenever
		// the decoder is done with it.
		sorted := slices.SortedFunc(slices.Values(each), func(x, y *Call) int { return x.Ordinal - y.Ordinal })
		if diff := cmp.Diff(dump(want.Calls), dump(sorted)); diff != "" {
			t.Errorf("%s: done was not called once for each call (-session +done):\n%s", name, diff)
		}
		if len(got.Calls) == 0 && len(want.Calls) > 0 {
			streamed++
		} else if diff := cmp.Diff(dump(want.Calls), dump(got.Calls)); diff != "" {
			t.Errorf("%s: the session keeps other calls (-Each +Forget):\n%s", name, diff)
		}
		want.Calls, got.Calls = nil, nil
		if diff := cmp.Diff(dump(want), dump(got)); diff != "" {
			t.Errorf("%s: the sessions differ (-Each +Forget):\n%s", name, diff)
		}
	}
	if streamed < 3 {
		t.Errorf("only %d sessions kept no calls", streamed)
	}
}
