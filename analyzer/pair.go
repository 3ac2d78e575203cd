package analyzer

import (
	"net/url"
	"path"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/agnivade/levenshtein"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// A Chain is a failure, the failed retries of the same target that followed
// it, and the call that finally succeeded: the objects `retrace pairs`
// prints.
type Chain struct {
	Session SessionRef `json:"session"`
	Failure *Failure   `json:"failure"` // the first failure
	// Retries are the ids of the later failed tries of the same target.
	Retries []string `json:"retries"`
	Fix     *Fix     `json:"fix"` // nil when the chain is unresolved
	// Diff says how the fix's arguments differ from the last failure's; nil
	// unless the fix changed them.
	Diff *Diff `json:"diff"`
	// OfferedByUsage reports that the failures' own usage text or the
	// parser's suggestions already named every flag the fix introduced.
	OfferedByUsage bool `json:"offered_by_usage"`
	// Between lists every call after the first failure and before the fix
	// (or the last retry, when unresolved), with its role.
	Between    []Step   `json:"between"`
	Cost       Cost     `json:"cost"`
	Benchmarks []*Bench `json:"benchmarks"` // the numbers the fix printed
	// Workaround is the call that did the job of a program that was not
	// found, with another program, when no call of the program succeeded.
	Workaround *Step `json:"workaround,omitempty"`

	failures []*Failure
	between  []*parser.Call
	fix      *parser.Call
}

// Failures returns the failures of the chain in order, the first included.
func (ch *Chain) Failures() []*Failure { return ch.failures }

// BetweenCalls returns the calls of Between, in order.
func (ch *Chain) BetweenCalls() []*parser.Call { return ch.between }

// FixCall returns the call that fixed the chain, or nil.
func (ch *Chain) FixCall() *parser.Call { return ch.fix }

// A FixKind says what changed between a failure and its fix.
type FixKind string

// The kinds of fix.
const (
	FixArgv        FixKind = "argv"        // the command's arguments changed
	FixEdit        FixKind = "edit"        // a file was edited between identical runs
	FixEnvironment FixKind = "environment" // something was installed, exported or created
	FixWait        FixKind = "wait"        // the agent waited for something to be ready
	FixSame        FixKind = "same"        // the same call simply worked: a flaky failure
)

// A Fix is the call that succeeded after a failure.
type Fix struct {
	CallID  string  `json:"call_id"`
	Msg     int     `json:"msg"`
	Command string  `json:"command"`
	Kind    FixKind `json:"kind"`
	// Because names the calls between that explain an edit, environment
	// or wait fix; for a change on the fix's own shell line (`pip install
	// x && x`), the fix itself. A tool call, which has no line, is never
	// its own step.
	Because []string `json:"because,omitempty"`
	// Files are the files those calls edited; InTraceback reports whether
	// one of them is the file the failure's traceback points to, when it
	// points to one.
	Files       []string `json:"files,omitempty"`
	InTraceback *bool    `json:"in_traceback,omitempty"`
	// Changes are the commands that changed the environment or waited:
	// "pip install flask", "sleep 30"; for a change on the fix's own
	// line, its commands new to it, not the target, a look or an echo.
	Changes []string `json:"changes,omitempty"`
}

// A Role says what a call between a failure and its fix did.
type Role string

// The roles of calls between a failure and its fix.
const (
	RoleDiagnostic  Role = "diagnostic"  // read or searched: the script, --help, a log
	RoleEnvironment Role = "environment" // installed, exported, created, restarted
	RoleEdit        Role = "edit"        // changed a file
	RoleWait        Role = "wait"        // slept or polled until something was ready
	RoleRetry       Role = "retry"       // tried the failed target again, and failed
	RoleOther       Role = "other"       // anything else
)

// A Step is one call between a failure and its fix.
type Step struct {
	CallID  string `json:"call_id"`
	Role    Role   `json:"role"`
	Msg     int    `json:"msg"`
	Command string `json:"command"` // cut to 200 runes

	program string // see Program
}

// Program names what the step's call ran, as SessionReport.Program does.
func (st *Step) Program() string { return st.program }

// step returns call k as a step of the role given.
func (a *sessionAnalysis) step(k int, role Role) Step {
	c := a.s.Calls[k]
	return Step{CallID: c.ID, Role: role, Msg: c.Msg, Command: termtext.Cut(commandOf(c), 200), program: a.programs[k]}
}

// Cost measures what a chain cost from its first failure to its fix (or to
// its last retry, when unresolved).
type Cost struct {
	Messages int     `json:"messages"`
	Calls    int     `json:"calls"`
	Seconds  float64 `json:"seconds"`
	Tokens   int     `json:"tokens,omitzero"` // output tokens, where the format records them
}

// Lookahead bounds the search for a retry: a chain ends, unresolved, when
// Lookahead calls pass after its last attempt without one.
const Lookahead = 100

// pair builds the failure chains of the session. Each failure that is not
// already part of a chain starts one; the chain takes the next calls with
// the same target, in the same line of conversation (main or subagent) and
// on the same host, until one succeeds or Lookahead calls pass. Calls that
// only ask the target for help do not count as retries.
func (a *sessionAnalysis) pair() []*Chain {
	var chains []*Chain
	taken := make([]bool, len(a.s.Calls))
	for i, f := range a.failures {
		if f == nil || taken[i] || f.Category == diagnose.Rejected {
			continue
		}
		attempts, fix, _ := a.follow(i, len(a.s.Calls))
		for _, k := range attempts {
			taken[k] = true
		}
		chains = append(chains, a.chain(attempts, fix))
	}
	return chains
}

// follow follows the chain of failure i through the first n calls: its
// failed attempts, and its fix or -1. short reports that the n calls ran
// out before the chain was fixed or Lookahead calls passed after its last
// attempt: calls after them may still belong to it.
func (a *sessionAnalysis) follow(i, n int) (attempts []int, fix int, short bool) {
	attempts = []int{i}
	j := i + 1
	helped := a.asksHelp(i) // the failure itself asked for its usage or version
	f := parser.Lookup(a.s.Format)
	batched := f != nil && f.Batched
	for ; j < n && j-attempts[len(attempts)-1] <= Lookahead; j++ {
		if a.asksHelp(j) && !helped || unfinished(a.s.Calls[j]) {
			continue // no outcome to judge, or only help asked
		}
		if batched && a.s.Calls[j].Msg == a.s.Calls[i].Msg {
			continue // made with the failure, before its result came back
		}
		if a.sameTarget(i, j) {
			if g := a.failures[j]; g != nil {
				if g.Category != diagnose.Rejected {
					attempts = append(attempts, j)
				}
				continue
			}
			return attempts, j, false
		}
		if a.failures[j] == nil && a.runsTarget(i, j) {
			return attempts, j, false // `pip install mkdocs && mkdocs build` after mkdocs failed
		}
	}
	return attempts, -1, j == n && j-attempts[len(attempts)-1] <= Lookahead
}

// settled returns the largest p, at most n, such that the chains of the
// failures before p are decided by the calls before p and read no call
// from p on (the chains of later failures never read back): the first p
// calls pair as they would with all the calls of the session after them.
func (a *sessionAnalysis) settled(n int) int {
	taken := make([]bool, n)
	best, reach := 0, -1 // reach: the last call a chain so far reads
	for i := range n {
		f := a.failures[i]
		if f == nil || taken[i] || f.Category == diagnose.Rejected {
			continue
		}
		if reach < i {
			best = i
		}
		attempts, fix, short := a.follow(i, n)
		if short {
			return best
		}
		for _, k := range attempts {
			taken[k] = true
		}
		end := fix
		if fix < 0 {
			// Unresolved: the search for a retry read Lookahead calls on,
			// which covers the three a workaround is looked for in.
			end = attempts[len(attempts)-1] + Lookahead
		}
		reach = max(reach, end)
	}
	if reach < n {
		best = n
	}
	return best
}

// neverRan reports whether a failure is of a command that did not run:
// the agent's harness or the shell failed before it.
func neverRan(f *Failure) bool {
	return f != nil && (f.Category == diagnose.AgentToolError || f.Category == diagnose.ShellSyntax)
}

// unfinished reports whether a call has no outcome: it was still running,
// or its result is not in the transcript.
func unfinished(c *parser.Call) bool {
	return c.Status == parser.StatusRunning || c.Status == parser.StatusNoResult
}

// sameTarget reports whether calls i and j run the same thing in the same
// place.
func (a *sessionAnalysis) sameTarget(i, j int) bool {
	ci, cj := a.s.Calls[i], a.s.Calls[j]
	if ci.Sidechain != cj.Sidechain || a.targets[i] == "" {
		return false
	}
	if a.targets[i] != a.targets[j] {
		// A tool call rejected for its arguments may have named no file;
		// the next call of the same tool is its retry.
		return a.cmds[i] == nil && a.cmds[j] == nil && ci.File == "" && ci.Tool == cj.Tool && a.failures[i] != nil
	}
	if (a.cmds[i] == nil) != (a.cmds[j] == nil) {
		return false
	}
	if a.cmds[i] == nil {
		return sameToolSubject(ci, cj)
	}
	if a.cmds[i].Host != a.cmds[j].Host {
		return false
	}
	if a.targets[i] != a.cmds[i].Target {
		return true // blamed on another command of its line: not its command's
	}
	if !sameSubject(a.cmds[i], a.cmds[j], a.targets[i]) {
		return false
	}
	// Looking at one file and then at another is exploring, not retrying:
	// a viewer's retry must look at one of the same things.
	if a.cmds[i].Looks() {
		return sharesWord(a.cmds[i], a.cmds[j], neverRan(a.failures[i])) ||
			correctsMissing(a.failures[i], a.cmds[i], a.cmds[j])
	}
	return !otherFiles(a.failures[i], a.cmds[i], a.cmds[j])
}

// otherFiles reports whether y builds or tests other files than those of
// x that its failure f cites: `lean scratch.lean` after `lean
// solution.lean` failed with "solution.lean:22:2: error: …" is another
// compile, not its retry. A run that names no file of the cited kinds
// (`make`, `pytest tests/`, `tsc -p tsconfig.json`) takes in the whole
// project or folder, the cited files with it.
func otherFiles(f *Failure, x, y *shell.Command) bool {
	if f == nil || f.Category != diagnose.BuildError && f.Category != diagnose.TestFailure {
		return false
	}
	var cited, exts []string
	for _, p := range pathWords(x) {
		if name := fileName(p); path.Ext(name) != "" && strings.Contains(f.Message, name) {
			cited, exts = append(cited, name), append(exts, path.Ext(name))
		}
	}
	// Only files of the kinds cited count: a folder or a project file
	// (`pytest tests/`, `tsc -p tsconfig.json`) takes in the cited files.
	var others []string
	for _, q := range pathWords(y) {
		name := fileName(q)
		if !slices.Contains(exts, path.Ext(name)) {
			continue
		}
		// A pattern (`pytest tests/test_*.py`) names the cited files it
		// matches.
		if i := slices.IndexFunc(cited, func(c string) bool { ok, _ := path.Match(name, c); return ok }); i >= 0 {
			name = cited[i]
		}
		others = append(others, name)
	}
	return len(others) > 0 && !slices.ContainsFunc(others, func(q string) bool { return slices.Contains(cited, q) })
}

// fileName returns the base name of a path word without what follows a
// colon: test_a.py for tests/test_a.py::test_x, main.c for src/main.c:12.
func fileName(p string) string {
	name, _, _ := strings.Cut(path.Base(p), ":")
	return name
}

// correctsMissing reports whether y looks at a file whose name corrects
// that of one x looked at and failure f says is missing: in the same
// directory, the missing name made longer, its extension kept
// (`default_config.cfg` for `default.cfg`). A test or a copy of the file
// (`main_test.go`, `app.bak.py`) is another file.
func correctsMissing(f *Failure, x, y *shell.Command) bool {
	if f == nil || f.Category != diagnose.MissingFile {
		return false
	}
	return slices.ContainsFunc(pathWords(x), func(p string) bool {
		return strings.Contains(f.Message, path.Base(p)) &&
			slices.ContainsFunc(pathWords(y), func(q string) bool { return correctedName(p, q) })
	})
}

// correctedName reports whether path q is path p's name made longer, as
// correctsMissing says.
func correctedName(p, q string) bool {
	dp, bp := path.Split(p)
	dq, bq := path.Split(q)
	ext := path.Ext(bp)
	if dp != dq || path.Ext(bq) != ext || strings.ContainsAny(bp+bq, "*?") {
		return false
	}
	stem := strings.TrimSuffix(bp, ext)
	added, ok := strings.CutPrefix(strings.TrimSuffix(bq, ext), stem)
	if !ok || len(stem) < 3 || len(added) < 2 || !strings.ContainsRune("_-.", rune(added[0])) {
		return false
	}
	switch strings.ToLower(added[1:]) {
	case "test", "tests", "spec", "bak", "orig", "old", "backup", "copy", "new", "tmp":
		return false
	}
	return true
}

// sameSubject reports whether line y works on what line x did with
// target t, where the target does not say it. The commands of each line
// with that target count together (`pip install -U pip && pip install
// numpy` installs numpy). An installer's retry installs one of the same
// packages (samePackage), or either names none. Inline Python code's
// retry imports every module x's imports from outside the standard
// library; code of the standard library's modules alone is retried by code
// of the same modules (sys, os and __future__ aside), and code that
// imports nothing by any. Installing another package, or trying another
// snippet, is another step.
func sameSubject(x, y *shell.Command, t string) bool {
	if !shell.RunsSnippet(t) && !shell.Installs(t) {
		return true
	}
	xs, ys := lineCommands(x, t), lineCommands(y, t)
	xp, yp := gather(xs, (*shell.Command).Packages), gather(ys, (*shell.Command).Packages)
	if len(xp) > 0 && len(yp) > 0 && !slices.ContainsFunc(xp, func(p string) bool {
		return slices.ContainsFunc(yp, func(q string) bool { return samePackage(p, q) })
	}) {
		return false
	}
	xm, ym := gather(xs, (*shell.Command).InlineImports), gather(ys, (*shell.Command).InlineImports)
	if own := slices.DeleteFunc(slices.Clone(xm), shell.StdlibModule); len(own) > 0 {
		return all(own, ym)
	}
	if len(xm) == 0 {
		return true
	}
	scaffold := func(m string) bool { return m == "sys" || m == "os" || m == "__future__" }
	if rest := slices.DeleteFunc(slices.Clone(xm), scaffold); len(rest) > 0 {
		xm, ym = rest, slices.DeleteFunc(ym, scaffold)
	}
	return all(xm, ym) && all(ym, xm)
}

// lineCommands returns the commands of c's line whose target is t: its
// command of interest and its other commands.
func lineCommands(c *shell.Command, t string) []*shell.Command {
	var out []*shell.Command
	if c.Target == t {
		out = append(out, c)
	}
	for _, argv := range c.Others {
		if sub := c.Peeled(argv); sub.Target == t {
			out = append(out, sub)
		}
	}
	return out
}

// gather returns the words f gives of each command, each once.
func gather(cmds []*shell.Command, f func(*shell.Command) []string) []string {
	var out []string
	for _, c := range cmds {
		for _, w := range f(c) {
			if !slices.Contains(out, w) {
				out = append(out, w)
			}
		}
	}
	return out
}

// all reports whether every word of xs is one of ys.
func all(xs, ys []string) bool {
	return !slices.ContainsFunc(xs, func(x string) bool { return !slices.Contains(ys, x) })
}

// samePackage reports whether installing q can be installing p again: the
// same name, its spelling corrected (one edit apart in a name of four
// letters or more: `-r requirement.txt`, `-r requirements.txt`), a variant
// of it (`psycopg2-binary`, `tensorflow-cpu`; not `torchvision` for
// `torch`), or it with Python's prefix (`pyyaml` for `yaml`,
// `python-dateutil` for `dateutil`).
func samePackage(p, q string) bool {
	if len(p) > len(q) {
		p, q = q, p
	}
	if p == q || len(p) >= 4 && (levenshtein.ComputeDistance(p, q) <= 1 || strings.HasPrefix(q, p+"-")) {
		return true
	}
	for _, prefix := range []string{"py", "python-", "python3-"} {
		if q == prefix+p {
			return true
		}
	}
	return false
}

// sameToolSubject reports whether two calls of an agent's tool that name
// no file work on the same thing, where both say: a fetch of a page of the
// same site (`http://localhost:3000` and `…/`, a path corrected after a
// 404), or a subagent started for the same task (its description or its
// prompt the same, the other corrected). Another site, or another task, is
// no retry; nor is a code cell that only installs or runs shell commands,
// after a cell of code, nor one that calls none of the functions the
// failed cell called (other than builtins).
func sameToolSubject(x, y *parser.Call) bool {
	if diagnose.RunsCode(x) && !setupCell(x.Args["code"]) {
		// `%pip install x` prepares the cell's retry; a cell of other
		// code (a look around with os.listdir) is another step.
		xs := cellCalls(x.Args["code"])
		return !setupCell(y.Args["code"]) && (len(xs) == 0 || slices.ContainsFunc(cellCalls(y.Args["code"]), func(c string) bool { return slices.Contains(xs, c) }))
	}
	if ux, uy := x.Args["url"], y.Args["url"]; ux != "" && uy != "" {
		return siteOf(ux) == siteOf(uy)
	}
	dx, dy := x.Args["description"], y.Args["description"]
	px, py := x.Args["prompt"], y.Args["prompt"]
	if dx != "" && dy != "" || px != "" && py != "" {
		return dx != "" && dx == dy || px != "" && px == py
	}
	return true
}

// callRE finds the names a line of Python calls: `pd.read_csv(`.
var callRE = regexp.MustCompile(`([A-Za-z_][\w.]*)\s*\(`)

// commonCalls are the builtins and keywords any cell may call.
var commonCalls = map[string]bool{
	"print": true, "len": true, "str": true, "int": true, "float": true, "list": true, "dict": true,
	"set": true, "tuple": true, "range": true, "open": true, "isinstance": true, "type": true,
	"sorted": true, "enumerate": true, "zip": true, "map": true, "filter": true, "sum": true,
	"min": true, "max": true, "any": true, "all": true, "repr": true, "format": true, "bool": true,
	"getattr": true, "hasattr": true, "setattr": true, "abs": true, "round": true, "super": true,
	"if": true, "elif": true, "while": true, "for": true, "return": true, "and": true, "or": true,
	"not": true, "in": true, "with": true, "assert": true, "except": true, "def": true, "class": true,
}

// cellCalls returns the names a code cell calls, other than builtins, each
// once: what the cell works on, in the absence of a file.
func cellCalls(code string) []string {
	var out []string
	for _, m := range callRE.FindAllStringSubmatch(code, -1) {
		if !commonCalls[m[1]] && !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	// The names it assigns are what it works on too: `df = pd.read_excel(…)`
	// retries `df = pd.read_csv(…)`, `x = float(v)` retries `x = np.float(v)`.
	for _, m := range assignRE.FindAllStringSubmatch(code, -1) {
		if !slices.Contains(out, m[1]) {
			out = append(out, m[1])
		}
	}
	return out
}

// assignRE finds the name a line of Python assigns to.
var assignRE = regexp.MustCompile(`(?m)^[ \t]*([A-Za-z_]\w*)[ \t]*(?:\[[^\]\n]*\][ \t]*)?=[^=]`)

// setupCell reports whether a code cell only runs IPython's magics and
// shell escapes (`%pip install requests`, `!apt-get install -y x`).
func setupCell(code string) bool {
	some := false
	for l := range strings.Lines(code) {
		switch l = strings.TrimSpace(l); {
		case l == "" || l[0] == '#':
		case l[0] == '%' || l[0] == '!':
			some = true
		default:
			return false
		}
	}
	return some
}

// siteOf returns the host of a URL, lower-cased and without "www.", its
// scheme supplied when it has none (`docs.x.com/a`); the URL itself when
// it names no host.
func siteOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Host == "" {
		if p, err = url.Parse("http://" + u); err != nil || p.Host == "" {
			return u
		}
	}
	return strings.TrimPrefix(strings.ToLower(p.Host), "www.")
}

// sharesWord reports whether two commands look at the same thing: they
// have a path in common (a word with a slash, a backslash, a dot or a
// colon), or, when the first names no path, any word other than a flag.
// A command that names nothing and filters nothing looks at everything:
// as the second, it is the first's retry, and as the first, any second
// is; so is any second that names nothing, or only what the first's line
// names, when the first names nothing and never ran, its filters unread.
// Trailing slashes do not count.
func sharesWord(x, y *shell.Command, neverRan bool) bool {
	words := func(c *shell.Command, pathsOnly bool) []string {
		if pathsOnly {
			return pathWords(c)
		}
		var out []string
		for _, w := range c.Args {
			if !shell.IsFlag(w) && !errorActions[w] {
				out = append(out, strings.TrimSuffix(w, "/"))
			}
		}
		return out
	}
	xw := words(x, true)
	pathsOnly := len(xw) > 0
	if !pathsOnly {
		xw = words(x, false)
	}
	if len(words(y, false)) == 0 && len(y.Filters) == 0 {
		return true // a look at everything it looks at: the same look, wider
	}
	if len(xw) == 0 && len(x.Filters) == 0 {
		return true // it looked at nothing in particular: any look again is its retry
	}
	if len(xw) == 0 && neverRan {
		// Its question was in its filters, unread: another look asks it
		// again when it names nothing but what they named (`Get-Process
		// -Name node` after `Get-Process | Where-Object Name -eq node`),
		// and another question when it names something else.
		named := map[string]bool{}
		for _, w := range lineWords(x.Line) {
			named[w] = true
		}
		return !slices.ContainsFunc(words(y, false), func(w string) bool {
			return slices.ContainsFunc(lineWords(w), func(w string) bool { return !named[w] })
		})
	}
	yw := words(y, pathsOnly)
	return slices.ContainsFunc(xw, func(w string) bool { return slices.Contains(yw, w) })
}

// lineWords returns the words of s, lower-cased: its runs of letters and
// digits.
func lineWords(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// runsTarget reports whether shell call j runs the target of call i among
// its other commands, on the same host, on one of the same paths when
// call i named any (`rmdir charts` is not the retry of `rmdir
// build/cache`).
func (a *sessionAnalysis) runsTarget(i, j int) bool {
	ci, cj := a.cmds[i], a.cmds[j]
	t := a.targets[i]
	if ci == nil || cj == nil || t == "" || cj.Target == t || ci.Host != cj.Host ||
		a.s.Calls[i].Sidechain != a.s.Calls[j].Sidechain || !cj.Runs(t) {
		return false
	}
	o := cj.Other(t)
	if o == nil {
		// t filters the output of j's line (`git diff | grep x`): what it
		// reads is what the line looks at. (A failure blamed on a filter of
		// its own line, `curl …/users | jq …`, is its filter's: the line
		// may change what it reads, `curl …/users/list | jq …`.)
		return t != ci.Target || len(pathWords(ci)) == 0 || sharesWord(ci, cj, false)
	}
	// As in sameTarget, a viewer's retry looks at one of the same things.
	// A failure blamed on another command of its line is held to the
	// paths of its line's own command: the line run again with that
	// command corrected (`app & sleep 2; ls ~/Documents` after `app &
	// sleep 2; ls ~/Pictures`) fixes it.
	if t == ci.Target {
		if !sameSubject(ci, cj, t) {
			return false
		}
		if ci.Looks() {
			return sharesWord(ci, o, neverRan(a.failures[i]))
		}
	}
	return len(pathWords(ci)) == 0 || sharesWord(ci, o, false)
}

// errorActions are the values of PowerShell's -ErrorAction, which say
// nothing of what a command looks at.
var errorActions = map[string]bool{"SilentlyContinue": true, "Stop": true, "Continue": true, "Ignore": true, "Inquire": true}

// pathWords returns the arguments of c that name paths: words with a
// slash, a backslash, a dot or a colon, trailing slashes removed. A
// pattern without a slash (`*.rs`) names files anywhere, not a place.
func pathWords(c *shell.Command) []string {
	var out []string
	for _, w := range c.Args {
		if !shell.IsFlag(w) && strings.ContainsAny(w, `/\.:`) && (!strings.ContainsAny(w, "*?") || strings.ContainsAny(w, `/\`)) {
			out = append(out, strings.TrimSuffix(w, "/"))
		}
	}
	return out
}

func (a *sessionAnalysis) asksHelp(j int) bool {
	return a.cmds[j] != nil && a.cmds[j].AsksHelp()
}

// chain builds the chain of the failed calls attempts, fixed by call fix
// (or -1).
func (a *sessionAnalysis) chain(attempts []int, fix int) *Chain {
	first, last := attempts[0], attempts[len(attempts)-1]
	ch := &Chain{
		Session: a.ref,
		Failure: a.failures[first],
		Retries: []string{},
		Between: []Step{},
	}
	// What became of each failure of the chain.
	outcome := Outcome{Attempts: len(attempts)}
	if fix >= 0 {
		c := a.s.Calls[fix]
		outcome.FixedBy, outcome.FixedMsg = &c.ID, &c.Msg
	}
	for _, k := range attempts {
		f := a.failures[k]
		f.Outcome = outcome
		ch.failures = append(ch.failures, f)
		if k != first {
			ch.Retries = append(ch.Retries, f.CallID)
		}
	}
	end := last
	if fix >= 0 {
		end = fix
	}
	for k := first + 1; k < end; k++ {
		role := a.role(k)
		if slices.Contains(attempts, k) {
			role = RoleRetry
		}
		ch.Between = append(ch.Between, a.step(k, role))
		ch.between = append(ch.between, a.s.Calls[k])
	}
	ch.Cost = a.cost(first, end)
	if fix < 0 {
		ch.Workaround = a.workaround(last)
		return ch
	}
	c := a.s.Calls[fix]
	ch.fix = c
	ch.Fix = &Fix{CallID: c.ID, Msg: c.Msg, Command: commandOf(c)}
	retry := a.retryCommand(last, fix)
	ch.Fix.Kind, ch.Fix.Because = a.fixKind(last, fix, retry, ch.Between)
	a.explain(ch.Fix, ch.Failure, last, fix, retry)
	if ch.Fix.Kind == FixArgv {
		if a.cmds[fix] != nil {
			ch.Diff = diffCommands(a.cmds[last], retry)
		} else {
			ch.Diff = diffInputs(a.s.Calls[last], a.s.Calls[fix])
		}
		ch.OfferedByUsage = offered(ch.Diff, ch.failures)
	}
	return ch
}

// alternatives lists, for programs agents find missing, the programs that
// do their job.
var alternatives = map[string][]string{
	"tree": {"find", "ls"}, "rg": {"grep", "git grep"}, "ag": {"grep", "rg"},
	"fd": {"find"}, "jq": {"python", "python3", "node"}, "python": {"python3"},
	"python3": {"python"}, "pip": {"pip3", "python3", "python", "uv"}, "pip3": {"pip", "python3", "uv"},
	"docker-compose": {"docker"}, "wget": {"curl"}, "curl": {"wget", "python3"},
	"netstat": {"ss", "lsof"}, "ifconfig": {"ip"}, "service": {"systemctl"},
	"yarn": {"npm", "pnpm"}, "pnpm": {"npm", "yarn"}, "gsed": {"sed"},
	"sha256sum": {"shasum"}, "md5sum": {"md5"}, "realpath": {"readlink"},
	"nc": {"curl", "bash"}, "vim": {"sed"}, "nano": {"sed"}, "less": {"cat", "head"},
	"gtimeout": {"timeout"}, "timeout": {"gtimeout"}, "ripgrep": {"grep"},
}

// workaround finds, after the last failure of an unresolved chain whose
// program was not found, a call that did the job another way: one of the
// next three calls, succeeding, with a known alternative program or with
// the same file arguments.
func (a *sessionAnalysis) workaround(last int) *Step {
	f := a.failures[last]
	if f.Category != diagnose.CommandNotFound || a.cmds[last] == nil {
		return a.didTheJob(last)
	}
	failed := a.cmds[last]
	for j := last + 1; j < len(a.s.Calls) && j <= last+3; j++ {
		cmd := a.cmds[j]
		if cmd == nil || a.failures[j] != nil || cmd.Host != failed.Host || a.s.Calls[j].Sidechain != a.s.Calls[last].Sidechain {
			continue
		}
		if argv := replacement(failed, f.Program, cmd); argv != nil {
			st := a.step(j, RoleOther)
			st.program = shell.ProgramName(argv[0])
			return &st
		}
	}
	return nil
}

// replacement returns the simple command of line that did the job of the
// program missing, which the failed line ran: a known alternative to it,
// else a command the failed line did not run that names a word the
// missing one named (`cat src/main.go` after `bat src/main.go`); nil if
// none. The line's other commands are not the replacement: `touch a &&
// find .` after `touch a && tree` replaced tree with find.
func replacement(failed *shell.Command, missing string, line *shell.Command) []string {
	ran := append([][]string{failed.Argv}, failed.Others...)
	var cmds [][]string // the commands of line new to it
	for _, argv := range append([][]string{line.Argv}, line.Others...) {
		if len(argv) > 0 && !slices.ContainsFunc(ran, func(r []string) bool { return slices.Equal(r, argv) }) {
			cmds = append(cmds, argv)
		}
	}
	for _, argv := range cmds {
		if t, _ := shell.Identify(argv); slices.Contains(alternatives[missing], shell.ProgramName(argv[0])) || slices.Contains(alternatives[missing], t) {
			return argv
		}
	}
	gone := failed.Argv // the command of the line that was not found
	for _, argv := range ran {
		if len(argv) > 0 && shell.ProgramName(argv[0]) == missing {
			gone = argv
		}
	}
	_, goneWords := splitArgs(gone[min(1, len(gone)):], false)
	for _, argv := range cmds {
		_, words := splitArgs(argv[1:], false)
		if slices.ContainsFunc(goneWords, func(w string) bool { return slices.Contains(words, w) }) {
			return argv
		}
	}
	return nil
}

// workaroundProgram names the program of a workaround's line that did the
// job of the failed call: the replacement of the program that was not
// found, or the line's program.
func workaroundProgram(f *Failure, failed, line *shell.Command, text string) string {
	if f.Category == diagnose.CommandNotFound && failed != nil {
		if argv := replacement(failed, f.Program, line); argv != nil {
			return shell.ProgramName(argv[0])
		}
	}
	return programOfLine(line, text)
}

// workaroundCalls bounds how far after an unresolved chain's last failure
// the call that did its job is looked for.
const workaroundCalls = 10

// didTheJob finds, after the last failure of an unresolved chain, the call
// that did the failed call's job another way: the first that succeeded,
// in the same conversation and place, of another target and of the same
// role (a look for a look, a change for a change: an edit may do a failed
// patch's job).
func (a *sessionAnalysis) didTheJob(last int) *Step {
	c := a.s.Calls[last]
	want := a.role(last)
	if want == RoleWait || want == RoleEnvironment {
		return nil
	}
	for j := last + 1; j < len(a.s.Calls) && j <= last+workaroundCalls; j++ {
		cj := a.s.Calls[j]
		if cj.Sidechain != c.Sidechain || a.failures[j] != nil || unfinished(cj) || a.targets[j] == a.targets[last] ||
			a.cmds[last] != nil && a.cmds[j] != nil && a.cmds[j].Host != a.cmds[last].Host {
			continue
		}
		if !a.sharesObject(last, j) {
			continue
		}
		if got := a.role(j); got == want || want == RoleOther && got == RoleEdit {
			st := a.step(j, got)
			return &st
		}
	}
	return nil
}

// sharesObject reports whether calls i and j act on a thing in common: a
// file one edits and the other names, or an argument word of three or more
// letters that both name.
func (a *sessionAnalysis) sharesObject(i, j int) bool {
	words := func(k int) []string {
		c := a.s.Calls[k]
		var out []string
		if c.File != "" {
			out = append(out, path.Base(c.File))
		}
		if cmd := a.cmds[k]; cmd != nil {
			for _, w := range cmd.Args {
				if !shell.IsFlag(w) && len(w) >= 3 {
					out = append(out, path.Base(strings.TrimSuffix(w, "/")))
				}
			}
		}
		return out
	}
	wi, wj := words(i), words(j)
	return slices.ContainsFunc(wi, func(w string) bool { return slices.Contains(wj, w) })
}

// fixKind says what changed between the last failed call and its fix, and
// which calls made the change. The target's own arguments come first; then
// the calls between, edits before environment changes before waits; then
// the other commands on the fix's own line (`pip install x && x`).
//
// Only a shell line runs other commands: a tool call of another target
// (one that named no file, then the file) changed its arguments. retry is
// the fix's command that ran the target again (see retryCommand).
func (a *sessionAnalysis) fixKind(last, fix int, retry *shell.Command, between []Step) (FixKind, []string) {
	ownLine := a.cmds[fix] != nil && a.targets[fix] != a.targets[last]
	if !ownLine && a.failures[last].Category == diagnose.ShellSyntax && a.s.Calls[last].Command != a.s.Calls[fix].Command {
		return FixArgv, nil // the same words, quoted so that the shell reads them
	}
	if !ownLine && (retry != a.cmds[fix] || !sameInvocation(a.s.Calls[last], a.s.Calls[fix], a.cmds[last], retry)) {
		cl, cf := a.cmds[last], retry
		if cf == nil || !slices.Equal(cl.Argv, cf.Argv) || !slices.Equal(cl.Env, cf.Env) || !slices.Equal(cl.Filters, cf.Filters) ||
			!slices.Equal(cl.Wrappers, cf.Wrappers) || diffInput(cl.Input, cf.Input) != nil {
			return FixArgv, nil // its arguments, the filters of its pipeline, its wrappers or its input changed
		}
		if len(cf.Writes) > 0 && len(cf.OtherInputs) > 0 && !slices.Equal(cl.OtherInputs, cf.OtherInputs) {
			// `cat > t.py <<'EOF' … EOF; python t.py`, the script
			// written anew.
			return FixEdit, []string{a.s.Calls[fix].ID}
		}
		ownLine = true // only the commands around it changed
	}
	for _, kind := range []struct {
		role Role
		fix  FixKind
	}{{RoleEdit, FixEdit}, {RoleEnvironment, FixEnvironment}, {RoleWait, FixWait}} {
		var because []string
		for _, st := range between {
			if st.Role == kind.role {
				because = append(because, st.CallID)
			}
		}
		if because != nil {
			return kind.fix, because
		}
	}
	if ownLine {
		return FixEnvironment, []string{a.s.Calls[fix].ID}
	}
	return FixSame, nil
}

// explain names what the calls behind an edit, environment or wait fix
// changed; last is the chain's last failure, k the fix and retry its
// command that ran the target again.
func (a *sessionAnalysis) explain(fix *Fix, f *Failure, last, k int, retry *shell.Command) {
	for _, id := range fix.Because {
		j := a.index[id]
		c := a.s.Calls[j]
		switch {
		case fix.Kind == FixEdit:
			files := editedFiles(c, a.cmds[j])
			if j == k {
				files = a.cmds[k].Writes // written anew on the fix's own line
			}
			for _, file := range files {
				if !slices.Contains(fix.Files, file) {
					fix.Files = append(fix.Files, file)
				}
			}
		case j == k:
			// The change is on the fix's own line: its commands that the
			// failed line did not run, other than the target; none when
			// the line only dropped some.
			for _, argv := range lineChanges(a.cmds[last], a.cmds[k], retry, a.targets[last]) {
				fix.Changes = append(fix.Changes, termtext.Cut(strings.Join(argv, " "), 120))
			}
		default:
			fix.Changes = append(fix.Changes, termtext.Cut(commandOf(c), 120))
		}
	}
	if fix.Kind == FixEdit && f.Exception != nil && f.Exception.File != "" {
		in := slices.ContainsFunc(fix.Files, func(file string) bool { return sameFile(file, f.Exception.File) })
		fix.InTraceback = &in
	}
}

// retryCommand returns the command of line fix that ran the target of the
// failed call last again: the line's command of interest, but where the
// line runs the target more than once and that command works on something
// else (see sameSubject), the one that works on what the failed call did
// (the `pip install numpy` of `pip install -U pip && pip install numpy`
// after `pip install numpy==1.19`).
func (a *sessionAnalysis) retryCommand(last, fix int) *shell.Command {
	c, t := a.cmds[fix], a.targets[last]
	if c == nil || a.cmds[last] == nil || c.Target != t || sameSubject(a.cmds[last], c.Sub(c.Argv), t) {
		return c
	}
	for _, k := range lineCommands(c, t)[1:] {
		if sameSubject(a.cmds[last], k, t) {
			return k
		}
	}
	return c
}

// lineChanges returns the simple commands of the fix's line that the
// failed line did not run and that can change what the target meets, in
// order: the `cd ..` of `cd .. && make` after `make`, the install of `pip
// install x && x`; not the target itself, a look or an echo. retry is the
// command of the line that ran the target again (see retryCommand): when
// it is not the line's command of interest, the line's other runs of the
// target are changes too (the `pip install -U pip` of `pip install -U pip
// && pip install numpy`).
func lineChanges(failed, fix, retry *shell.Command, target string) [][]string {
	if failed == nil || fix == nil {
		return nil
	}
	ran := joinAll(append([][]string{failed.Argv}, failed.Others...))
	var out [][]string
	for _, argv := range append([][]string{fix.Argv}, fix.Others...) {
		if len(argv) == 0 || slices.Contains(ran, strings.Join(argv, " ")) {
			continue
		}
		sub := fix.Sub(argv)
		if sub.Target == target && (retry == fix || slices.Equal(argv, retry.Argv)) ||
			shellRole(sub) == RoleDiagnostic || printers[sub.Program()] {
			continue
		}
		out = append(out, argv)
	}
	return out
}

// printers are the programs that only print their arguments.
var printers = map[string]bool{"echo": true, "printf": true, "true": true, ":": true}

// sameFile reports whether two paths, perhaps written from different
// directories or machines, name the same file: one is a suffix of the
// other.
func sameFile(x, y string) bool {
	if len(x) < len(y) {
		x, y = y, x
	}
	return x == y || strings.HasSuffix(x, "/"+strings.TrimPrefix(y, "./"))
}

// sameInvocation reports whether two calls of the same target ran with the
// same arguments, through the same wrappers.
func sameInvocation(x, y *parser.Call, cx, cy *shell.Command) bool {
	if cx != nil && cy != nil {
		return slices.Equal(cx.Argv, cy.Argv) && slices.Equal(cx.Env, cy.Env) && slices.Equal(cx.Wrappers, cy.Wrappers) &&
			slices.Equal(cx.Filters, cy.Filters) && slices.EqualFunc(cx.Others, cy.Others, slices.Equal) &&
			diffInput(cx.Input, cy.Input) == nil && slices.Equal(cx.OtherInputs, cy.OtherInputs)
	}
	if x.Command != y.Command || x.File != y.File || len(x.Args) != len(y.Args) {
		return false
	}
	for k, v := range x.Args {
		if y.Args[k] != v {
			return false
		}
	}
	return true
}

// cost measures the chain from call first to call end.
func (a *sessionAnalysis) cost(first, end int) Cost {
	x, y := a.s.Calls[first], a.s.Calls[end]
	c := Cost{Messages: y.Msg - x.Msg, Calls: y.Ordinal - x.Ordinal}
	if !x.Start.IsZero() && !y.Start.IsZero() && y.Start.After(x.Start) {
		c.Seconds = y.Start.Sub(x.Start).Seconds()
	}
	for k := first + 1; k <= end; k++ {
		c.Tokens += a.s.Calls[k].Tokens
	}
	return c
}

// offered reports whether every flag the fix introduced was named by the
// failures' usage text, the parser's suggestions or the accepted choices.
func offered(d *Diff, failures []*Failure) bool {
	var known []string
	for _, f := range failures {
		known = append(known, f.ValidFlags...)
		known = append(known, f.Suggestions...)
		known = append(known, f.Choices...)
	}
	introduced := 0
	for _, r := range d.Renamed {
		introduced++
		if !slices.Contains(known, r.To) {
			return false
		}
	}
	for _, ad := range d.Added {
		if name := flagName(ad); name != "" {
			introduced++
			if !slices.Contains(known, name) {
				return false
			}
		}
	}
	for _, ch := range d.Changed {
		if slices.Contains(failures[len(failures)-1].BadFlags, ch.Flag) {
			introduced++
			if !slices.Contains(known, ch.To) {
				return false
			}
		}
	}
	return introduced > 0
}
