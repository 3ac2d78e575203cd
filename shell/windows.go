package shell

import (
	"regexp"
	"strings"
)

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

// windows sets the command of a PowerShell or cmd.exe script: the first
// statement that is not a setup step (cd, an assignment), its later
// pipeline stages as filters, and the last stage of the last statement as
// the one whose status the line's is.
func (c *Command) windows(script string, cmd bool) {
	stmts := windowsStatements(script, cmd)
	assigned := make([]string, len(stmts)) // the variable each statement's cmdlet is assigned to
	for i, st := range stmts {
		// `$prefs = Get-MpPreference` runs Get-MpPreference; `$x =
		// 'true'` runs nothing.
		if len(st) > 0 && len(st[0]) > 2 && strings.HasPrefix(st[0][0], "$") && st[0][1] == "=" && cmdletRE.MatchString(st[0][2]) {
			assigned[i] = st[0][0][1:]
			st[0] = st[0][2:]
		}
	}
	pick := -1
	for i, st := range stmts {
		if len(st) == 0 || len(st[0]) == 0 {
			continue
		}
		if pick < 0 {
			pick = i
		}
		if !windowsSetup(st[0]) {
			pick = i
			break
		}
	}
	if pick < 0 {
		c.Argv = nil
		return
	}
	for i, st := range stmts {
		if i != pick && len(st) > 0 && len(st[0]) > 0 {
			c.Others = append(c.Others, st[0])
		}
	}
	st := stmts[pick]
	c.Argv = st[0]
	for _, stage := range st[1:] {
		if len(stage) > 0 {
			c.Filters = append(c.Filters, stage[0])
		}
	}
	if !cmd && len(c.Argv[0]) > 4 && strings.EqualFold(c.Argv[0][:4], "Get-") {
		var pipeline []string
		for _, stage := range st {
			pipeline = append(pipeline, stage...)
		}
		c.changes = changedBy(strings.Join(pipeline, " "), script, assigned[pick])
	}
	last := stmts[len(stmts)-1]
	for len(last) > 0 && len(last[len(last)-1]) == 0 {
		last = last[:len(last)-1]
	}
	if len(last) > 0 {
		c.Ends = []string{last[len(last)-1][0]}
	}
}

// changedBy returns the first method by which a PowerShell script changes
// the objects its look gets, or "": one called on $_ or $PSItem within the
// look's pipeline (`ForEach-Object { $_.SetTcpipNetbios(2) }`), or, in the
// script, on the variable the look is assigned to or on a foreach
// variable over that one (`foreach ($a in $adapters) {
// $a.SetTcpipNetbios(2) }`). Methods that only read (`$_.StartsWith('x')`)
// or change another object (`$list.Add($_)`) do not count.
func changedBy(pipeline, script, assigned string) string {
	if m := changingCall(pipeline, map[string]bool{"_": true, "psitem": true}); m != "" {
		return m
	}
	if assigned == "" {
		return ""
	}
	objects := map[string]bool{strings.ToLower(assigned): true}
	for _, m := range foreachRE.FindAllStringSubmatch(script, -1) {
		if strings.EqualFold(m[2], assigned) {
			objects[strings.ToLower(m[1])] = true
		}
	}
	return changingCall(script, objects)
}

// changingCall returns the first changing method text calls on one of the
// variables objects names (lower-case, without the $), or "".
func changingCall(text string, objects map[string]bool) string {
	for _, m := range methodCallRE.FindAllStringSubmatch(text, -1) {
		if objects[strings.ToLower(m[1])] && changingRE.MatchString(m[2]) {
			return m[2]
		}
	}
	return ""
}

var (
	methodCallRE = regexp.MustCompile(`\$(\w+)\.(\w+)\s*\(`)
	foreachRE    = regexp.MustCompile(`(?i)foreach\s*\(\s*\$(\w+)\s+in\s+\$(\w+)\s*\)`)
	// changingRE matches the names WMI and .NET give methods that
	// change the object they are called on.
	changingRE = regexp.MustCompile(`^(?:Set[A-Z]\w*|Enable\w*|Disable\w*|Delete|Terminate|Kill|Start|Stop|StartService|StopService|PauseService|ResumeService|ChangeStartMode|Rename|Put|Install|Uninstall|Reset|Create)$`)
)

// cmdletRE matches the name of a PowerShell cmdlet: Verb-Noun.
var cmdletRE = regexp.MustCompile(`^[A-Z][a-z]+-[A-Za-z]+$`)

// windowsSetup reports whether a PowerShell or cmd.exe command only
// prepares for the script's command: changes the directory, sets a
// variable, waits.
func windowsSetup(argv []string) bool {
	w := strings.ToLower(argv[0])
	if strings.HasPrefix(w, "$") {
		return true // an assignment, or an expression on what one holds
	}
	switch w {
	case "cd", "chdir", "set-location", "sl", "pushd", "push-location", "set",
		"start-sleep", "import-module", "clear", "cls":
		return true
	}
	return false
}

// windowsStatements splits a PowerShell or cmd.exe script into statements,
// each a list of pipeline stages, each a list of words, honouring quotes
// and keeping script blocks, subexpressions and indexes whole. Statements
// are separated by ";", "&&", "||" and line breaks, and, for cmd.exe, by a
// lone "&" (in PowerShell the call operator, which is dropped).
func windowsStatements(script string, cmd bool) [][][]string {
	var stmts [][][]string
	var stages [][]string
	var words []string
	var b strings.Builder
	inWord := false
	endWord := func() {
		if inWord {
			words = append(words, b.String())
			b.Reset()
			inWord = false
		}
	}
	endStage := func() {
		endWord()
		if len(words) > 0 && (words[0] == "&" || words[0] == ".") {
			words = words[1:]
		}
		stages = append(stages, dropRedirections(words, cmd))
		words = nil
	}
	endStmt := func() {
		endStage()
		if len(stages) > 1 || len(stages[0]) > 0 {
			stmts = append(stmts, stages)
		}
		stages = nil
	}
	depth := 0
	var quote byte
	for i := 0; i < len(script); i++ {
		ch := script[i]
		switch {
		case quote != 0:
			if ch == quote {
				quote = 0
				if depth > 0 {
					b.WriteByte(ch)
				}
				continue
			}
			if ch == '`' && quote == '"' && i+1 < len(script) && !cmd {
				i++
				ch = script[i]
			}
			b.WriteByte(ch)
			continue
		case ch == '"' || ch == '\'':
			quote = ch
			inWord = true
			if depth > 0 {
				b.WriteByte(ch)
			}
			continue
		case ch == '`' && !cmd && i+1 < len(script):
			i++
			b.WriteByte(script[i])
			inWord = true
			continue
		case ch == '(' || ch == '{' || ch == '[':
			depth++
		case ch == ')' || ch == '}' || ch == ']':
			if depth > 0 {
				depth--
			}
		case depth > 0:
		case ch == ' ' || ch == '\t' || ch == '\r':
			endWord()
			continue
		case ch == ';' || ch == '\n':
			endStmt()
			continue
		case ch == '|' || ch == '&':
			if i+1 < len(script) && script[i+1] == ch {
				i++
				endStmt()
				continue
			}
			if ch == '|' {
				endStage()
				continue
			}
			if cmd {
				endStmt()
				continue
			}
		}
		b.WriteByte(ch)
		inWord = true
	}
	endStmt()
	return stmts
}

// windowsRedirRE matches a redirection of PowerShell or cmd.exe, its
// target attached or not: 2>&1, *>$null, >>log.txt, 2>, >nul.
var windowsRedirRE = regexp.MustCompile(`^[0-9*]?>>?(.*)$`)

// dropRedirections returns the words of a stage without its redirections
// and their targets, which are not arguments of the command; cmd.exe's
// input redirection (< file) too.
func dropRedirections(words []string, cmd bool) []string {
	out := words[:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		m := windowsRedirRE.FindStringSubmatch(w)
		if m == nil && cmd && strings.HasPrefix(w, "<") {
			m = []string{w, w[1:]}
		}
		if m == nil {
			out = append(out, w)
			continue
		}
		if m[1] == "" {
			i++ // the target is the next word
		}
	}
	return out
}
