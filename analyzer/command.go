package analyzer

import (
	"path"
	"regexp"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/retrace-dev/retrace/internal/shparse"
)

// A Command is what a shell command line runs once its wrappers are peeled:
// ssh, sudo, env and VAR=val, timeout, nohup, bash -c, docker and kubectl
// exec, `cd dir &&`, redirections and trailing filters such as `| tail`.
type Command struct {
	Line string // the command line as written

	// Host is where the command ran when a wrapper sent it elsewhere:
	// "root@10.0.0.1" for ssh, "docker:web" for docker exec; empty for local.
	Host string
	Env  []string // NAME=value settings in front of it

	// Argv is the command of interest, program first.
	Argv []string
	// Target names what is being run: the script however the interpreter
	// is spelled ("benchmark_eagle3.py"), the module of python -m, a
	// build or task tool with its subcommand ("go test", "npm run build"),
	// or a plain program's base name ("ls").
	Target string
	// Args are the words of Argv after those that make up Target: the part
	// a corrected retry changes.
	Args []string

	// Filters are the targets of the pipeline stages after the command
	// ("tail", "grep"), whose exit status hides the command's own.
	Filters []string
	// Masked reports that the line's exit status does not reflect the
	// command's: it is piped into a filter, followed by `|| true`, run in
	// the background or followed by other commands (`make; echo done`);
	// Ignored, that it is followed by `|| …`: the line chose to go on
	// whatever happened.
	Masked, Ignored bool
	// Fallback is what the line prints when the command fails: the text
	// of the echo in `make || echo "build failed"`.
	Fallback string
	// Limit is the duration a timeout wrapper gave the command ("30",
	// "5m"), or "".
	Limit string
	// hiddenBy says what hides the command's exit status, when Masked.
	hiddenBy string
	// asked reports that the command is the condition of an if or a loop.
	asked bool
	// stdin is the file redirected to the command's standard input.
	stdin string
	// hidden are the other commands of the line whose failure its status
	// hides and that the line does not expect to fail: not followed by
	// `|| …`, not a condition.
	hidden [][]string
	// Ends names the commands whose failure can be the line's exit
	// status, in order: the last one, and those at which a failing `&&`
	// chain stops; each by the target of its last pipeline stage, wrappers
	// peeled ("grep" for `ssh host 'ps | grep x'`; only "cp" for `killall
	// app; cp app ~/bin`).
	Ends []string
	// Writes lists the files the line's redirections write, other than
	// /dev/null.
	Writes []string
	// Others are the other simple commands of the line, program first, in
	// order: the `cd dir` of `cd dir && make`, the `sleep 5` of
	// `sleep 5; curl …`.
	Others [][]string
}

// Program returns the base name of the command's program, or "".
func (c *Command) Program() string {
	if len(c.Argv) == 0 {
		return ""
	}
	return path.Base(c.Argv[0])
}

// HasArg reports whether any of the command's arguments is one of words.
func (c *Command) HasArg(words ...string) bool {
	for _, a := range c.Args {
		if slices.Contains(words, a) {
			return true
		}
	}
	return false
}

// other returns the command of the line, other than its command of
// interest, whose target is target; nil if none.
func (c *Command) other(target string) *Command {
	for _, argv := range c.Others {
		if t, args := identify(argv); t == target {
			return &Command{Line: c.Line, Argv: argv, Target: t, Args: args}
		}
	}
	return nil
}

// Runs reports whether the line runs target, as its command of interest
// or as another of its commands: `pip install mkdocs && mkdocs build`
// runs mkdocs.
func (c *Command) Runs(target string) bool {
	if c.Target == target || slices.Contains(c.Filters, target) {
		return true
	}
	for _, argv := range c.Others {
		if t, _ := identify(argv); t == target {
			return true
		}
	}
	return false
}

// ParseCommand reads a shell command line. It never fails: a line the shell
// parser rejects is split on white space.
func ParseCommand(line string) *Command {
	c := &Command{Line: line}
	c.parse(line, 0)
	c.Target, c.Args = identify(c.Argv)
	c.Target = patchTarget(c)
	if len(c.Ends) == 0 && c.Target != "" {
		c.Ends = []string{c.Target}
	}
	return c
}

// patchTarget returns the target of a command that applies a patch file,
// named with the file: a different patch is a different change, not a
// retry (`patch -p1 < fix.patch`, `git apply fix.patch`). Other targets are
// returned as they are.
func patchTarget(c *Command) string {
	file := ""
	switch c.Target {
	case "patch":
		file = c.stdin
		for i, a := range c.Args {
			if (a == "-i" || a == "--input") && i+1 < len(c.Args) {
				file = c.Args[i+1]
			} else if v, ok := strings.CutPrefix(a, "--input="); ok {
				file = v
			}
		}
	case "git apply", "git am":
		for _, a := range c.Args {
			if !strings.HasPrefix(a, "-") {
				file = a
			}
		}
		if file == "" {
			file = c.stdin
		}
	}
	if file == "" {
		return c.Target
	}
	return c.Target + " " + path.Base(file)
}

// Status returns the target of the command whose exit status the line's
// is when the line runs to its end.
func (c *Command) Status() string {
	if len(c.Ends) == 0 {
		return ""
	}
	return c.Ends[len(c.Ends)-1]
}

// maxDepth bounds the nesting of wrappers (ssh 'bash -c "…"') followed.
const maxDepth = 8

// parse finds the command of interest in line and peels its wrappers.
func (c *Command) parse(line string, depth int) {
	simple := simpleCommands(line)
	i := pickCommand(simple)
	if i < 0 {
		return
	}
	for j, s := range simple {
		if j != i && len(s.argv) > 0 {
			c.Others = append(c.Others, s.argv)
			if !s.ignored && !s.cond {
				c.hidden = append(c.hidden, s.argv)
			}
		}
		c.Writes = append(c.Writes, s.writes...)
	}
	s := simple[i]
	c.Env = append(c.Env, s.env...)
	for _, argv := range s.filters {
		// A stage may be wrapped too: `| sudo tee`, `| powershell '…'`.
		stage := &Command{Argv: argv}
		stage.peel(depth + 1)
		if t, _ := identify(stage.Argv); t != "" {
			c.Filters = append(c.Filters, t)
		}
	}
	c.Masked = c.Masked || s.masked || s.ignored || !s.end
	c.Ignored = c.Ignored || s.ignored
	switch {
	case c.hiddenBy != "":
	case len(s.filters) > 0:
		c.hiddenBy = "| " + c.Filters[len(c.Filters)-len(s.filters)]
	case s.ignored:
		c.hiddenBy = "|| …"
	case s.background:
		c.hiddenBy = "&"
	case !s.end:
		c.hiddenBy = "the commands after it"
	}
	c.Fallback = s.fallback
	c.asked = s.cond
	c.stdin = s.stdin
	c.Argv = s.argv
	var ends []string
	for _, s := range simple {
		if s.end && len(s.argv) > 0 {
			ends = append(ends, endsOf(s, depth)...)
		}
	}
	c.peel(depth)
	c.Ends = ends
}

// endsOf returns the targets of the commands whose failure is that of s:
// its last pipeline stage, or what the command it wraps ends with.
func endsOf(s simple, depth int) []string {
	argv := s.argv
	if len(s.filters) > 0 {
		argv = s.filters[len(s.filters)-1]
	}
	st := &Command{Argv: argv}
	st.peel(depth + 1)
	if st.Ends != nil {
		return st.Ends
	}
	t, _ := identify(st.Argv)
	return []string{t}
}

// peel replaces c.Argv by the command a wrapper runs, as long as it is one.
func (c *Command) peel(depth int) {
	for len(c.Argv) > 0 {
		prog := path.Base(c.Argv[0])
		args := c.Argv[1:]
		switch prog {
		case "sudo", "doas":
			c.Argv = skipOptions(args, "ugCDhprtTU", "")
		case "env":
			rest := skipOptions(args, "uCS", "")
			for len(rest) > 0 && isAssignment(rest[0]) {
				c.Env = append(c.Env, rest[0])
				rest = rest[1:]
			}
			c.Argv = rest
		case "timeout":
			rest := skipOptions(args, "sk", "")
			if len(rest) > 0 {
				c.Limit, rest = rest[0], rest[1:]
			}
			// `timeout 5 RUST_LOG=info app` runs no program named
			// RUST_LOG=info (it fails), but the line meant app.
			for len(rest) > 1 && isAssignment(rest[0]) {
				c.Env = append(c.Env, rest[0])
				rest = rest[1:]
			}
			c.Argv = rest
		case "nohup", "time", "command", "exec", "builtin", "unbuffer", "caffeinate":
			if prog == "command" && len(args) > 0 && (args[0] == "-v" || args[0] == "-V") {
				return // a lookup, not a run
			}
			c.Argv = skipOptions(args, "", "")
		case "nice", "ionice", "chrt", "taskset", "numactl", "stdbuf", "xvfb-run":
			c.Argv = skipOptions(args, "ncpNmCs", "")
			if prog == "taskset" && len(c.Argv) > 0 && len(args) > 0 && !strings.HasPrefix(args[0], "-") {
				c.Argv = c.Argv[1:] // the CPU mask
			}
		case "ssh":
			host, remote, ok := splitSSH(args)
			if !ok {
				return
			}
			c.Host = host
			if depth < maxDepth {
				c.reparse(strings.Join(remote, " "), depth+1)
			}
			return
		case "bash", "sh", "zsh", "dash", "ksh", "fish":
			script, ok := shellScript(args)
			if !ok {
				return
			}
			if depth < maxDepth {
				c.reparse(script, depth+1)
			}
			return
		case "powershell", "powershell.exe", "pwsh", "pwsh.exe", "cmd", "cmd.exe":
			script, ok := windowsScript(args)
			if !ok {
				return
			}
			c.windows(script, prog == "cmd" || prog == "cmd.exe")
			return
		case "docker", "podman", "kubectl", "oc":
			where, rest, ok := splitExec(prog, args)
			if !ok {
				return
			}
			c.Host = where
			c.Argv = rest
		default:
			return
		}
	}
}

// reparse replaces the command by the one found in a nested command line.
func (c *Command) reparse(line string, depth int) {
	c.Argv = nil
	c.parse(line, depth)
}

// A simple is one simple command of a command line.
type simple struct {
	argv       []string
	env        []string
	filters    [][]string // the later stages of its pipeline
	masked     bool       // piped into a filter
	ignored    bool       // followed by `|| …`
	end        bool       // its failure can be the line's exit status
	fallback   string     // the text `|| echo …` prints when it fails
	background bool       // run with &
	cond       bool       // the condition of an if or while
	stdin      string     // the file redirected to its standard input
	writes     []string
}

// shParsers hold shell parsers for reuse: a parser is large, and most calls
// are shell commands.
var shParsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

// simpleCommands lists the simple commands of a line in order, each with
// the pipeline stages after it. Only the first stage of a pipeline is listed,
// except after a leading `cat file` or `echo …`, which feeds the next stage.
// A line too long or nested too deep for the shell parser (see shparse) is
// taken as words, as one it rejects is.
func simpleCommands(line string) []simple {
	p := shParsers.Get().(*syntax.Parser)
	f, err := shparse.Parse(p, line)
	shParsers.Put(p)
	if err != nil {
		return []simple{{argv: unparsedArgv(line), end: true}}
	}
	var out []simple
	for i, st := range f.Stmts {
		out = collect(out, st, false, i == len(f.Stmts)-1)
	}
	return out
}

// unparsedArgv returns the words of the first command of a line the shell
// cannot parse, read leniently: quotes group words, a quote left open runs
// to the end of the line, and backquotes are letters, as they are to
// PowerShell (`$env:X`, which bash takes for a command substitution).
// The words stop at the first operator outside quotes.
func unparsedArgv(line string) []string {
	var words []string
	var b strings.Builder
	inWord := false
	var quote byte
	for i := 0; i < len(line); i++ {
		ch := line[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
			} else {
				b.WriteByte(ch)
			}
			continue
		case ch == '\'' || ch == '"':
			quote, inWord = ch, true
			continue
		case ch == ' ' || ch == '\t' || ch == '\n':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
			continue
		case strings.IndexByte(";|&<>(){}", ch) >= 0:
			if !inWord && len(words) == 0 {
				// The line starts with an operator: its first word is
				// all there is to name it.
				return strings.Fields(line[i:])[:1]
			}
			if inWord {
				words = append(words, b.String())
			}
			return words
		}
		b.WriteByte(ch)
		inWord = true
	}
	if inWord {
		words = append(words, b.String())
	}
	return words
}

// collect appends the simple commands of st to out. masked reports that
// st's exit status is hidden from the line's; end, that its failure can be
// the line's status: st runs last, or a failing `&&` chain stops at it.
func collect(out []simple, st *syntax.Stmt, masked, end bool) []simple {
	if st == nil {
		return out
	}
	if st.Background {
		end = false
		n := len(out)
		defer func() {
			for i := n; i < len(out); i++ {
				out[i].background = true
			}
		}()
	}
	all := func(stmts []*syntax.Stmt, end bool) {
		for i, s := range stmts {
			out = collect(out, s, masked, end && i == len(stmts)-1)
		}
	}
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		s := callSimple(x, st.Redirs, masked)
		s.end = end
		out = append(out, s)
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			s := pipeline(x)
			s.end = end
			out = append(out, s)
		default: // && and ||
			out = collectList(out, x, masked, end)
		}
	case *syntax.Subshell:
		all(x.Stmts, end)
	case *syntax.Block:
		all(x.Stmts, end)
	case *syntax.TimeClause:
		out = collect(out, x.Stmt, masked, end)
	case *syntax.IfClause:
		n := len(out)
		all(x.Cond, false)
		asked(out[n:])
		all(x.Then, end)
	case *syntax.WhileClause:
		n := len(out)
		all(x.Cond, false)
		asked(out[n:])
		all(x.Do, false)
	case *syntax.ForClause:
		all(x.Do, end) // the last round's status is the loop's
	case *syntax.DeclClause:
		argv := []string{x.Variant.Value}
		for _, a := range x.Args {
			argv = append(argv, assignString(a))
		}
		out = append(out, simple{argv: argv})
	}
	return out
}

// collectList appends the simple commands of a list of && and || to out,
// walking the list in a loop, as a long one would take the stack deep. A
// command followed, at any distance, by `||` is hidden from the line's
// status: `cmd || true` and `cmd || echo failed`, the a and b of `a && b
// || c`. Its fallback is what the operand after that `||` echoes.
func collectList(out []simple, b *syntax.BinaryCmd, masked, end bool) []simple {
	// The list in order, operands and operators between them: a stack of
	// what is left to read, a statement to open or an operator to note.
	type item struct {
		st *syntax.Stmt
		op syntax.BinCmdOperator
	}
	var stmts []*syntax.Stmt
	var ops []syntax.BinCmdOperator // ops[k] follows stmts[k]
	todo := []item{{st: b.Y}, {op: b.Op}, {st: b.X}}
	for len(todo) > 0 {
		it := todo[len(todo)-1]
		todo = todo[:len(todo)-1]
		if it.st == nil {
			ops = append(ops, it.op)
			continue
		}
		if x, ok := it.st.Cmd.(*syntax.BinaryCmd); ok && (x.Op == syntax.AndStmt || x.Op == syntax.OrStmt) &&
			!it.st.Background && !it.st.Negated && len(it.st.Redirs) == 0 {
			todo = append(todo, item{st: x.Y}, item{op: x.Op}, item{st: x.X})
			continue
		}
		stmts = append(stmts, it.st)
	}
	for k, st := range stmts {
		hidden, fallback := false, ""
		for j := k; j < len(ops); j++ {
			if ops[j] == syntax.OrStmt {
				hidden, fallback = true, echoed(stmts[j+1])
				break
			}
		}
		n := len(out)
		out = collect(out, st, masked, end && !hidden)
		if hidden {
			for i := n; i < len(out); i++ {
				out[i].ignored, out[i].fallback = true, fallback
			}
		}
	}
	return out
}

// asked marks the commands of a condition: their failure is an answer
// the line acts on, not hidden from it.
func asked(conds []simple) {
	for i := range conds {
		conds[i].end, conds[i].cond = true, true
	}
}

// echoed returns the text st prints when it is an echo or printf of
// literal words, or "".
func echoed(st *syntax.Stmt) string {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 {
		return ""
	}
	switch wordString(call.Args[0]) {
	case "echo", "printf":
	default:
		return ""
	}
	var words []string
	for _, w := range call.Args[1:] {
		if s := wordString(w); !strings.HasPrefix(s, "-") && !strings.Contains(s, "$") {
			words = append(words, s)
		}
	}
	return strings.TrimSpace(strings.Join(words, " "))
}

// pipeline returns the command of interest of a pipeline, with the programs
// of the stages after it as filters.
func pipeline(b *syntax.BinaryCmd) simple {
	var stages []*syntax.Stmt
	var add func(st *syntax.Stmt)
	add = func(st *syntax.Stmt) {
		if x, ok := st.Cmd.(*syntax.BinaryCmd); ok && (x.Op == syntax.Pipe || x.Op == syntax.PipeAll) {
			add(x.X)
			add(x.Y)
			return
		}
		stages = append(stages, st)
	}
	add(b.X)
	add(b.Y)
	first := 0
	if isFeeder(stages[0]) {
		first = 1
	}
	s := stageSimple(stages[first])
	for _, later := range stages[first+1:] {
		if l := stageSimple(later); len(l.argv) > 0 {
			s.filters = append(s.filters, l.argv)
			s.writes = append(s.writes, l.writes...)
		}
	}
	return s
}

// isFeeder reports whether a pipeline stage only feeds data to the next.
func isFeeder(st *syntax.Stmt) bool {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return false
	}
	switch wordString(call.Args[0]) {
	case "cat", "echo", "printf", "yes":
		return true
	}
	return false
}

// stageSimple returns the command of interest of one pipeline stage, which
// may be compound, like the `(cd x && make)` of `(cd x && make) | tail`.
func stageSimple(st *syntax.Stmt) simple {
	inner := collect(nil, st, true, false)
	if i := pickCommand(inner); i >= 0 {
		s := inner[i]
		s.masked = true
		return s
	}
	return simple{masked: true}
}

func callSimple(call *syntax.CallExpr, redirs []*syntax.Redirect, masked bool) simple {
	s := simple{masked: masked}
	for _, a := range call.Assigns {
		s.env = append(s.env, assignString(a))
	}
	for _, w := range call.Args {
		s.argv = append(s.argv, wordString(w))
	}
	for _, r := range redirs {
		switch r.Op {
		case syntax.RdrIn:
			if r.Word != nil {
				s.stdin = wordString(r.Word)
			}
		case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
			if r.Word != nil {
				if w := wordString(r.Word); w != "/dev/null" && !strings.HasPrefix(w, "&") {
					s.writes = append(s.writes, w)
				}
			}
		}
	}
	return s
}

// setupPrograms prepare for the command of a line rather than being it.
var setupPrograms = map[string]bool{
	"cd": true, "pushd": true, "popd": true, "source": true, ".": true,
	"export": true, "set": true, "unset": true, "alias": true, "ulimit": true,
	"umask": true, "true": true, ":": true, "echo": true, "printf": true,
	"sleep": true, "mkdir": true, "clear": true, "trap": true, "shopt": true,
	"wait": true, "declare": true, "local": true, "readonly": true, "typeset": true,
	"conda": true, "activate": true, "deactivate": true, "hash": true,
}

// pickCommand returns the index of the command of interest: the first that
// is not a setup step nor a cleanup before another (the killall of
// `killall app; ./app`), or else the first that is not a setup step, or
// else the first; -1 when there is none.
func pickCommand(simple []simple) int {
	first, cleaning := -1, -1
	for i, s := range simple {
		if len(s.argv) == 0 {
			continue
		}
		if first < 0 {
			first = i
		}
		prog := path.Base(s.argv[0])
		if prog == "conda" && len(s.argv) > 1 && s.argv[1] != "activate" && s.argv[1] != "deactivate" {
			return i
		}
		if setupPrograms[prog] || writesFile(s) {
			continue
		}
		if !cleanup(s.argv) {
			return i
		}
		if cleaning < 0 {
			cleaning = i
		}
	}
	if cleaning >= 0 {
		return cleaning
	}
	return first
}

// writesFile reports whether s only writes a file: `cat > x.py <<EOF`, the
// way agents create the script the line then runs.
func writesFile(s simple) bool {
	return len(s.argv) == 1 && path.Base(s.argv[0]) == "cat" && len(s.writes) > 0
}

// wordString returns the value of a shell word with its quotes removed.
// Expansions are kept as written: "$HOME/x" stays "$HOME/x".
func wordString(w *syntax.Word) string {
	var b strings.Builder
	for _, p := range w.Parts {
		writePart(&b, p, false)
	}
	return b.String()
}

func writePart(b *strings.Builder, p syntax.WordPart, quoted bool) {
	switch x := p.(type) {
	case *syntax.Lit:
		b.WriteString(unescape(x.Value, quoted))
	case *syntax.SglQuoted:
		b.WriteString(x.Value)
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			writePart(b, q, true)
		}
	default:
		b.WriteString(printNode(p))
	}
}

// unescape removes the backslashes the shell would remove from a literal.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			next := s[i+1]
			if next == '\n' {
				i++
				continue
			}
			if !quoted || strings.IndexByte("$`\"\\", next) >= 0 {
				i++
				b.WriteByte(next)
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func assignString(a *syntax.Assign) string {
	name := ""
	if a.Name != nil {
		name = a.Name.Value
	}
	if a.Value == nil {
		return name + "="
	}
	return name + "=" + wordString(a.Value)
}

func printNode(n syntax.Node) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return ""
	}
	return b.String()
}

var assignRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func isAssignment(s string) bool { return assignRE.MatchString(s) }

// skipOptions drops the leading options of a wrapper's arguments and
// returns the rest. Short options whose letter is in withValue, and long
// options named in longWithValue (space separated), take the next word
// unless their value is attached. "--" ends the options.
func skipOptions(args []string, withValue, longWithValue string) []string {
	var longs []string
	for _, l := range strings.Fields(longWithValue) {
		if name, ok := strings.CutPrefix(l, "--"); ok {
			longs = append(longs, name)
		} else if !strings.HasPrefix(l, "-") {
			longs = append(longs, l)
		}
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if !hasValue && slices.Contains(longs, name) {
				i++
			}
		case strings.HasPrefix(a, "-") && len(a) > 1:
			if strings.ContainsRune(withValue, rune(a[len(a)-1])) {
				i++
			}
		default:
			return args[i:]
		}
	}
	return nil
}

// splitSSH finds the host and the remote command of ssh's arguments.
func splitSSH(args []string) (host string, remote []string, ok bool) {
	const withValue = "BbcDEeFIiJLlmOopQRSWw"
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			continue
		}
		if strings.HasPrefix(a, "-") && len(a) > 1 {
			// Flags may be grouped (-tt, -vp 22); a letter taking a value
			// takes the rest of the word, or else the next word.
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(withValue, a[j]) >= 0 {
					if j == len(a)-1 {
						i++
					}
					break
				}
			}
			continue
		}
		if len(args[i+1:]) == 0 {
			return a, nil, false // an interactive login
		}
		return a, args[i+1:], true
	}
	return "", nil, false
}

// shellScript returns the script a shell runs with -c.
func shellScript(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			return "", false // a script file: identify treats it
		}
		if strings.HasPrefix(a, "--") {
			continue
		}
		if strings.Contains(a, "c") && i+1 < len(args) {
			return args[i+1], true
		}
		if strings.HasSuffix(a, "o") || strings.HasSuffix(a, "O") {
			i++ // -o pipefail
		}
	}
	return "", false
}

// splitExec finds the container and command of `docker exec` and
// `kubectl exec`.
func splitExec(prog string, args []string) (where string, rest []string, ok bool) {
	switch prog {
	case "docker", "podman":
		if len(args) < 2 || args[0] != "exec" {
			return "", nil, false
		}
		rest = skipOptions(args[1:], "euw", "env user workdir env-file detach-keys")
		if len(rest) < 2 {
			return "", nil, false
		}
		return prog + ":" + rest[0], rest[1:], true
	default: // kubectl, oc
		if len(args) < 2 || args[0] != "exec" {
			return "", nil, false
		}
		i := slices.Index(args, "--")
		if i < 0 || i+1 >= len(args) {
			return "", nil, false
		}
		pod := ""
		opts := skipOptions(args[1:i], "ncf", "namespace container context filename")
		if len(opts) > 0 {
			pod = opts[0]
		}
		return prog + ":" + pod, args[i+1:], true
	}
}
