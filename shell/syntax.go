package shell

// The walk of a line's syntax tree: its simple commands in order, each
// with the pipeline stages after it, what hides its status, what it
// writes; and the pick of the command of interest among them.

import (
	"path"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/retrace-dev/retrace/internal/shparse"
)

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
	// input is the text a here-document or here-string gives its standard
	// input; inputAt holds its start and end in the line parsed, from
	// which simpleCommands takes it.
	input   string
	inputAt [2]uint
	delim   string // the word that ends the here-document
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
	for i := range out {
		if at := out[i].inputAt; at[0] < at[1] && at[1] <= uint(len(line)) {
			out[i].input = hereText(line[at[0]:at[1]], out[i].delim)
		}
	}
	return out
}

// hereText returns the text of a here-document without the line of its
// delimiter, which the parser counts in, or a here-string as written.
func hereText(s, delim string) string {
	if delim == "" {
		return s
	}
	if body, ok := strings.CutSuffix(s, delim); ok {
		s = strings.TrimRight(body, "\t")
	}
	return strings.TrimSuffix(s, "\n")
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
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			w := r.Hdoc
			if r.Op == syntax.WordHdoc {
				w = r.Word
			}
			if r.N == nil && w != nil && w.Pos().IsValid() && w.End().IsValid() {
				s.inputAt = [2]uint{w.Pos().Offset(), w.End().Offset()}
				s.delim = ""
				if r.Op != syntax.WordHdoc && r.Word != nil {
					s.delim = wordString(r.Word)
				}
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
		if !IsCleanup(s.argv) {
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
