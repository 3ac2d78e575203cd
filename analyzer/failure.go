package analyzer

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/parser"
)

// A Category names a kind of failure.
type Category string

// The failure categories. Rejected calls are reported but are not failures
// to fix: the user or a sandbox refused them.
const (
	CLIUsage        Category = "cli-usage"
	CommandNotFound Category = "command-not-found"
	MissingFile     Category = "missing-file"
	Exception       Category = "exception"
	BuildError      Category = "build-error"
	TestFailure     Category = "test-failure"
	Timeout         Category = "timeout"
	Connection      Category = "connection"
	Permission      Category = "permission"
	OutOfMemory     Category = "out-of-memory"
	AgentToolError  Category = "agent-tool-error"
	ShellSyntax     Category = "syntax"
	Rejected        Category = "rejected"
	NonzeroExit     Category = "nonzero-exit"
)

// Categories lists every category, in the order reports show them.
var Categories = []Category{
	CLIUsage, CommandNotFound, MissingFile, Exception, BuildError, TestFailure,
	Timeout, Connection, Permission, OutOfMemory, AgentToolError, ShellSyntax,
	NonzeroExit, Rejected,
}

// A Diagnosis says why a call failed.
type Diagnosis struct {
	Category Category
	Message  string // the one-line error
	// Evidence says what showed the failure: the agent's error flag, the
	// exit code, a signature in the output.
	Evidence string

	// Details of CLI usage errors.
	Parser      string   // the CLI parser family: "argparse", "click", …
	BadFlags    []string // flags the program rejected
	ValidFlags  []string // flags its usage text offers
	Suggestions []string // what the parser itself suggested
	Choices     []string // the values an option accepts, when the error lists them
	Missing     []string // required arguments that were not given

	Exception *ExceptionInfo // details of an exception, when there was one
	Program   string         // the program not found, for command-not-found
	Module    string         // the module or package not found: ModuleNotFoundError, ERR_MODULE_NOT_FOUND

	// culprit is the program of the line that reported the error, when
	// it is not the line's command of interest.
	culprit string
}

// ExceptionInfo describes the exception a failed call raised.
type ExceptionInfo struct {
	Type    string `json:"type"`
	Message string `json:"message"`
	// The innermost frame of the traceback that is in the project rather
	// than in an installed package; or the innermost of all.
	File string `json:"file,omitzero"`
	Line int    `json:"line,omitzero"`
	Func string `json:"func,omitzero"`
	// Innermost is "file:line" of the innermost frame when it is not the
	// project's: the error was raised inside an installed package.
	Innermost string `json:"innermost,omitzero"`
}

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
	match func(out string, cmd *Command, claimsSuccess bool) *Diagnosis
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
		{name: "command-not-found", doc: "a shell that could not find the program", category: CommandNotFound, strong: true, match: matchNotFound},
		{name: "agent-shell", doc: "the agent's own shell failing before the command ran (Claude Code on Windows: `Command failed: cygpath`)", category: AgentToolError, match: matchRE(AgentToolError,
			`(?m)^Command failed: cygpath .*$`)},
		{name: "agent-timeout", doc: "the agent's own timeout markers: Claude Code's, opencode's, Gemini CLI's", category: Timeout, strong: true, match: matchRE(Timeout,
			`(?m)^Command timed out after \d+(?:\.\d+)? ?(?:ms|s|m|minutes?|seconds?)\b(?: \d+(?:\.\d+)?s\b)?`,
			`(?m)^\(Command timed out after \d+ ms\)`,
			`(?m)^(?:bash|shell) tool terminated command after exceeding timeout \d+ ms\.?`,
			`(?m)^Command was automatically cancelled because it exceeded the timeout of .*? without output\.`)},
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
		{name: "build-error", doc: "compiler, linker and type-checker errors with a file and line", category: BuildError, match: matchRE(BuildError,
			`(?m)^\S+\.\w+:\d+:\d+: (?:fatal )?error: .*$`,
			`(?m)^(?:error\[E\d+\]: .*|\S+\.(?:go|rs|c|cc|cpp|cxx|h|hpp|java|kt|swift|ts|tsx|scala|cs):\d+:\d+: .*|\S+\.\w+:\d+: error: .*|.*error TS\d+: .*)$`,
			"(?m)^.*: undefined reference to `.*$",
			// cargo: rustc's errors whose place is on the next line, its
			// summary, and dependencies it could not resolve.
			`(?m)^error(?:\[E\d+\])?: .*\n\s+--> \S+:\d+:\d+\s*$`,
			"(?m)^error: could not compile `.*$",
			`(?m)^error: (?:no matching package named|failed to select a version for|failed to load manifest|failed to parse manifest|failed to get `+"`"+`).*$`)},
		{name: "out-of-memory", doc: "memory exhausted, on the GPU or the host", category: OutOfMemory, match: matchRE(OutOfMemory,
			`(?mi)^.*(?:out of memory|OutOfMemoryError|Cannot allocate memory|std::bad_alloc|MemoryError|JavaScript heap out of memory).*$`)},
		{name: "disk-full", doc: "no space left on the disk, or over quota; filed as out-of-memory: a resource ran out", category: OutOfMemory, match: matchRE(OutOfMemory,
			`(?mi)^.*(?:No space left on device|Disk quota exceeded|ENOSPC).*$`)},
		{name: "timeout", doc: "commands that ran out of time, by their own word or the agent's", category: Timeout, match: matchRE(Timeout,
			`(?mi)^.*(?:timed out|timeout (?:period )?expired|deadline exceeded|terminated command after exceeding timeout).*$`)},
		{name: "dns", doc: "DNS servers that refused or did not answer, as nslookup and dig report them", category: Connection, strong: true, match: matchRE(Connection,
			`(?m)^\*{2,3} .*can't find \S+: (?:Query refused|REFUSED|Server failed|SERVFAIL|No response from server|Timed out)\s*$`,
			`(?m)^;; (?:connection timed out; no servers could be reached|communications error to .*)$`)},
		{name: "connection", doc: "connections refused or reset, names not resolved, networks unreachable", category: Connection, match: matchRE(Connection,
			`(?m)^The connection to the server .* was refused.*$`,
			`(?mi)^.*(?:Cannot connect to the Docker daemon|connection refused|ECONNREFUSED|connection reset|ECONNRESET|could not resolve host|name or service not known|temporary failure in name resolution|getaddrinfo ENOTFOUND|Failed to connect to|no route to host|network is unreachable).*$`)},
		{name: "permission", doc: "permission denied, by the file system or sudo", category: Permission, match: matchRE(Permission,
			`(?mi)^.*(?:permission denied|operation not permitted|access is denied|sudo: a (?:password|terminal) is required).*$`,
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

// Texts with which agents report that the user or a sandbox refused a call.
var rejectionPrefixes = []string{
	"The user doesn't want to proceed with this tool use",
	"The user doesn't want to take this action",
	"The user rejected permission to use this specific tool call",
	"[Request interrupted by user",
	"Permission to use ",
	"This command requires approval",
	"This Bash command contains multiple operations. The following part requires approval",
	"Claude requested permissions to",
	"[Operation Cancelled]",
	"The user rejected permission",
}

// blockedRE matches Claude Code refusing to work outside the session's
// directories: "cd to '…' was blocked", "mkdir in '…' was blocked".
var blockedRE = mustPre(`^\w+ (?:to|in) '[^']*' was blocked\. For security`)

// refused reports whether out is an agent's word that the user or a sandbox
// refused the call.
func refused(out string) bool {
	out = strings.TrimSpace(stripToolError(out))
	for _, p := range rejectionPrefixes {
		if strings.HasPrefix(out, p) {
			return true
		}
	}
	return blockedRE.MatchString(out)
}

// Programs whose output is data: an error message in what they print is
// not theirs.
var viewers = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true,
	"egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true, "ack": true,
	"sed": true, "awk": true, "jq": true, "yq": true, "find": true, "ls": true,
	"echo": true, "printf": true, "diff": true, "git log": true, "git show": true,
	"git diff": true, "git grep": true, "journalctl": true, "docker logs": true,
	"kubectl logs": true, "wc": true, "sort": true, "uniq": true, "strings": true,
	"xxd": true, "od": true, "tree": true, "nl": true, "bat": true, "column": true,
	"dmesg": true,
}

// Diagnose says whether call c failed and why; it returns nil for a call
// that succeeded. cmd is c's parsed command, nil for tools other than the
// shell.
func Diagnose(c *parser.Call, cmd *Command) *Diagnosis {
	out := stripNoise(stripEscapes(c.Output))
	switch c.Status {
	case parser.StatusRunning, parser.StatusNoResult:
		return nil // not finished when the transcript ends: no outcome to judge
	case parser.StatusRejected, parser.StatusCancelled:
		return &Diagnosis{Category: Rejected, Message: toolErrorMessage(out), Evidence: string(c.Status)}
	}
	if c.Status == parser.StatusInterrupted {
		d := &Diagnosis{Category: Rejected, Message: "interrupted before it finished", Evidence: "interrupted"}
		if timedOut(out) {
			d.Category, d.Message = Timeout, "timed out"
		}
		return d
	}
	if refused(out) {
		return &Diagnosis{Category: Rejected, Message: firstLine(stripToolError(out)), Evidence: "refused"}
	}
	if c.Kind != parser.KindShell || cmd == nil || strings.TrimSpace(c.Command) == "" {
		// A shell call without a command is the agent's error: its
		// arguments did not parse.
		return toolFailure(c, out)
	}

	recorded := recordEvidence(c)
	if recorded != "" && benignExit(c, cmd, out) {
		return nil
	}
	// A server that printed its ready line before the agent's timeout
	// stopped it did what it was asked (background.go): its record's
	// error is the timeout's, and only another signature fails it.
	served := servedUntilTimeout(out, cmd)
	if served {
		recorded = ""
	}
	// With the exit status hidden by a filter, the output is the only
	// evidence, and every rule may read it; with a clean exit, or a failure
	// the line chose to ignore (`|| true`), only unmistakable signatures
	// count. The output of a viewer is data: only the shell not finding
	// the viewer itself says it failed.
	data := viewers[cmd.Target] || viewers[cmd.Program()] || asksHelp(cmd)
	if recorded == "" {
		any := cmd.Masked && !cmd.Ignored
		d := matchRules(out, cmd, true, func(r *rule) bool {
			if served && r.category == Timeout {
				return false
			}
			return data && shellRules[r.name] || !data && (r.strong || any)
		})
		switch {
		case d != nil && served:
			d.Evidence = strings.TrimSuffix(d.Evidence, " despite exit status 0") + " after the server's ready line, though the agent's timeout stopped it"
		case d == nil && !served:
			d = hiddenFailure(out, cmd)
			if d != nil && d.Category == NonzeroExit && movedToBackground(c) != "" {
				d.Category = Timeout // it hung, then its fallback ran
				d.Evidence += "; " + movedToBackground(c)
			}
		}
		return d
	}
	if d := matchRules(out, cmd, false, func(*rule) bool { return true }); d != nil {
		d.Evidence = recorded + "; " + d.Evidence
		return d
	}
	d := &Diagnosis{Category: NonzeroExit, Message: failureLine(out), Evidence: recorded}
	if d.Message == "" {
		d.Message = recorded
	}
	switch {
	case c.Exit != nil && (*c.Exit == 124 || *c.Exit == 137 || *c.Exit == 143) && (timedOut(out) || strings.Contains(cmd.Line, "timeout ")):
		d.Category = Timeout
		d.Message = fmt.Sprintf("killed by timeout (exit code %d)", *c.Exit)
	case movedToBackground(c) != "":
		// It ran past what the agent waited for and failed later with
		// nothing in its output to name the failure: it hung.
		d.Category = Timeout
		d.Evidence += "; " + movedToBackground(c)
	case c.Exit != nil && networkExit(cmd.Status(), *c.Exit) != "":
		// Quiet downloads (wget -q, curl -s) say why only by their
		// status.
		d.Category = Connection
		d.Evidence += "; " + networkExit(cmd.Status(), *c.Exit)
		if d.Message == recorded {
			d.Message = networkExit(cmd.Status(), *c.Exit)
		}
	case c.Exit != nil && *c.Exit == 137 && killedRE.MatchString(lastLine(out)):
		// SIGKILL with the shell's "Killed": most often the kernel's
		// out-of-memory killer.
		d.Category = OutOfMemory
		d.Evidence += "; out-of-memory signature"
		if d.Message == "Killed" {
			d.Message = "killed (exit code 137), most likely out of memory"
		}
	}
	return d
}

// shellRules are the rules whose signatures come from the shell, not from
// the command: they read a viewer's output too.
var shellRules = map[string]bool{"command-not-found": true, "powershell-syntax": true, "unexpanded": true}

// matchRules returns the diagnosis of the first rule that use allows and
// that matches out, with the rule as its evidence, or nil.
func matchRules(out string, cmd *Command, claimsSuccess bool, use func(*rule) bool) *Diagnosis {
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
				d.Evidence += ", exit status hidden by " + maskedBy(cmd)
			} else {
				d.Evidence += " despite exit status 0"
			}
		}
		return d
	}
	return nil
}

// networkExit says what the exit status of wget or curl means when it is
// a network failure, or "".
func networkExit(prog string, exit int) string {
	switch {
	case prog == "wget" && exit == 4:
		return "wget exit status 4: network failure"
	case prog == "curl" && (exit == 6 || exit == 7 || exit == 28 || exit == 35 || exit == 52 || exit == 56):
		return fmt.Sprintf("curl exit status %d: %s", exit, curlExits[exit])
	}
	return ""
}

// curlExits names curl's exit statuses that are network failures.
var curlExits = map[int]string{
	6: "could not resolve host", 7: "failed to connect", 28: "operation timed out",
	35: "TLS handshake failed", 52: "empty reply from server", 56: "failure receiving network data",
}

// recordEvidence says how the call's own record marks it failed, or "".
func recordEvidence(c *parser.Call) string {
	switch {
	case c.Exit != nil && *c.Exit != 0:
		return fmt.Sprintf("exit code %d", *c.Exit)
	case c.IsError:
		return "error flag"
	}
	return ""
}

// benignExit reports an exit status that is an answer, not a failure: grep
// finding nothing (its errors exit 2), diff finding differences, test
// finding false. The answer is that of a command whose failure can be the
// line's: the last stage of `ls | grep env`, the grep of `ssh host 'ps |
// grep x'` or of `grep -q x f && echo found`, not the killall of
// `killall app; cp app ~/bin`. out is the call's output, noise removed.
func benignExit(c *parser.Call, cmd *Command, out string) bool {
	empty := strings.TrimSpace(out) == ""
	if c.Exit == nil {
		if c.Note != "" {
			return true // the agent read the exit status as fine
		}
		// A console copy marks a failure but gives no exit status: take
		// it as 1 where that is a probe's answer, or a search's that
		// printed nothing.
		return slices.ContainsFunc(cmd.Ends, func(t string) bool { return searches[t] && empty || probes[t] })
	}
	if *c.Exit != 1 {
		return false
	}
	if expectsFailure(cmd) && !psAtLineRE.MatchString(out) {
		return true // the line discarded the errors it expected, and none other came
	}
	// A search that leads the line answers whatever it printed (grep -c
	// prints 0); one that filters another command's output answers when
	// nothing came through: errors of the command before it are not its.
	return slices.ContainsFunc(cmd.Ends, func(t string) bool { return answers(t, empty || t == cmd.Target) })
}

// answers reports whether target t exiting 1 gives an answer: no line or
// process matched, no program installed, the files differ, the test is
// false. quiet says the call printed nothing that t's answer excludes.
func answers(t string, quiet bool) bool {
	switch {
	case searches[t] || t == "cmp":
		return quiet
	case probes[t]:
		return true
	}
	switch t {
	case "diff", "test", "[", "[[", "git diff":
		return true
	}
	return false
}

// expectsFailure reports whether the line says it expects its command may
// fail and discards the error: PowerShell's -ErrorAction SilentlyContinue.
func expectsFailure(cmd *Command) bool {
	return silentlyRE.MatchString(cmd.Line)
}

var silentlyRE = mustPre(`(?i)-(?:ErrorAction|ea) +(?:SilentlyContinue|Ignore|0)\b`)

var (
	// searches exit 1 when nothing matched.
	searches = map[string]bool{
		"grep": true, "egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true,
		"ack": true, "git grep": true, "pgrep": true, "pkill": true, "killall": true,
		"findstr": true, "Select-String": true, "sls": true,
	}
	// probes ask whether a program is installed; "no" is an answer.
	probes = map[string]bool{"which": true, "type": true, "whereis": true, "command": true}
)

func maskedBy(cmd *Command) string {
	if cmd.hiddenBy != "" {
		return cmd.hiddenBy
	}
	return "|| …"
}

// killedRE matches the shell's report of a child killed by SIGKILL: a bare
// "Killed", or bash's "line 1: 48213 Killed   cmd".
var killedRE = regexp.MustCompile(`^(?:.*: line \d+: \d+ )?Killed\b`)

var timedOutRE = mustPre(`(?i)timed out|timeout`)

func timedOut(out string) bool { return timedOutRE.MatchString(out) }

// matchRE returns a rule that takes the first line the first expression
// that matches finds, and uses it as the message: earlier expressions name
// the failure better.
func matchRE(cat Category, exprs ...string) func(string, *Command, bool) *Diagnosis {
	res := make([]*pre, len(exprs))
	for i, e := range exprs {
		res[i] = mustPre(e)
	}
	return func(out string, _ *Command, _ bool) *Diagnosis {
		for _, re := range res {
			if m := re.FindString(out); m != "" {
				return &Diagnosis{Category: cat, Message: cut(strings.TrimSpace(m), 200)}
			}
		}
		return nil
	}
}

var notFoundREs = []*pre{
	mustPre(`(?m)^(?:.*: )?(?:line \d+: )?([^\s:]+): command not found\s*$`),
	mustPre(`(?m)^(?:\S+: )?command not found: (\S+)\s*$`),
	mustPre(`(?m)^\S*sh: \d+: ([^\s:]+): not found\s*$`),
	mustPre(`(?m)^(?:\S*/)?(?:ash|sh|busybox|dash): ([^\s:]+): not found\s*$`),
	mustPre(`(?m)^'([^']+)' is not recognized as an internal or external command`),
}

// wrapperNotFoundRE finds a wrapper that could not run the program it was
// given: "timeout: failed to run command ‘RUST_LOG=info’: No such file or
// directory", "env: ‘pyhton’: No such file or directory".
var wrapperNotFoundRE = mustPre(`(?m)^(timeout|nohup|env|nice|xargs|stdbuf|sudo|doas|time): (?:failed to run command |unable to execute )?[‘'"]?([^’'"\s]+)[’'"]?: No such file or directory\s*$`)

// matchNotFound recognizes a shell that could not find the program. It
// takes only the command's own program, so that a script printing "x:
// command not found" about something else is not misread, unless the exit
// status 127 says so; or a wrapper of the line that could not run what it
// was given.
func matchNotFound(out string, cmd *Command, _ bool) *Diagnosis {
	if m := wrapperNotFoundRE.FindStringSubmatch(out); m != nil && slices.Contains(strings.Fields(cmd.Line), m[1]) {
		return &Diagnosis{Category: CommandNotFound, Message: strings.TrimSpace(m[0]), Program: m[2]}
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

// toolErrors are the answers of agent tools that report a failure without
// their error flag: Claude Code's WebFetch when the page and the prompt
// do not fit the model that reads them.
var toolErrors = []string{"Prompt is too long"}

// toolCategoryRE sends the errors of the agent's own tools that say what
// went wrong to the category that says it: a file the tool could not
// open, a page the server refused.
var toolCategories = []struct {
	re  *pre
	cat Category
}{
	{mustPre(`(?i)^(?:EACCES|EPERM)\b|permission denied|operation not permitted|access is denied|status code 40[13]\b`), Permission},
	{mustPre(`(?i)^ENOENT\b|no such file or directory|^(?:Path|File|Directory) does not exist|status code 404\b`), MissingFile},
	{mustPre(`(?i)ECONNREFUSED|ENOTFOUND|ECONNRESET|getaddrinfo|connection refused|unable to connect`), Connection},
}

// toolFailure diagnoses a call of one of the agent's own tools (or a shell
// call whose arguments did not parse): its error flag and message say
// whether and why it failed.
func toolFailure(c *parser.Call, out string) *Diagnosis {
	msg := toolErrorMessage(out)
	if !c.IsError {
		if !slices.Contains(toolErrors, strings.TrimSpace(out)) {
			return nil
		}
		return &Diagnosis{Category: AgentToolError, Message: msg, Evidence: "the tool's answer says it failed"}
	}
	d := &Diagnosis{Category: AgentToolError, Message: msg, Evidence: "error flag"}
	for _, tc := range toolCategories {
		if tc.re.MatchString(msg) {
			d.Category = tc.cat
			break
		}
	}
	return d
}

// toolErrorMessage returns the first line of an agent tool's error, with
// the first issue Claude Code's InputValidationError lists on the next.
func toolErrorMessage(out string) string {
	out = stripToolError(out)
	m := firstLine(out)
	if m == "" {
		return "the tool reported an error"
	}
	if strings.HasSuffix(m, "following issue:") || strings.HasSuffix(m, "following issues:") {
		_, rest, _ := strings.Cut(out, "\n")
		if next := firstLine(rest); next != "" {
			m = cut(m+" "+next, 200)
		}
	}
	return m
}

// stripToolError removes the <tool_use_error> tags Claude Code wraps tool
// errors in, and a leading "Error: ".
func stripToolError(s string) string {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "<tool_use_error>")
	s = strings.TrimSuffix(s, "</tool_use_error>")
	return strings.TrimPrefix(strings.TrimSpace(s), "Error: ")
}

// firstLine returns the first non-blank line of s, cut to 200 runes.
func firstLine(s string) string {
	for l := range strings.Lines(s) {
		if l = strings.TrimSpace(l); l != "" {
			return cut(l, 200)
		}
	}
	return ""
}

var (
	// failureWordRE finds the words with which programs report failure.
	failureWordRE = regexp.MustCompile(`(?i)\b(?:error|fail(?:ed|ure)?|fatal|invalid|cannot|can't|unable to|denied|not found|refused|no such|exception|abort(?:ed)?)\b`)
	// elidedRE matches the marker a console copy of Claude Code puts
	// where it folded lines away.
	elidedRE = regexp.MustCompile(`^… \+\d+ lines? \(ctrl\+r to (?:see all|expand)\)$`)
)

// failureLine returns the line of out that best says why a command failed
// with no signature retrace knows: the last that reports a failure in so
// many words, or else the last of all; cut to 200 runes.
func failureLine(out string) string {
	last := ""
	lines := strings.Split(out, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" || elidedRE.MatchString(l) {
			continue
		}
		if failureWordRE.MatchString(l) {
			return cut(l, 200)
		}
		if last == "" {
			last = l
		}
	}
	return cut(last, 200)
}

// lastLine returns the last non-blank line of s, cut to 200 runes.
func lastLine(s string) string {
	s = strings.TrimRight(s, " \t\r\n")
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return cut(strings.TrimSpace(s), 200)
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

var numberRE = regexp.MustCompile(`^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$`)

func isNumber(s string) bool { return numberRE.MatchString(s) }

// stripEscapes removes terminal escape sequences, which programs print in
// colour even into pipes: colours, cursor moves, OSC titles and links.
func stripEscapes(s string) string {
	i := strings.IndexByte(s, '\x1b')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	last := 0
	for i >= 0 {
		next := i + 1
		if n := escapeLen(s[i:]); n > 0 {
			b.WriteString(s[last:i])
			last, next = i+n, i+n
		}
		i = strings.IndexByte(s[next:], '\x1b')
		if i >= 0 {
			i += next
		}
	}
	b.WriteString(s[last:])
	return b.String()
}

// escapeLen returns the length of the escape sequence s starts with, or 0
// when it starts with none. The sequences are those the expression
//
//	\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])
//
// matches: a CSI sequence, an OSC one to its terminator or to the next
// escape, or an escape and one byte.
func escapeLen(s string) int {
	if len(s) < 2 || s[0] != '\x1b' {
		return 0
	}
	switch c := s[1]; {
	case c == '[':
		i := 2
		for i < len(s) && '0' <= s[i] && s[i] <= '?' {
			i++
		}
		for i < len(s) && ' ' <= s[i] && s[i] <= '/' {
			i++
		}
		if i < len(s) && '@' <= s[i] && s[i] <= '~' {
			return i + 1
		}
		return 0
	case c == ']':
		i := 2
		for i < len(s) && s[i] != '\x07' && s[i] != '\x1b' {
			i++
		}
		switch {
		case i < len(s) && s[i] == '\x07':
			return i + 1
		case i+1 < len(s) && s[i] == '\x1b' && s[i+1] == '\\':
			return i + 2
		}
		return i
	case '@' <= c && c <= 'Z', '\\' <= c && c <= '_':
		return 2
	}
	return 0
}
