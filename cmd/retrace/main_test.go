package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"database/sql"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"unicode/utf16"

	"github.com/alecthomas/kong"
	"github.com/klauspost/compress/zstd"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in test scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"retrace": main})
}

// TestScript runs the command-line tests in testdata/script. $TESTDATA is
// the repository's testdata folder; $GUARDDATA holds the agents' hook
// payloads of testdata/guard.
func TestScript(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	guarddata, err := filepath.Abs(filepath.Join("testdata", "guard"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			e.Setenv("GUARDDATA", guarddata)
			// $ESC and $BEL put raw control characters in arguments,
			// which a script cannot write otherwise.
			e.Setenv("ESC", "\x1b")
			e.Setenv("BEL", "\a")
			return nil
		},
		Condition: func(cond string) (bool, error) {
			switch cond {
			case "unreadable":
				// [unreadable]: a file of mode 000 cannot be read here;
				// false for root, who reads any file.
				return modesStopReads(), nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			// fits N checks that no line of the last command's standard
			// output is wider than N display columns.
			"fits": func(ts *testscript.TestScript, neg bool, args []string) {
				n, err := strconv.Atoi(args[0])
				if len(args) != 1 || err != nil {
					ts.Fatalf("usage: fits N")
				}
				widest := 0
				for line := range strings.Lines(ts.ReadFile("stdout")) {
					widest = max(widest, twwidth.Width(strings.TrimSuffix(line, "\n")))
				}
				if (widest > n) != neg {
					ts.Fatalf("widest line: %d columns; want at most %d (negated: %v)", widest, n, neg)
				}
			},
			// zstd IN OUT compresses a file, for machines without the tool.
			"zstd": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: zstd IN OUT")
				}
				enc, err := zstd.NewWriter(nil)
				ts.Check(err)
				data := enc.EncodeAll([]byte(ts.ReadFile(args[0])), nil)
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), data, 0o644))
			},
			// utf16 IN OUT writes IN as UTF-16LE with a byte-order mark and
			// CRLF line endings, as Windows PowerShell 5.1 writes what a
			// command prints into a file.
			"utf16": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: utf16 IN OUT")
				}
				text := strings.ReplaceAll(ts.ReadFile(args[0]), "\n", "\r\n")
				out := []byte{0xFF, 0xFE}
				for _, u := range utf16.Encode([]rune(text)) {
					out = binary.LittleEndian.AppendUint16(out, u)
				}
				ts.Check(os.WriteFile(ts.MkAbs(args[1]), out, 0o644))
			},
			// fill [-gzip] IN OUT [MARKER N TEXT]... writes IN to OUT
			// with each MARKER replaced by N copies of TEXT, read as the
			// body of a Go string literal (\x1b, \x00, \xff): inputs too
			// big, too deep or too binary to keep in a script are made on
			// the spot, a chunk at a time. With -gzip, OUT is compressed.
			"fill": func(ts *testscript.TestScript, neg bool, args []string) {
				compress := len(args) > 0 && args[0] == "-gzip"
				if compress {
					args = args[1:]
				}
				if neg || len(args) < 2 || (len(args)-2)%3 != 0 {
					ts.Fatalf("usage: fill [-gzip] IN OUT [MARKER N TEXT]...")
				}
				var marks []fillMark
				for i := 2; i < len(args); i += 3 {
					n, err := strconv.Atoi(args[i+1])
					ts.Check(err)
					text, err := strconv.Unquote(`"` + args[i+2] + `"`)
					ts.Check(err)
					marks = append(marks, fillMark{args[i], n, text})
				}
				f, err := os.Create(ts.MkAbs(args[1]))
				ts.Check(err)
				var out io.Writer = f
				var zw *gzip.Writer
				if compress {
					zw = gzip.NewWriter(f)
					out = zw
				}
				w := bufio.NewWriter(out)
				err = fill(w, ts.ReadFile(args[0]), marks)
				err = errors.Join(err, w.Flush())
				if zw != nil {
					err = errors.Join(err, zw.Close())
				}
				ts.Check(errors.Join(err, f.Close()))
			},
			// copies N FILE DIR writes N copies of FILE into DIR, named
			// 00000-FILE, 00001-FILE and so on.
			"copies": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: copies N FILE DIR")
				}
				n, err := strconv.Atoi(args[0])
				ts.Check(err)
				data := []byte(ts.ReadFile(args[1]))
				dir := ts.MkAbs(args[2])
				ts.Check(os.MkdirAll(dir, 0o755))
				for i := range n {
					name := fmt.Sprintf("%05d-%s", i, filepath.Base(args[1]))
					ts.Check(os.WriteFile(filepath.Join(dir, name), data, 0o644))
				}
			},
			// sqlite DB SQL creates the SQLite database DB and runs the
			// statements of the file SQL in it, one per line ending in
			// ";": databases are made on the spot, as a script holds text.
			"sqlite": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 2 {
					ts.Fatalf("usage: sqlite DB SQL")
				}
				abs := ts.MkAbs(args[0])
				ts.Check(os.MkdirAll(filepath.Dir(abs), 0o755))
				db, err := sql.Open("sqlite", (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
				ts.Check(err)
				defer db.Close()
				for q := range strings.SplitSeq(ts.ReadFile(args[1]), ";\n") {
					if strings.TrimSpace(q) != "" {
						_, err := db.Exec(q)
						ts.Check(err)
					}
				}
			},
			// cut IN N OUT writes the first N records of the transcript
			// IN to OUT: its first N messages when it is one JSON
			// document with "messages" (Gemini CLI's), else its first N
			// lines. A session is made as it was while it ran.
			"cut": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) != 3 {
					ts.Fatalf("usage: cut IN N OUT")
				}
				n, err := strconv.Atoi(args[1])
				ts.Check(err)
				out, err := cutTranscript([]byte(ts.ReadFile(args[0])), n)
				ts.Check(err)
				ts.Check(os.WriteFile(ts.MkAbs(args[2]), out, 0o644))
			},
			// exits N cmd args... runs cmd and checks its exit status is N.
			"exits": func(ts *testscript.TestScript, neg bool, args []string) {
				if neg || len(args) < 2 {
					ts.Fatalf("usage: exits N command [args...]")
				}
				want, err := strconv.Atoi(args[0])
				if err != nil {
					ts.Fatalf("exits: %v", err)
				}
				got := 0
				if err := ts.Exec(args[1], args[2:]...); err != nil {
					var ee *exec.ExitError
					if !errors.As(err, &ee) {
						ts.Fatalf("exits: %v", err)
					}
					got = ee.ExitCode()
				}
				if got != want {
					ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
				}
			},
		},
	})
}

// A fillMark is a marker of the fill command and what replaces it: n
// copies of text.
type fillMark struct {
	mark string
	n    int
	text string
}

// fill writes tmpl to w with each marker replaced as marks say, earliest
// first and, at one place, in the order of marks, as strings.Replacer
// does; the copies are written a chunk at a time, never held together.
func fill(w io.Writer, tmpl string, marks []fillMark) error {
	for tmpl != "" {
		at, which := len(tmpl), -1
		for k, m := range marks {
			if i := strings.Index(tmpl, m.mark); i >= 0 && i < at && m.mark != "" {
				at, which = i, k
			}
		}
		if _, err := io.WriteString(w, tmpl[:at]); err != nil || which < 0 {
			return err
		}
		m := marks[which]
		if err := writeCopies(w, m.text, m.n); err != nil {
			return err
		}
		tmpl = tmpl[at+len(m.mark):]
	}
	return nil
}

// writeCopies writes n copies of text to w, in chunks of at most 64 KiB.
func writeCopies(w io.Writer, text string, n int) error {
	if text == "" {
		return nil
	}
	per := max(1, min(n, 64<<10/len(text)))
	chunk := strings.Repeat(text, per)
	for ; n > 0; n -= per {
		if n < per {
			chunk = chunk[:n*len(text)]
		}
		if _, err := io.WriteString(w, chunk); err != nil {
			return err
		}
	}
	return nil
}

// modesStopReads reports whether a file of mode 000 cannot be opened, as
// for every user but root.
var modesStopReads = sync.OnceValue(func() bool {
	dir, err := os.MkdirTemp("", "retrace-modes")
	if err != nil {
		return false
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "locked")
	if err := os.WriteFile(path, nil, 0o000); err != nil {
		return false
	}
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	f.Close()
	return false
})

// TestGrammar catches mistakes in the kong grammar that would otherwise
// show only when retrace runs: missing variables, bad enum defaults.
func TestGrammar(t *testing.T) {
	var out bytes.Buffer
	env := &Env{Stdout: &out, Stderr: &out, Getenv: func(string) string { return "" }}
	k, err := kong.New(&CLI{}, append(kongOptions(env), kong.Exit(func(int) { t.Fatal("exit called") }))...)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-"}, {"errors", "-"}, {"pairs", "x"}, {"bench"}, {"lessons"}, {"formats"}} {
		if _, err := k.Parse(args); err != nil {
			t.Errorf("Parse(%q): %v", args, err)
		}
	}
}

func TestColor(t *testing.T) {
	for _, tt := range []struct {
		terminal bool
		noColor  bool
		env      map[string]string
		want     bool
	}{
		{terminal: true, want: true},
		{terminal: false, want: false},
		{terminal: true, noColor: true, want: false},
		{terminal: true, env: map[string]string{"NO_COLOR": "1"}, want: false},
		{terminal: true, env: map[string]string{"NO_COLOR": "0"}, want: false},
		{terminal: true, env: map[string]string{"TERM": "dumb"}, want: false},
	} {
		env := &Env{Terminal: tt.terminal, Getenv: func(k string) string { return tt.env[k] }}
		g := &Globals{NoColor: tt.noColor}
		if got := g.color(env); got != tt.want {
			t.Errorf("color(terminal=%v, --no-color=%v, env=%v) = %v, want %v", tt.terminal, tt.noColor, tt.env, got, tt.want)
		}
	}
}

// TestRunStatus checks exit statuses through run itself, for the cases a
// script cannot set up.
func TestRunStatus(t *testing.T) {
	dir := t.TempDir()
	unreadable := filepath.Join(dir, "locked.jsonl")
	if err := os.WriteFile(unreadable, []byte("{}\n"), 0o000); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Open(unreadable); err == nil {
		f.Close()
		t.Skip("running as a user who can read any file")
	}
	var stdout, stderr bytes.Buffer
	env := &Env{Stdin: &bytes.Buffer{}, Stdout: &stdout, Stderr: &stderr, Getenv: func(string) string { return "" }}
	seeds := filepath.Join("..", "..", "testdata", "seeds", "opencode.json")
	if got := run([]string{"errors", unreadable, seeds}, env); got != 1 {
		t.Errorf("status = %d, want 1; stderr:\n%s", got, stderr.String())
	}
	if !bytes.Contains(stderr.Bytes(), []byte("locked.jsonl: permission denied")) {
		t.Errorf("stderr = %q, want the unreadable file named", stderr.String())
	}
	if !bytes.Contains(stdout.Bytes(), []byte("benchmark_parallel.py")) {
		t.Errorf("the readable file was not reported:\n%s", stdout.String())
	}
}
