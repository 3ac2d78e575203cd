package diagnose

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// The rules: the signatures of failures in a call's output, tried in
// order, and how a rule is matched.

// A rule recognizes one kind of failure from a call's output.
type rule struct {
	name     string
	doc      string
	category Category
	// strong rules are trusted even when the call's record says it
	// succeeded: `prog 2>&1 | tail` hides argparse's exit status 2.
	strong bool
	// match returns the diagnosis of out, the output of cmd, or nil.
	// claimsSuccess reports that the call's record says it succeeded, so
	// only unmistakable evidence should count.
	match func(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis
}

// rules are tried in order; the first that matches names the failure.
// Specific signatures come before general ones. Their cases are in
// testdata/failures.
var rules = slices.Concat(
	[]rule{
		{name: "hfargparser", doc: "Hugging Face's HfArgumentParser: arguments it did not use", category: CLIUsage, strong: true, match: matchHfArgparser},
		{name: "argparse", doc: "Python argparse usage errors, with the flags of the usage text", category: CLIUsage, strong: true, match: matchArgparse},
		{name: "typer", doc: "typer's boxed usage errors", category: CLIUsage, strong: true, match: matchTyper},
		{name: "click", doc: "Python click usage errors", category: CLIUsage, strong: true, match: matchClick},
		{name: "clap", doc: "Rust clap usage errors, with its tips", category: CLIUsage, strong: true, match: matchClap},
	},
	familyRules(),
	[]rule{
		{name: "go-flag", doc: "Go's flag package: flags not defined, with the Usage of block", category: CLIUsage, strong: true, match: matchGoFlag},
		{name: "cmd-banner", doc: "cmd.exe that printed only its banner and prompt: /c did not reach it (Git Bash turns /c into a path)", category: CLIUsage, strong: true, match: matchCmdBanner},
		{name: "usage-text", doc: "a program that rejected its command line and printed its usage: \"unrecognized or incomplete command line\", BusyBox's usage, Windows tools' \"ERROR: Invalid argument\"", category: CLIUsage, match: matchUsageText},
		{name: "backquotes", doc: "words a line quoted in backquotes inside double quotes, which the shell ran as commands (a commit message written in Markdown)", category: ShellSyntax, strong: true, match: matchBackquoted},
		{name: "command-not-found", doc: "a shell that could not find the program", category: CommandNotFound, strong: true, match: matchNotFound},
		{name: "agent-shell", doc: "the agent's own shell failing before the command ran (Claude Code on Windows: `Command failed: cygpath`)", category: AgentToolError, match: matchRE(AgentToolError,
			`(?m)^Command failed: cygpath .*$`)},
		{name: "agent-timeout", doc: "the agent's own timeout markers: Claude Code's, opencode's, Gemini CLI's, SWE-agent's", category: Timeout, strong: true, match: matchRE(Timeout,
			`(?m)^Command timed out after \d+(?:\.\d+)? ?(?:ms|s|m|minutes?|seconds?)\b(?: \d+(?:\.\d+)?s\b)?`,
			`(?m)^\(Command timed out after \d+ ms\)`,
			`(?m)^(?:bash|shell) tool terminated command after exceeding timeout \d+ ms\.?`,
			`(?m)^Command was automatically cancelled because it exceeded the timeout of .*? without output\.`,
			`(?m)^EXECUTION TIMED OUT\b.*$`,
			`(?m)^The command '[\s\S]*?' was cancelled because it took more than \d+ seconds\.`)},
		{name: "test-timeout", doc: "go test's panic when a test runs past its -timeout", category: Timeout, strong: true, match: matchRE(Timeout,
			`(?m)^panic: test timed out after \S+$`)},
		{name: "shell-syntax", doc: "shell quoting and syntax errors, bash's and zsh's", category: ShellSyntax, match: matchRE(ShellSyntax,
			`(?m)^.*(?:syntax error near unexpected token|unexpected EOF while looking for matching|syntax error: unexpected end of file|parse error near `+"`"+`|: unmatched ["'`+"`"+`]).*$`)},
		{name: "test-failure", doc: "test runners reporting failed tests: go test, pytest, jest and vitest, cargo test, mocha, ExUnit, RSpec, minitest, PHPUnit, dotnet test, Gradle, Maven, swift test, ctest, Playwright; go test's packages that did not build are build errors", category: TestFailure, match: matchTests},
		{name: "python-traceback", doc: "Python tracebacks: the exception, its message and the innermost project frame", category: Exception, strong: true, match: matchTraceback},
		{name: "node", doc: "uncaught Node.js errors with their stack", category: Exception, strong: true, match: matchNode},
		{name: "jvm", doc: "uncaught Java and Kotlin exceptions, with their root cause", category: Exception, strong: true, match: matchJVM},
		{name: "panic", doc: "Go and Rust panics", category: Exception, strong: true, match: matchPanic},
		{name: "unexpanded", doc: "a command line whose $(…) the shell printed instead of running: the agent's shell escaped it", category: ShellSyntax, strong: true, match: matchUnexpanded},
		{name: "powershell-syntax", doc: "PowerShell scripts that did not run as written: parse errors, and variables bash expanded in a double-quoted script ($_ as extglob)", category: ShellSyntax, strong: true, match: matchPowerShellSyntax},
		{name: "powershell", doc: "Windows PowerShell error records: parameters not found, terms not recognized, paths missing, DNS refusals", category: Exception, match: matchPowerShell},
		{name: "build-error", doc: "compiler, linker and type-checker errors with a file and line; packages pip could not build", category: BuildError, match: withoutDiagnostics(matchRE(BuildError,
			`(?m)^\S+\.\w+:\d+:\d+: (?:fatal )?error: .*$`,
			`(?m)^(?:error\[E\d+\]: .*|\S+\.(?:go|rs|c|cc|cpp|cxx|h|hpp|java|kt|swift|ts|tsx|scala|cs):\d+:\d+: .*|\S+\.\w+:\d+: error: .*|.*error TS\d+: .*)$`,
			"(?m)^.*: undefined reference to `.*$",
			// cargo: rustc's errors whose place is on the next line, its
			// summary, and dependencies it could not resolve.
			`(?m)^error(?:\[E\d+\])?: .*\n\s+--> \S+:\d+:\d+\s*$`,
			"(?m)^error: could not compile `.*$",
			`(?m)^error: (?:no matching package named|failed to select a version for|failed to load manifest|failed to parse manifest|failed to get `+"`"+`).*$`,
			// pip: a package it had to build from source did not build.
			`(?m)^\s*ERROR: Failed building (?:wheel|editable) for \S+\s*$`,
			`(?m)^ERROR: (?:Could not build wheels for|Failed to build installable wheels for) .*$`))},
		{name: "pre-commit", doc: "pre-commit hooks that failed (a linter or formatter that found problems or changed files), under git commit or pre-commit run", category: BuildError, match: matchPreCommit},
		{name: "out-of-memory", doc: "memory exhausted, on the GPU or the host", category: OutOfMemory, match: matchRE(OutOfMemory,
			`(?mi)^.*(?:out of memory|OutOfMemoryError|Cannot allocate memory|std::bad_alloc|MemoryError|JavaScript heap out of memory).*$`)},
		{name: "disk-full", doc: "no space left on the disk, or over quota; filed as out-of-memory: a resource ran out", category: OutOfMemory, match: matchRE(OutOfMemory,
			`(?mi)^.*(?:No space left on device|Disk quota exceeded|ENOSPC).*$`)},
		{name: "connect-timeout", doc: "connections that were never made: the host did not answer in time (ETIMEDOUT), ping's requests lost", category: Connection, match: matchRE(Connection,
			`(?mi)^.*(?:connection timed out|connect to host .* timed out|\bETIMEDOUT\b|connect timed out|Connection timeout).*$`,
			`(?m)^Request timed out\.\s*$`,
			`(?m)^.*\b100% (?:packet )?loss\b.*$`)},
		{name: "timeout", doc: "commands that ran out of time, by their own word or the agent's", category: Timeout, match: matchRE(Timeout,
			`(?mi)^.*(?:timed out|timeout (?:period )?expired|deadline exceeded|terminated command after exceeding timeout).*$`)},
		{name: "ssh", doc: "the ssh client's own errors, before the remote command ran: a host not reached or not resolved (connection), a key or password refused, a host key not verified (permission)", category: Connection, match: matchSSH},
		{name: "dns", doc: "DNS servers that refused or did not answer, as nslookup and dig report them", category: Connection, strong: true, match: matchRE(Connection,
			`(?m)^\*{2,3} .*can't find \S+: (?:Query refused|REFUSED|Server failed|SERVFAIL|No response from server|Timed out)\s*$`,
			`(?m)^;; (?:connection timed out; no servers could be reached|communications error to .*)$`)},
		{name: "connection", doc: "connections refused or reset, names not resolved, networks unreachable", category: Connection, match: matchRE(Connection,
			`(?m)^The connection to the server .* was refused.*$`,
			`(?mi)^.*(?:Cannot connect to the Docker daemon|connection refused|ECONNREFUSED|connection reset|ECONNRESET|could not resolve host|name or service not known|temporary failure in name resolution|getaddrinfo ENOTFOUND|Failed to connect to|no route to host|network is unreachable).*$`)},
		{name: "permission", doc: "permission denied, by the file system or sudo", category: Permission, match: matchRE(Permission,
			`(?mi)^.*(?:permission denied|operation not permitted|access is denied|sudo: a (?:password|terminal) is required).*$`,
			"(?m)^.*(?:You don't have write permissions for|Gem::FilePermissionError).*$", // RubyGems
			`(?m)^.*(?:EACCES|EPERM).*$`)},
		{name: "missing-file", doc: "files and directories that do not exist", category: MissingFile, match: matchRE(MissingFile,
			`(?mi)^.*(?:no such file or directory|file or directory not found|can't open file|ENOENT|cannot find the (?:path|file) specified|file not found|not a directory|cannot access '[^']*').*$`,
			`(?m)^(?:\S*sh|\(eval\)):(?:\d+: )? ?no matches found: .*$`)}, // zsh's glob that matched nothing
	},
	// Build tools in their own words, after the categories that say more
	// (a refused connection, a missing file under a failed build); make,
	// which runs the others, last.
	[]rule{
		{name: "elixir", doc: "Elixir and mix: compile errors with the first error, an application that could not start, uncaught exceptions", category: BuildError, match: matchElixir},
		{name: "dialyzer", doc: "Dialyzer (mix dialyzer): a count of errors above zero, warnings emitted; the first warning", category: BuildError, match: matchDialyzer},
		{name: "credo", doc: "Credo: the issues it found, the first with its place", category: BuildError, match: matchCredo},
		{name: "sqlite", doc: "the sqlite3 shell's errors: SQL it could not prepare or run, a database it could not open (missing-file)", category: NonzeroExit, match: matchSQLite},
		{name: "eslint", doc: "ESLint: problems counting errors, the first with its file and rule; too many warnings", category: BuildError, match: matchESLint},
		{name: "msbuild", doc: "dotnet build and MSBuild: error CS…, MSB…, NU… lines, Build FAILED", category: BuildError, match: matchMSBuild},
		{name: "gradle", doc: "Gradle: a build or task that failed, with what went wrong; Kotlin's errors", category: BuildError, match: matchGradle},
		{name: "maven", doc: "Maven: BUILD FAILURE, the compiler's errors, the goal that failed", category: BuildError, match: matchMaven},
		{name: "make", doc: "GNU make: a recipe that failed, told by the recipe's own error; no rule for a target", category: BuildError, match: matchMake},
	},
)

// familyRules turns the usage families into rules.
func familyRules() []rule {
	out := make([]rule, len(usageFamilies))
	for i := range usageFamilies {
		f := &usageFamilies[i]
		out[i] = rule{name: f.name, doc: f.doc, category: CLIUsage, strong: true, match: f.match}
	}
	return out
}

// shellRules are the rules whose signatures come from the shell, not from
// the command: they read a viewer's output too.
var shellRules = map[string]bool{"command-not-found": true, "powershell-syntax": true, "unexpanded": true, "ssh": true}

var (
	sshConnectRE = prefilter.MustCompile(`(?m)^ssh: (?:connect to host \S+ port \d+: .+|Could not resolve hostname .+)$|^kex_exchange_identification: .+$|^Connection closed by \S+ port \d+\s*$`)
	sshDeniedRE  = prefilter.MustCompile(`(?m)^(?:\S+@\S+: )?Permission denied \((?:publickey|password|keyboard-interactive)[^)]*\)\.\s*$|^Host key verification failed\.\s*$`)
)

var (
	// sqliteOwnRE matches the sqlite3 shell's own wording, which no
	// other program uses.
	sqliteOwnRE = prefilter.MustCompile(`(?m)^(?:Error: (?:in prepare|stepping), .+|(?:Parse|Runtime) error near line \d+: .+|Error: unable to open database\b.*)$`)
	// sqliteErrorRE matches its errors of older versions, read only in a
	// line that runs it.
	sqliteErrorRE = prefilter.MustCompile(`(?m)^Error: (?:near line \d+: )?(?:near "[^"\n]*": syntax error|no such (?:table|column|function): .+|.+ constraint failed.*|database is locked|file is not a database)$`)
)

// matchSQLite recognizes the sqlite3 shell's errors: SQL it could not
// prepare or run, a database it could not open (a missing file), in its
// own wording, even when a script ran it; "Error: near …: syntax error"
// and the like of older versions only in a line that runs it.
func matchSQLite(out string, cmd *shell.Command, _ bool) *Diagnosis {
	m := sqliteOwnRE.FindString(out)
	if m == "" && cmd != nil && strings.Contains(cmd.Line, "sqlite3") {
		m = sqliteErrorRE.FindString(out)
	}
	if m == "" {
		return nil
	}
	cat := NonzeroExit
	if strings.HasPrefix(m, "Error: unable to open database") {
		cat = MissingFile
	}
	return &Diagnosis{Category: cat, Message: termtext.Cut(strings.TrimSpace(m), 200)}
}

// matchSSH recognizes the ssh client failing before the command it was to
// run on the host ran, in a line that went through ssh: its own errors,
// which are no data of the remote command (`ssh host cat x` that could not
// connect), unless the line's clean exit status says ssh connected.
func matchSSH(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
	if cmd == nil || !slices.ContainsFunc(cmd.Wrappers, func(w string) bool { return w == "ssh" || strings.HasPrefix(w, "ssh ") }) {
		return nil
	}
	if claimsSuccess && !cmd.Masked {
		return nil // ssh exits 255 on its own errors: these lines are the host's data
	}
	if m := sshConnectRE.FindString(out); m != "" {
		return &Diagnosis{Category: Connection, Message: termtext.Cut(strings.TrimSpace(m), 200)}
	}
	if m := sshDeniedRE.FindString(out); m != "" {
		return &Diagnosis{Category: Permission, Message: termtext.Cut(strings.TrimSpace(m), 200)}
	}
	return nil
}

// matchRules returns the diagnosis of the first rule that use allows and
// that matches out, with the rule as its evidence, or nil.
func matchRules(out string, cmd *shell.Command, claimsSuccess bool, use func(*rule) bool) *Diagnosis {
	for i := range rules {
		r := &rules[i]
		if !use(r) {
			continue
		}
		d := r.match(out, cmd, claimsSuccess)
		if d == nil {
			continue
		}
		name := r.name
		if d.Parser != "" {
			name = d.Parser // the go command's flag errors are Go's flag package's
		}
		d.Evidence = name + " signature"
		if claimsSuccess {
			if cmd.Masked {
				d.Evidence += ", " + cmd.HiddenStatus()
			} else {
				d.Evidence += " despite exit status 0"
			}
		}
		return d
	}
	return nil
}

// matchRE returns a rule that takes the first line the first expression
// that matches finds, and uses it as the message: earlier expressions name
// the failure better.
func matchRE(cat Category, exprs ...string) func(string, *shell.Command, bool) *Diagnosis {
	res := make([]*prefilter.Regexp, len(exprs))
	for i, e := range exprs {
		res[i] = prefilter.MustCompile(e)
	}
	return func(out string, _ *shell.Command, _ bool) *Diagnosis {
		for _, re := range res {
			if m := re.FindString(out); m != "" {
				return &Diagnosis{Category: cat, Message: termtext.Cut(strings.TrimSpace(m), 200)}
			}
		}
		return nil
	}
}

var notFoundREs = []*prefilter.Regexp{
	prefilter.MustCompile(`(?m)^(?:.*: )?(?:line \d+: )?([^\s:]+): command not found\s*$`),
	prefilter.MustCompile(`(?m)^(?:\S+: )?command not found: (\S+)\s*$`),
	prefilter.MustCompile(`(?m)^\S*sh: \d+: ([^\s:]+): not found\s*$`),
	prefilter.MustCompile(`(?m)^(?:\S*/)?(?:ash|sh|busybox|dash): ([^\s:]+): not found\s*$`),
	prefilter.MustCompile(`(?m)^'([^']+)' is not recognized as an internal or external command`),
}

// spawnNotFoundRE matches the whole output of a command the TypeScript
// Codex CLI could not start: Node's spawn found no program of that name (a
// shell builtin run without a shell, or an argv of one word holding the
// whole command). A program's own uncaught spawn error comes with a stack,
// and is another failure (its child is missing).
var spawnNotFoundRE = regexp.MustCompile(`\AError: spawn (.+) ENOENT\z`)

// wrapperNotFoundRE finds a wrapper that could not run the program it was
// given: "timeout: failed to run command ‘RUST_LOG=info’: No such file or
// directory", "env: ‘pyhton’: No such file or directory".
var wrapperNotFoundRE = prefilter.MustCompile(`(?m)^(timeout|nohup|env|nice|xargs|stdbuf|sudo|doas|time): (?:failed to run command |unable to execute )?[‘'"]?([^’'"\s]+)[’'"]?: No such file or directory\s*$`)

// matchNotFound recognizes a shell that could not find the program. It
// takes only the command's own program, so that a script printing "x:
// command not found" about something else is not misread, unless the exit
// status 127 says so; or a wrapper of the line that could not run what it
// was given.
func matchNotFound(out string, cmd *shell.Command, _ bool) *Diagnosis {
	if m := wrapperNotFoundRE.FindStringSubmatch(out); m != nil && slices.Contains(strings.Fields(cmd.Line), m[1]) {
		return &Diagnosis{Category: CommandNotFound, Message: strings.TrimSpace(m[0]), Program: m[2]}
	}
	if m := spawnNotFoundRE.FindStringSubmatch(strings.TrimSpace(out)); m != nil &&
		(m[1] == cmd.Program() || path.Base(m[1]) == cmd.Program() || m[1] == firstWord(cmd.Line)) {
		return &Diagnosis{Category: CommandNotFound, Message: m[0], Program: m[1]}
	}
	for _, re := range notFoundREs {
		for _, m := range re.FindAllStringSubmatch(out, -1) {
			prog := m[1]
			d := &Diagnosis{Category: CommandNotFound, Message: strings.TrimSpace(m[0]), Program: prog}
			if prog == cmd.Program() || prog == firstWord(cmd.Line) || slices.Contains(cmd.Filters, prog) ||
				slices.ContainsFunc(cmd.Others, func(a []string) bool { return len(a) > 0 && a[0] == prog }) {
				return d
			}
		}
	}
	return nil
}

// compilerNoteRE matches a compiler's warning or note at a place in a
// file, which says nothing of whether it built.
var compilerNoteRE = regexp.MustCompile(`(?m)^\S+:\d+(?::\d+)?: (?:warning|note|remark)\b.*\n?`)

// withoutDiagnostics makes match read out without compilers' warnings and
// notes.
func withoutDiagnostics(match func(string, *shell.Command, bool) *Diagnosis) func(string, *shell.Command, bool) *Diagnosis {
	return func(out string, cmd *shell.Command, claimsSuccess bool) *Diagnosis {
		if strings.Contains(out, ": warning") || strings.Contains(out, ": note") || strings.Contains(out, ": remark") {
			out = compilerNoteRE.ReplaceAllString(out, "")
		}
		return match(out, cmd, claimsSuccess)
	}
}
