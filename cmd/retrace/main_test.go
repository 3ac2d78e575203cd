package main

import (
	"bytes"
	"errors"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/alecthomas/kong"
	"github.com/klauspost/compress/zstd"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the expected output in test scripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"retrace": main})
}

// TestScript runs the command-line tests in testdata/script. $TESTDATA is
// the repository's testdata folder.
func TestScript(t *testing.T) {
	testdata, err := filepath.Abs(filepath.Join("..", "..", "testdata"))
	if err != nil {
		t.Fatal(err)
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join("testdata", "script"),
		UpdateScripts:       *update,
		RequireExplicitExec: true,
		Setup: func(e *testscript.Env) error {
			e.Setenv("TESTDATA", testdata)
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
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
