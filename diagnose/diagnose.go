package diagnose

import (
	"fmt"
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
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

// A Diagnosis says why a call failed. Its JSON names are those of the
// output contract's errors object, which holds it.
type Diagnosis struct {
	Category Category `json:"category"`
	Message  string   `json:"message"` // the one-line error
	// Evidence says what showed the failure: the agent's error flag, the
	// exit code, a signature in the output.
	Evidence string `json:"evidence"`

	// Details of CLI usage errors.
	Parser      string   `json:"parser,omitzero"`   // the CLI parser family: "argparse", "click", …
	BadFlags    []string `json:"bad_flags"`         // flags the program rejected
	ValidFlags  []string `json:"valid_flags"`       // flags its usage text offers
	Suggestions []string `json:"suggestions"`       // what the parser itself suggested
	Choices     []string `json:"choices,omitempty"` // the values an option accepts, when the error lists them
	Missing     []string `json:"missing,omitempty"` // required arguments that were not given

	Exception *ExceptionInfo `json:"exception,omitempty"` // details of an exception, when there was one
	Program   string         `json:"program,omitzero"`    // the program not found, for command-not-found
	Module    string         `json:"module,omitzero"`     // the module or package not found: ModuleNotFoundError, ERR_MODULE_NOT_FOUND

	// culprit is the program of the line that reported the error, when
	// it is not the line's command of interest.
	culprit string
}

// MapStrings replaces each text of d with f of it, as masking secrets
// does.
func (d *Diagnosis) MapStrings(f func(string) string) {
	d.Category = Category(f(string(d.Category)))
	for _, p := range []*string{&d.Message, &d.Evidence, &d.Parser, &d.Program, &d.Module, &d.culprit} {
		*p = f(*p)
	}
	for _, list := range [][]string{d.BadFlags, d.ValidFlags, d.Suggestions, d.Choices, d.Missing} {
		for i, s := range list {
			list[i] = f(s)
		}
	}
	if e := d.Exception; e != nil {
		e.Type, e.Message, e.File, e.Func, e.Innermost = f(e.Type), f(e.Message), f(e.File), f(e.Func), f(e.Innermost)
	}
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

// Call says whether call c failed and why; it returns nil for a call that
// succeeded. cmd is c's parsed command, nil for tools other than the
// shell. It is safe for concurrent use.
func Call(c *parser.Call, cmd *shell.Command) *Diagnosis {
	out := stripNoise(termtext.StripEscapes(c.Output))
	switch c.Status {
	case parser.StatusRunning, parser.StatusNoResult:
		return nil // not finished when the transcript ends: no outcome to judge
	case parser.StatusRejected, parser.StatusCancelled:
		return &Diagnosis{Category: Rejected, Message: toolErrorMessage(out), Evidence: string(c.Status)}
	}
	if c.Status == parser.StatusInterrupted {
		d := &Diagnosis{Category: Rejected, Message: "interrupted before it finished", Evidence: "interrupted"}
		switch {
		case timedOut(c.Note): // the agent's own word: Codex CLI's timeout killed it
			d.Category, d.Message = Timeout, c.Note
		case timedOut(out):
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
		if d := toolFailure(c, out); d != nil || !RunsCode(c) {
			return d
		}
		if line := shellEscape(c.Args["code"]); line != "" {
			// `!pip install x` or `%pip install x`: the shell command,
			// whose status the cell does not record.
			sc := *c
			sc.Kind, sc.Command, sc.Unrecorded = parser.KindShell, line, true
			return Call(&sc, shell.Parse(line))
		}
		return cellFailure(out)
	}

	recorded := recordEvidence(c)
	if recorded != "" && benignExit(c, cmd, out) {
		return nil
	}
	if recorded == "" && c.Unrecorded {
		cmd = cmd.Unrecorded()
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
	data := cmd.IsViewer() || cmd.AsksHelp()
	if recorded == "" {
		any := cmd.Masked && !cmd.Ignored
		unrecorded := cmd.IsUnrecorded() && !data
		d := matchRules(out, cmd, true, func(r *rule) bool {
			switch {
			case served && r.category == Timeout:
				return false
			case unrecorded:
				return r.strong || verdictRules[r.name]
			}
			return data && shellRules[r.name] || !data && (r.strong || any)
		})
		if d == nil && unrecorded && !runsOwnCode(cmd) {
			// With no status at all, a program's words of failure count
			// where it ends, not in what it printed on the way (a test
			// named after the permission it checks, pip retrying a
			// download before it installed).
			d = matchRules(lastLines(out, 4), cmd, true, func(r *rule) bool { return !r.strong })
		}
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

// verdictRules are the weaker rules that read a tool's verdict on what it
// ran wherever the output gives it: test runners' summaries, compilers'
// errors and build tools', pre-commit's hooks, the sqlite3 shell, and the
// shell's own syntax errors.
var verdictRules = map[string]bool{
	"test-failure": true, "shell-syntax": true, "build-error": true, "pre-commit": true, "sqlite": true, "make": true, "maven": true,
	"gradle": true, "msbuild": true, "eslint": true, "credo": true, "dialyzer": true, "elixir": true,
}

// runsOwnCode reports whether cmd runs a script or snippet, whose printed
// errors may be what it was written to show (a bug's reproduction).
func runsOwnCode(cmd *shell.Command) bool {
	switch path.Ext(cmd.Target) {
	case ".py", ".js", ".mjs", ".cjs", ".ts", ".rb", ".pl", ".php", ".go":
		return true
	}
	if cmd.Target == "go run" || shell.RunsSnippet(cmd.Target) {
		return true
	}
	// node -e, ruby -e, perl -e, php -r: a snippet of another language.
	if len(cmd.Argv) > 1 && snippetRunners[path.Base(cmd.Argv[0])] {
		return slices.ContainsFunc(cmd.Argv[1:], func(a string) bool {
			return a == "-e" || a == "--eval" || a == "-p" || a == "-r"
		})
	}
	return false
}

var snippetRunners = map[string]bool{"node": true, "deno": true, "bun": true, "ruby": true, "perl": true, "php": true}

// lastLines returns the last n lines of s that are neither blank nor
// warnings, which say nothing of how a program ended.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, " \t\r\n"), "\n")
	var kept []string
	i := len(lines) - 1
	for ; i >= 0 && len(kept) < n; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" && !warningRE.MatchString(l) {
			kept = append(kept, lines[i])
		}
	}
	// npm ends with a block of "npm ERR!" lines, its cause at the top and
	// the log's path at the bottom: the block is its last words.
	if tag := npmErrRE.FindString(lines[len(lines)-1]); tag != "" {
		for ; i >= 0 && strings.HasPrefix(lines[i], tag); i-- {
			kept = append(kept, lines[i])
		}
	}
	slices.Reverse(kept)
	return strings.Join(kept, "\n")
}

var (
	warningRE = regexp.MustCompile(`^(?i:warning)\b`)
	npmErrRE  = regexp.MustCompile(`^npm (?:ERR!|error)`)
)

// codeTools are the tools that run the code they are given in a Python
// kernel: OpenHands' IPython cells, and the like of other harnesses.
var codeTools = map[string]bool{
	"run_ipython": true, "execute_ipython_cell": true, "ipython": true, "jupyter": true,
	"python": true, "python_interpreter": true, "run_python": true, "execute_python": true,
}

// RunsCode reports whether c ran code in a Python kernel (see codeTools).
func RunsCode(c *parser.Call) bool { return codeTools[strings.ToLower(c.Tool)] }

// cellPython stands for the interpreter that ran a cell, whose status the
// transcript does not record.
var cellPython = shell.Parse("python").Unrecorded()

// shellEscape returns the shell command of a cell that runs only that:
// `!ls data` or `%pip install requests` (IPython's pip magic runs pip); ""
// for a cell of code.
func shellEscape(code string) string {
	line := ""
	for l := range strings.Lines(code) {
		switch l = strings.TrimSpace(l); {
		case l == "" || l[0] == '#':
		case line != "":
			return ""
		case l[0] == '!' || strings.HasPrefix(l, "%pip ") || strings.HasPrefix(l, "%conda "):
			line = strings.TrimLeft(l, "!%")
		default:
			return ""
		}
	}
	return line
}

// cellFailure finds the failure of a code cell the tool ran without an
// error flag: an uncaught exception, or another unmistakable signature
// (`!pip …` not found). The output is the only evidence; what the code
// printed otherwise is its own.
func cellFailure(out string) *Diagnosis {
	return matchRules(out, cellPython, true, func(r *rule) bool { return r.strong })
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
func benignExit(c *parser.Call, cmd *shell.Command, out string) bool {
	// Claude Code gives a failed call that printed nothing the result
	// "Error".
	empty := strings.TrimSpace(out) == "" || c.IsError && strings.TrimSpace(out) == "Error"
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
	if slices.ContainsFunc(cmd.Ends, func(t string) bool { return t == "pip show" || t == "pip3 show" }) && notInstalledRE.MatchString(strings.TrimSpace(out)) {
		return true // asked whether a package is installed: no
	}
	// A search that leads the line answers whatever it printed (grep -c
	// prints 0); one that filters another command's output answers when
	// nothing came through: errors of the command before it are not its.
	// One that ends another statement than the command's (`curl …; pip
	// list | grep x`) follows what the statements before it printed: it
	// answers unless the command's own status may be the line's (`… &&
	// ls | grep x`), or the output holds an error line or an unmistakable
	// signature.
	later := func(t string) bool {
		return t != cmd.Target && !slices.Contains(cmd.Filters, t) && len(cmd.Others) > 0 &&
			!slices.Contains(cmd.Ends, cmd.Target) && !failureWordRE.MatchString(out) &&
			matchRules(out, cmd, false, func(r *rule) bool { return r.strong || !cmd.IsViewer() && !cmd.AsksHelp() }) == nil
	}
	return slices.ContainsFunc(cmd.Ends, func(t string) bool { return answers(t, empty || t == cmd.Target || later(t)) })
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
func expectsFailure(cmd *shell.Command) bool {
	return silentlyRE.MatchString(cmd.Line)
}

var silentlyRE = prefilter.MustCompile(`(?i)-(?:ErrorAction|ea) +(?:SilentlyContinue|Ignore|0)\b`)

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

// notInstalledRE matches all that pip show prints of packages that are not
// installed.
var notInstalledRE = regexp.MustCompile(`^WARNING: Package\(s\) not found: [^\n]*$`)

// killedRE matches the shell's report of a child killed by SIGKILL: a bare
// "Killed", or bash's "line 1: 48213 Killed   cmd".
var killedRE = regexp.MustCompile(`^(?:.*: line \d+: \d+ )?Killed\b`)

var timedOutRE = prefilter.MustCompile(`(?i)timed out|timeout`)

func timedOut(out string) bool { return timedOutRE.MatchString(out) }
