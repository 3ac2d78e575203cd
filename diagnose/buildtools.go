package diagnose

import (
	"regexp"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// Build tools and linters that report a failure in words of their own, not
// in a compiler's "file:line: error:" form: Elixir's mix and its checkers,
// pre-commit's hooks, ESLint, MSBuild, Gradle, Maven and make. Each signature needs the tool's
// own verdict (a count of errors above zero, "BUILD FAILED", make's "***"),
// so that a passing run and text that merely says "error" never match; the
// message is the first error the tool names. Their cases are in
// testdata/failures.

var (
	// elixirCompileRE matches the exception with which the Elixir
	// compiler stops: "** (CompileError) lib/x.ex:3: undefined function".
	elixirCompileRE = prefilter.MustCompile(`(?m)^\*\* \((?:CompileError|SyntaxError|TokenMissingError|MismatchedDelimiterError)\) .*$`)
	// elixirWarningsRE matches mix compile --warnings-as-errors failing.
	elixirWarningsRE = prefilter.MustCompile(`(?m)^Compilation failed due to warnings while using the --warnings-as-errors option$`)
	// elixirDiagRE matches a diagnostic of Elixir 1.15 and later, whose
	// place follows on a "└─ lib/x.ex:3:18: Mod.fun/0" line.
	elixirDiagRE  = regexp.MustCompile(`(?m)^[ \t]*(error|warning): (.+)$`)
	elixirWhereRE = regexp.MustCompile(`^\s*└─ (\S+?:\d+(?::\d+)?)`)
	// mixRE matches mix's own errors: "** (Mix) Could not start application".
	mixRE = prefilter.MustCompile(`(?m)^\*\* \(Mix\) (.+)$`)
	// mixTaskRE reads mix's unknown task, with its suggestion.
	mixTaskRE = regexp.MustCompile(`^The task "([^"]+)" could not be found(?:\. Did you mean "([^"]+)"\?)?`)
	// elixirExceptionRE matches an uncaught Elixir exception.
	elixirExceptionRE = prefilter.MustCompile(`(?m)^\*\* \(([A-Z][\w.]*)\) (.*)$`)
)

// matchElixir recognizes Elixir and mix: the compiler stopping on errors
// (the first error, with its place, is the message), warnings treated as
// errors, a dependency that did not compile, an application that could not
// start (under mix test, no test ran), an unknown task, and uncaught
// exceptions.
func matchElixir(out string, cmd *shell.Command, _ bool) *Diagnosis {
	if loc := elixirCompileRE.FindStringIndex(out); loc != nil {
		msg := strings.TrimPrefix(out[loc[0]:loc[1]], "** ")
		if d := elixirDiagnostic(out[:loc[0]], "error"); d != "" {
			msg = d
		}
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(msg, 200)}
	}
	if loc := elixirWarningsRE.FindStringIndex(out); loc != nil {
		msg := out[loc[0]:loc[1]]
		if d := elixirDiagnostic(out[:loc[0]], "warning"); d != "" {
			msg = d
		}
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(msg, 200)}
	}
	if m := mixRE.FindStringSubmatch(out); m != nil {
		msg := strings.TrimSpace(m[1])
		d := &Diagnosis{Message: termtext.Cut(msg, 200)}
		switch {
		case strings.HasPrefix(msg, "Could not start application"):
			d.Category = Exception
			if cmd != nil && cmd.Target == "mix test" {
				d.Category = TestFailure // the suite could not start
			}
		case strings.HasPrefix(msg, "Could not compile dependency"):
			d.Category = BuildError
		case mixTaskRE.MatchString(msg):
			t := mixTaskRE.FindStringSubmatch(msg)
			d.Category, d.Parser, d.BadFlags = CLIUsage, "mix", []string{t[1]}
			if t[2] != "" {
				d.Suggestions = []string{t[2]}
			}
		default:
			return nil
		}
		return d
	}
	if m := elixirExceptionRE.FindStringSubmatch(out); m != nil {
		msg := strings.TrimSpace(m[2])
		return &Diagnosis{Category: Exception, Message: termtext.Cut(m[1]+": "+msg, 200),
			Exception: &ExceptionInfo{Type: m[1], Message: termtext.Cut(msg, 200)}}
	}
	return nil
}

// elixirDiagnostic returns the first diagnostic of kind ("error" or
// "warning") in out as "file:line:col: kind: message", or "".
func elixirDiagnostic(out, kind string) string {
	for _, m := range elixirDiagRE.FindAllStringSubmatchIndex(out, -1) {
		if out[m[2]:m[3]] != kind {
			continue
		}
		msg := kind + ": " + strings.TrimSpace(out[m[4]:m[5]])
		// The place is on the "└─" line that closes the code excerpt.
		for i, line := range strings.Split(out[m[1]:], "\n") {
			if i > 12 {
				break
			}
			if w := elixirWhereRE.FindStringSubmatch(line); w != nil {
				return w[1] + ": " + msg
			}
		}
		return msg
	}
	return ""
}

var (
	dialyzerTotalRE = prefilter.MustCompile(`(?m)^Total errors: [1-9]\d*, .*$`)
	dialyzerDoneRE  = prefilter.MustCompile(`(?m)^done \(warnings were emitted\)$`)
	// dialyzerWarningRE reads a warning of dialyxir: "lib/x.ex:5:no_return"
	// with its text on the next line, or on the same one in short form.
	dialyzerWarningRE = prefilter.MustCompile(`(?m)^(\S+\.(?:ex|exs|erl):\d+(?::\d+)?:\w+)(?: (.+)|\n(.+))$`)
)

// matchDialyzer recognizes Dialyzer run by mix dialyzer reporting
// warnings: "Total errors: 1", "done (warnings were emitted)" (dialyxir
// then halts the VM with exit status 2). The first warning is the message.
func matchDialyzer(out string, _ *shell.Command, _ bool) *Diagnosis {
	total := dialyzerTotalRE.FindString(out)
	if total == "" && !dialyzerDoneRE.MatchString(out) {
		return nil
	}
	msg := total
	if m := dialyzerWarningRE.FindStringSubmatch(out); m != nil {
		msg = m[1] + " " + strings.TrimSpace(m[2]+m[3])
	}
	if msg == "" {
		msg = "done (warnings were emitted)"
	}
	return &Diagnosis{Category: BuildError, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
}

var (
	// credoSummaryRE matches Credo's count of what it found, which says
	// "found no issues." when it found none.
	credoSummaryRE = prefilter.MustCompile(`(?m)^\d+ mods/funs, found (.+)\.$`)
	// credoIssueRE reads an issue: "┃ [W] ↗ message", then its place.
	credoIssueRE = prefilter.MustCompile(`(?m)^┃ \[([A-Z])\] \S+ (.+)\n┃\s+(\S+?:\d+(?::\d+)?)`)
)

// matchCredo recognizes Credo reporting issues; the first, with its place,
// is the message.
func matchCredo(out string, _ *shell.Command, _ bool) *Diagnosis {
	m := credoSummaryRE.FindStringSubmatch(out)
	if m == nil || m[1] == "no issues" {
		return nil
	}
	msg := "found " + m[1]
	if i := credoIssueRE.FindStringSubmatch(out); i != nil {
		msg = i[3] + ": [" + i[1] + "] " + strings.TrimSpace(i[2])
	}
	return &Diagnosis{Category: BuildError, Message: termtext.Cut(msg, 200)}
}

var (
	// preCommitRE matches a pre-commit hook that failed, with its id:
	// "ruff-format......Failed" then "- hook id: ruff-format".
	preCommitRE = prefilter.MustCompile(`(?m)^\S.*?\.{3,}(?:\([^)\n]*\))?Failed\r?\n- hook id: (\S+)\r?$`)
	// preCommitNoteRE matches the lines pre-commit writes under a failed
	// hook's id: "- exit code: 1", "- files were modified by this hook".
	preCommitNoteRE = regexp.MustCompile(`^- (?:exit code: \d+|duration: .*|files were modified by this hook)$`)
	// preCommitStatusRE matches a hook's line of status.
	preCommitStatusRE = regexp.MustCompile(`\.{3,}(?:\([^)]*\))?(?:Passed|Failed|Skipped)$`)
)

// matchPreCommit recognizes a pre-commit hook that failed, as git commit
// and pre-commit run print it: a linter or formatter that found problems,
// or changed files. The message names the hook and the first line it
// printed, or pre-commit's note that it modified files.
func matchPreCommit(out string, _ *shell.Command, _ bool) *Diagnosis {
	m := preCommitRE.FindStringSubmatchIndex(out)
	if m == nil {
		return nil
	}
	msg := "pre-commit hook " + out[m[2]:m[3]] + " failed"
	note, modified := "", false
	for l := range strings.Lines(out[m[1]:]) {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if preCommitNoteRE.MatchString(l) {
			modified = modified || strings.HasPrefix(l, "- files")
			continue
		}
		if !preCommitStatusRE.MatchString(l) { // the next hook's line: this one printed nothing
			note = l
		}
		break
	}
	if note == "" && modified {
		note = "files were modified by this hook"
	}
	if note != "" {
		msg += ": " + note
	}
	return &Diagnosis{Category: BuildError, Message: termtext.Cut(msg, 200)}
}

var (
	// eslintSummaryRE matches ESLint's count of problems with at least
	// one error: warnings alone leave its exit status 0.
	eslintSummaryRE = prefilter.MustCompile(`(?m)^✖ \d+ problems? \([1-9]\d* errors?, \d+ warnings?\)$`)
	eslintTooManyRE = prefilter.MustCompile(`(?m)^ESLint found too many warnings \(maximum: \d+\)\.$`)
	// eslintErrorRE reads an error of the stylish format, under its file:
	// "  12:5  error  'foo' is not defined  no-undef".
	eslintErrorRE = prefilter.MustCompile(`(?m)^ +(\d+:\d+) +error +(.+?)(?:  +(\S+))?$`)
)

// matchESLint recognizes ESLint reporting errors, or more warnings than
// --max-warnings allows. The first error, with its file, line and rule, is
// the message.
func matchESLint(out string, _ *shell.Command, _ bool) *Diagnosis {
	summary := eslintSummaryRE.FindString(out)
	if summary == "" {
		if s := eslintTooManyRE.FindString(out); s != "" {
			return &Diagnosis{Category: BuildError, Message: s}
		}
		return nil
	}
	msg := summary
	if m := eslintErrorRE.FindStringSubmatchIndex(out); m != nil {
		msg = out[m[2]:m[3]] + ": " + strings.TrimSpace(out[m[4]:m[5]])
		if m[6] >= 0 {
			msg += " (" + out[m[6]:m[7]] + ")"
		}
		if file := eslintFile(out[:m[0]]); file != "" {
			msg = file + ":" + msg
		}
	}
	return &Diagnosis{Category: BuildError, Message: termtext.Cut(msg, 200)}
}

// eslintFile returns the file ESLint names above its problems: the last
// line before them that is not indented.
func eslintFile(before string) string {
	lines := strings.Split(strings.TrimRight(before, "\n"), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimRight(lines[i], " \r")
		if l != "" && l[0] != ' ' {
			return l
		}
	}
	return ""
}

var (
	// msbuildErrorRE reads MSBuild's canonical errors, which dotnet build
	// prints for the C# compiler, MSBuild and NuGet: "Program.cs(12,5):
	// error CS0103: …", without the project it appends in brackets.
	msbuildErrorRE = prefilter.MustCompile(`(?m)^\s*(\S.*?: error (?:CS|MSB|NU|NETSDK|FS|BC)\d+: .*?)(?: \[[^\]\n]+\])?$`)
	// msbuildFailedRE matches MSBuild's verdict, in its classic and its
	// terminal logger's words.
	msbuildFailedRE = prefilter.MustCompile(`(?m)^(?:Build FAILED\.|Build failed with \d+ error\(s\).*)$`)
)

// matchMSBuild recognizes dotnet build (MSBuild) failing: its first error,
// or its verdict.
func matchMSBuild(out string, _ *shell.Command, _ bool) *Diagnosis {
	if m := msbuildErrorRE.FindStringSubmatch(out); m != nil {
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(strings.TrimSpace(m[1]), 200)}
	}
	if s := msbuildFailedRE.FindString(out); s != "" {
		return &Diagnosis{Category: BuildError, Message: s}
	}
	return nil
}

var (
	// gradleFailedRE matches Gradle's verdicts: the build failed, a task
	// failed.
	gradleFailedRE = prefilter.MustCompile(`(?m)^(?:FAILURE: Build (?:failed with an exception|completed with \d+ failures?)\.|BUILD FAILED(?: in \S+)?|> Task \S+ FAILED)$`)
	// gradleWrongRE reads the "* What went wrong:" section: its first
	// line, and the cause Gradle gives after ">".
	gradleWrongRE = prefilter.MustCompile(`(?m)^\* What went wrong:\n(.+)(?:\n> (.+))?`)
	// kotlinErrorRE reads the Kotlin compiler's errors: "e:
	// file:///x/App.kt:5:13 Unresolved reference 'foo'."
	kotlinErrorRE = prefilter.MustCompile(`(?m)^e: (\S+:\d+:\d+ .*|\S+: \(\d+, \d+\): .*)$`)
	gradleTaskRE  = prefilter.MustCompile(`(?m)^> Task \S+ FAILED$`)
)

// matchGradle recognizes Gradle failing a build: a Kotlin compiler error,
// else what went wrong (a test task's failing tests are a test failure),
// else the task that failed.
func matchGradle(out string, _ *shell.Command, _ bool) *Diagnosis {
	if !gradleFailedRE.MatchString(out) {
		return nil
	}
	d := &Diagnosis{Category: BuildError}
	switch {
	case kotlinErrorRE.MatchString(out):
		d.Message = kotlinErrorRE.FindStringSubmatch(out)[1]
	case gradleWrongRE.MatchString(out):
		m := gradleWrongRE.FindStringSubmatch(out)
		d.Message = strings.TrimSpace(m[1])
		if cause := strings.TrimSpace(m[2]); cause != "" {
			d.Message += " " + cause
			if strings.HasPrefix(cause, "There were failing tests") {
				d.Category = TestFailure
			}
		}
	case gradleTaskRE.MatchString(out):
		d.Message = gradleTaskRE.FindString(out)
	default:
		d.Message = gradleFailedRE.FindString(out)
	}
	d.Message = termtext.Cut(d.Message, 200)
	return d
}

var (
	// mavenFailedRE matches Maven's verdicts.
	mavenFailedRE = prefilter.MustCompile(`(?m)^\[(?:INFO|ERROR)\] (?:BUILD FAILURE|Failed to execute goal .*)$`)
	// mavenCompileRE reads the compiler's errors as Maven prints them:
	// "[ERROR] /x/App.java:[12,5] cannot find symbol".
	mavenCompileRE = prefilter.MustCompile(`(?m)^\[ERROR\] (\S+\.(?:java|kt|scala|groovy):\[\d+,\d+\] .*)$`)
	mavenGoalRE    = prefilter.MustCompile(`(?m)^\[ERROR\] (Failed to execute goal .*)$`)
	mavenErrorRE   = prefilter.MustCompile(`(?m)^\[ERROR\] (\S.*)$`)
	mavenPhaseRE   = prefilter.MustCompile(`(?m)^\[ERROR\] (Unknown lifecycle phase "([^"]+)".*)$`)
)

// matchMaven recognizes Maven failing a build: a compiler error, else the
// goal that failed (failed tests are a test failure), else its first
// error; an unknown lifecycle phase is a usage error.
func matchMaven(out string, _ *shell.Command, _ bool) *Diagnosis {
	if !mavenFailedRE.MatchString(out) {
		return nil
	}
	if m := mavenPhaseRE.FindStringSubmatch(out); m != nil {
		return &Diagnosis{Category: CLIUsage, Parser: "maven", Message: termtext.Cut(m[1], 200), BadFlags: []string{m[2]}}
	}
	d := &Diagnosis{Category: BuildError}
	if m := mavenCompileRE.FindStringSubmatch(out); m != nil {
		d.Message = m[1]
	} else if m := mavenGoalRE.FindStringSubmatch(out); m != nil {
		d.Message = m[1]
		if strings.Contains(m[1], "There are test failures") {
			d.Category = TestFailure
		}
	} else if m := mavenErrorRE.FindStringSubmatch(out); m != nil {
		d.Message = m[1]
	} else {
		d.Message = "BUILD FAILURE"
	}
	d.Message = termtext.Cut(strings.TrimSpace(d.Message), 200)
	return d
}

var (
	// makeErrorRE matches GNU make stopping: a recipe that failed ("make:
	// *** [Makefile:12: all] Error 1", "make[1]: *** … Error 2"), a
	// target it has no rule for, a Makefile it cannot read.
	makeErrorRE = prefilter.MustCompile(`(?m)^(?:(?:g?make|mingw32-make)(?:\[\d+\])?: \*\*\* (?:\[[^\]\n]*\] (?:Error \d+|Segmentation fault.*|Killed)|(.*)  Stop\.)|(\S*[Mm]akefile:\d+: \*\*\* .*)  Stop\.)$`)
	// makeNoRuleRE reads a target make has no rule for, and the target
	// that needed it when there is one.
	makeNoRuleRE = regexp.MustCompile(`^No rule to make target [‘'` + "`" + `]([^’']+)[’']((?:, needed by [^.]+)?)\.$`)
)

// matchMake recognizes GNU make stopping. A recipe's failure is told best
// by the recipe's own error, the last line before make's that says it
// failed; make's line is the message when there is none. No rule for the
// target asked for is a usage error; for a prerequisite, a missing file.
func matchMake(out string, _ *shell.Command, _ bool) *Diagnosis {
	m := makeErrorRE.FindStringSubmatchIndex(out)
	if m == nil {
		return nil
	}
	line := strings.TrimSpace(out[m[0]:m[1]])
	switch {
	case m[4] >= 0: // an error in the Makefile
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(out[m[4]:m[5]], 200)}
	case m[2] >= 0:
		stop := strings.TrimSpace(out[m[2]:m[3]])
		if r := makeNoRuleRE.FindStringSubmatch(stop); r != nil {
			if r[2] != "" {
				return &Diagnosis{Category: MissingFile, Message: termtext.Cut(stop, 200)}
			}
			return &Diagnosis{Category: CLIUsage, Parser: "make", Message: termtext.Cut(stop, 200), BadFlags: []string{r[1]}}
		}
		return &Diagnosis{Category: BuildError, Message: termtext.Cut(line, 200)}
	}
	msg := line
	if l := failureWordLine(out[:m[0]]); l != "" {
		msg = l
	}
	return &Diagnosis{Category: makeCategory(line), Message: termtext.Cut(msg, 200)}
}

// makeTargetRE reads the target of make's "*** [Makefile:12: all] Error 1".
var makeTargetRE = regexp.MustCompile(`\*\*\* \[(?:[^\]
]*:\d+: )?([^\]
]+)\]`)

// makeTasks are targets that run, test or ship the project rather than
// build it: the failure of their recipe is not a build error.
var makeTasks = map[string]bool{
	"run": true, "start": true, "serve": true, "server": true, "dev": true, "up": true,
	"down": true, "deploy": true, "publish": true, "push": true, "upload": true,
	"clean": true, "bench": true, "benchmark": true,
}

// makeCategory says what the failure of the target in make's line is: a
// test target's is a test failure, a task's (run, deploy, bench, …) only a
// nonzero exit, any other's a build error.
func makeCategory(line string) Category {
	m := makeTargetRE.FindStringSubmatch(line)
	if m == nil {
		return BuildError
	}
	target := strings.ToLower(m[1])
	switch {
	case strings.Contains(target, "test") || target == "check":
		return TestFailure
	case makeTasks[target]:
		return NonzeroExit
	}
	return BuildError
}

// failureWordLine returns the last line of out that says in so many words
// that something failed, cut to 200 runes, or "".
func failureWordLine(out string) string {
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && failureWordRE.MatchString(l) {
			return termtext.Cut(l, 200)
		}
	}
	return ""
}
