// Command retrace reads coding-agent transcripts and reports, for every tool
// call that failed, why it failed, the retry that fixed it, what changed
// between the two, what it cost, which mistakes recur, and the benchmark
// numbers the runs printed.
//
// Usage:
//
//	retrace [summary] [PATH...]   counts, failure chains and top lessons (the default)
//	retrace errors [PATH...]      one line per failed call
//	retrace pairs [PATH...]       each failure with the call that fixed it
//	retrace bench [PATH...]       the benchmark numbers the calls printed
//	retrace lessons [PATH...]     mistakes made and how they were corrected
//	retrace show FILE [CALL]      one failure chain told as a story
//	retrace report [PATH...]      a post-mortem in Markdown or HTML (-f html -o FILE)
//	retrace formats               the transcript formats retrace reads
//	retrace learn [PATH...]       keep the lessons for retrace guard
//	retrace guard                 answer an agent's hook: block a repeated mistake
//
// A PATH is a transcript file, a directory searched recursively, or "-" for
// standard input. With no PATH, retrace reads the agents' default
// locations. Exit status: 0 on success, findings included; 1 when some input
// could not be read (the rest is still reported); 2 on a usage error.
package main

import (
	"errors"
	"io"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/alecthomas/kong"
	"golang.org/x/term"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/pipeline"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/report"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = ""

// CLI is the command line.
type CLI struct {
	Globals

	Summary summaryCmd `cmd:"" default:"withargs" help:"Count calls, failures and fixes; list the failure chains and the top lessons (the default command)."`
	Errors  errorsCmd  `cmd:"" help:"List every failed tool call: its category, its error and the call that fixed it."`
	Pairs   pairsCmd   `cmd:"" help:"List each failure with its retries, the call that fixed it, what changed and what it cost."`
	Bench   benchCmd   `cmd:"" help:"List the benchmark numbers the tool calls printed, with their context."`
	Lessons lessonsCmd `cmd:"" help:"List the mistakes the agent made and corrected, grouped across sessions; --format markdown writes them as instructions for an agent."`
	Report  reportCmd  `cmd:"" help:"Write a post-mortem to share, in Markdown or as a self-contained HTML page: per session what failed, what fixed it, what it cost and what the benchmarks showed."`
	Show    showCmd    `cmd:"" help:"Tell the failure chains of one transcript as stories: the failed command, the error, the calls between, the fix, what changed and what it cost."`
	Formats formatsCmd `cmd:"" help:"List the transcript formats retrace reads and how it recognizes them."`
	Learn   learnCmd   `cmd:"" help:"Keep the lessons of the transcripts (flags and values a program rejected, and what corrected them) in the store retrace guard reads."`
	Guard   guardCmd   `cmd:"" help:"Answer an agent's hook before and after each tool call: block a shell call that repeats a corrected mistake, and hand back the earlier fix after a failure; --install sets the hooks up."`

	Help       helpCmd       `cmd:"" help:"Explain a command: retrace help pairs."`
	VersionCmd versionCmd    `cmd:"" name:"version" help:"Print the version."`
	Completion completionCmd `cmd:"" help:"Print the shell code that completes retrace's commands, flags and files: eval \"$(retrace completion bash)\"."`
}

// Globals are the flags every command takes.
type Globals struct {
	Version kong.VersionFlag `help:"Print the version and exit."`
	Quiet   bool             `short:"q" help:"Print no warnings or progress on standard error."`
	Verbose bool             `short:"v" help:"Print every warning; without it, the first 5 of each kind and a count of the rest."`
	NoColor bool             `name:"no-color" help:"Never colour table output (colour is used only on a terminal, and never when NO_COLOR is set)."`
	Wide    bool             `help:"Print tables at full width; without it, a table on a terminal (or as wide as COLUMNS says) is made to fit, long cells cut and the least needed columns left out."`
	Profiles
}

// Env is what a command may touch: its streams and its environment.
type Env struct {
	Stdin io.Reader
	// StdinPiped reports that standard input is a pipe or a file with
	// data, which retrace reads only when "-" names it.
	StdinPiped     bool
	Stdout, Stderr io.Writer
	// Terminal reports whether standard output is a terminal;
	// ErrTerminal, standard error.
	Terminal, ErrTerminal bool
	// Columns is the width of the terminal standard output is, or 0.
	Columns int
	Getenv  func(string) string
	// Now tells the time, for --since 7d; nil means time.Now.
	Now func() time.Time
}

const description = `retrace reads coding-agent transcripts (Claude Code, opencode, Codex CLI,
Gemini CLI, SWE-agent, OpenHands, terminal copies; see "retrace formats")
and reports the tool calls that failed, the corrected retry that fixed each,
what changed between the two, what it cost, which mistakes recur, and the
benchmark numbers the runs printed.

A PATH is a transcript file, a directory (searched recursively; files of no
known format are skipped; an opencode data folder gives all its sessions),
or "-" for standard input. With no PATH, retrace reads the agents' default
locations, such as ~/.claude/projects and ~/.local/share/opencode.

Secrets (API keys, tokens, passwords, private keys) are masked in every
output; --no-redact shows them.

Examples:
  retrace session.jsonl                 summary of one session
  retrace pairs ~/.claude/projects      every failure and its fix
  retrace errors -f json export.json    failed calls as JSON
  retrace lessons -f markdown .         lessons to paste into AGENTS.md
  retrace show session.jsonl 33         the story of the failure at msg 33
  retrace report -f html -o pm.html .   a post-mortem page to share
  retrace learn                         keep the lessons for retrace guard
  retrace guard --install claude-code   the hooks that stop repeated mistakes

Exit status: 0 on success (findings are not failures); 1 when some input
could not be read, the rest still reported; 2 on a usage error.`

func kongOptions(env *Env) []kong.Option {
	var inputFormats, categories []string
	for _, f := range parser.Formats() {
		inputFormats = append(inputFormats, f.Name)
	}
	for _, c := range diagnose.Categories {
		categories = append(categories, string(c))
	}
	return []kong.Option{
		kong.Name("retrace"),
		kong.Description(description),
		kong.Writers(env.Stdout, env.Stderr),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{
			"version":       versionString(),
			"input_formats": "auto," + strings.Join(inputFormats, ","),
			"formats":       strings.Join(report.Formats(), ","),
			"categories":    strings.Join(categories, ","),
			"category_list": strings.Join(categories, ", "),
		},
	}
}

func main() {
	env := &Env{
		Stdin:       os.Stdin,
		StdinPiped:  isPiped(os.Stdin),
		Stdout:      os.Stdout,
		Stderr:      os.Stderr,
		Terminal:    isTerminal(os.Stdout),
		Columns:     columns(os.Stdout),
		ErrTerminal: isTerminal(os.Stderr),
		Getenv:      os.Getenv,
	}
	os.Exit(run(os.Args[1:], env))
}

// exitCode carries the status kong asks to exit with, out of kong.
type exitCode int

// run runs the command line args and returns the exit status.
func run(args []string, env *Env) (status int) {
	var cli CLI
	opts := append(kongOptions(env), kong.Exit(func(code int) { panic(exitCode(code)) }))
	defer func() {
		if r := recover(); r != nil {
			code, ok := r.(exitCode)
			if !ok {
				panic(r)
			}
			status = int(code)
		}
	}()
	k, err := kong.New(&cli, opts...)
	if err != nil {
		panic(err) // a mistake in the grammar above
	}
	if answerCompletion(k) {
		return 0
	}
	if meant, err := mistypedCommand(k, args); err != nil {
		sayError(env.Stderr, "retrace: error: ", err)
		say(env.Stderr, `Run "retrace --help" for usage.`)
		if meant == "guard" {
			return 0 // as below: an agent would take 2 to block the call
		}
		return 2
	}
	ctx, err := k.Parse(args)
	if err != nil {
		sayError(env.Stderr, "retrace: error: ", err)
		say(env.Stderr, `Run "retrace --help" for usage.`)
		if len(args) > 0 && args[0] == "guard" {
			// An agent takes the guard's exit status 2 to block the
			// call: a mistake in its command line must not.
			return 0
		}
		return 2
	}
	stop, err := cli.Profiles.start()
	if err != nil {
		sayError(env.Stderr, "retrace: error: ", err)
		return 1
	}
	err = ctx.Run(&cli.Globals, env)
	if perr := stop(); perr != nil && err == nil {
		err = perr
	}
	var guarded guardStatus
	switch {
	case err == nil:
		return 0
	case errors.As(err, &guarded):
		return int(guarded)
	case errors.Is(err, errPartial):
		return 1
	case errors.As(err, new(usageError)):
		sayError(env.Stderr, "retrace: ", err)
		return 2
	}
	sayError(env.Stderr, "retrace: error: ", err)
	return 1
}

// errPartial reports that some input could not be read; what could be read
// was reported, and the reasons were printed.
var errPartial = pipeline.ErrPartial

// errNothingRead reports that inputs were named but none could be read:
// there is nothing to report, and no empty report is printed as if all
// went well.
var errNothingRead = pipeline.ErrNothingRead

func versionString() string {
	if version != "" {
		return version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

// isPiped reports whether f is a pipe or a file with data in it.
func isPiped(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && (fi.Mode()&os.ModeNamedPipe != 0 || fi.Mode().IsRegular() && fi.Size() > 0)
}

// columns returns the width of the terminal f is, or 0.
func columns(f *os.File) int {
	w, _, err := term.GetSize(int(f.Fd()))
	if err != nil {
		return 0
	}
	return w
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// now returns the current time.
func (env *Env) now() time.Time {
	if env.Now == nil {
		return time.Now()
	}
	return env.Now()
}

// options returns the report options of a command writing format to
// standard output: colour and width as the flags and the terminal say.
func (g *Globals) options(env *Env, format string) report.Options {
	return report.Options{Format: format, Color: g.color(env), Width: g.width(env)}
}

// width returns the width tables are made to fit: none with --wide, else
// $COLUMNS when it is set, even when piped (whoever sets it asks for that
// width), else the terminal's; none when piped without COLUMNS.
func (g *Globals) width(env *Env) int {
	if g.Wide {
		return 0
	}
	if n, err := strconv.Atoi(env.Getenv("COLUMNS")); err == nil && n > 0 {
		return n
	}
	return env.Columns
}

// color reports whether table output may use colour: only on a terminal,
// not with --no-color, not when NO_COLOR is set to anything, not on a dumb
// terminal.
func (g *Globals) color(env *Env) bool {
	return env.Terminal && !g.NoColor && env.Getenv("NO_COLOR") == "" && env.Getenv("TERM") != "dumb"
}
