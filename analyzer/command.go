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
	// command's: it is piped into a filter or followed by `|| true`;
	// Ignored, that it is the latter: the line chose to go on whatever
	// happened.
	Masked, Ignored bool
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
	return c
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
	c.Masked = c.Masked || s.masked || s.ignored
	c.Ignored = c.Ignored || s.ignored
	c.Argv = s.argv
	c.peel(depth)
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
				rest = rest[1:] // the duration
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
			c.Argv = windowsWords(script)
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
	argv    []string
	env     []string
	filters [][]string // the later stages of its pipeline
	masked  bool       // piped into a filter
	ignored bool       // followed by `|| …`
	writes  []string
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
		return []simple{{argv: unparsedArgv(line)}}
	}
	var out []simple
	for _, st := range f.Stmts {
		out = collect(out, st, false)
	}
	return out
}

// unparsedArgv returns the words of a line the shell cannot parse that
// still name its program: those before the first quote, substitution or
// operator, whose meaning cannot be known.
func unparsedArgv(line string) []string {
	fields := strings.Fields(line)
	for i, w := range fields {
		if strings.ContainsAny(w, "'\"`$(){};|&<>\\") {
			if i == 0 {
				return []string{strings.Trim(w, "'\"`")}
			}
			return fields[:i]
		}
	}
	return fields
}

// collect appends the simple commands of st to out. masked reports that
// st's exit status is hidden from the line's.
func collect(out []simple, st *syntax.Stmt, masked bool) []simple {
	if st == nil {
		return out
	}
	all := func(stmts []*syntax.Stmt) {
		for _, s := range stmts {
			out = collect(out, s, masked)
		}
	}
	switch x := st.Cmd.(type) {
	case *syntax.CallExpr:
		out = append(out, callSimple(x, st.Redirs, masked))
	case *syntax.BinaryCmd:
		switch x.Op {
		case syntax.Pipe, syntax.PipeAll:
			out = append(out, pipeline(x))
		case syntax.OrStmt:
			// `cmd || true` and `cmd || echo failed` hide cmd's status.
			n := len(out)
			out = collect(out, x.X, masked)
			for i := n; i < len(out); i++ {
				out[i].ignored = true
			}
			out = collect(out, x.Y, masked)
		default:
			out = collect(out, x.X, masked)
			out = collect(out, x.Y, masked)
		}
	case *syntax.Subshell:
		all(x.Stmts)
	case *syntax.Block:
		all(x.Stmts)
	case *syntax.TimeClause:
		out = collect(out, x.Stmt, masked)
	case *syntax.IfClause:
		all(x.Cond)
		all(x.Then)
	case *syntax.WhileClause:
		all(x.Cond)
		all(x.Do)
	case *syntax.ForClause:
		all(x.Do)
	case *syntax.DeclClause:
		argv := []string{x.Variant.Value}
		for _, a := range x.Args {
			argv = append(argv, assignString(a))
		}
		out = append(out, simple{argv: argv})
	}
	return out
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
	inner := collect(nil, st, true)
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
// is not a setup step, or else the first, or -1 when there is none.
func pickCommand(simple []simple) int {
	first := -1
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
		if !setupPrograms[prog] && !writesFile(s) {
			return i
		}
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

// windowsScript returns the command PowerShell (-Command, -c, or the first
// word) or cmd.exe (/c, /k) runs.
func windowsScript(args []string) (string, bool) {
	for i := 0; i < len(args); i++ {
		a := strings.ToLower(args[i])
		switch {
		case a == "-command" || a == "-c" || a == "/c" || a == "/k":
			if i+1 < len(args) {
				return strings.Join(args[i+1:], " "), true
			}
			return "", false
		case a == "-file" || a == "-executionpolicy" || a == "-windowstyle":
			i++
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "/"):
		default:
			return strings.Join(args[i:], " "), true
		}
	}
	return "", false
}

// windowsWords splits the first command of a PowerShell or cmd.exe script
// into words, honouring quotes: its first pipeline stage, without the
// call operator "&".
func windowsWords(script string) []string {
	var words []string
	var b strings.Builder
	var quote rune
	inWord := false
	for _, r := range script {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				b.WriteRune(r)
			}
			continue
		case r == '"' || r == '\'':
			quote = r
			inWord = true
			continue
		case r == '|' || r == ';':
			if inWord {
				words = append(words, b.String())
			}
			return dropCallOperator(words)
		case r == ' ' || r == '\t' || r == '\n':
			if inWord {
				words = append(words, b.String())
				b.Reset()
				inWord = false
			}
			continue
		}
		b.WriteRune(r)
		inWord = true
	}
	if inWord {
		words = append(words, b.String())
	}
	return dropCallOperator(words)
}

func dropCallOperator(words []string) []string {
	if len(words) > 0 && (words[0] == "&" || words[0] == ".") {
		return words[1:]
	}
	return words
}
