package shell

import (
	"cmp"
	"regexp"
	"slices"
	"strings"
	"unicode"
)

// Wrappers: commands that run another command, given as their arguments
// (sudo, env, timeout, nohup, nice …) or as a script (ssh host 'cmd', bash
// -c, powershell -Command, docker and kubectl exec). Parse peels them
// until what remains is the command of interest.

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
				c.Hidden = append(c.Hidden, s.argv)
			}
		}
		if j != i && s.input != "" {
			c.OtherInputs = append(c.OtherInputs, s.input)
		}
		c.Writes = append(c.Writes, s.writes...)
	}
	s := simple[i]
	c.Input = cmp.Or(s.input, c.Input) // a wrapper's input goes on to the command it runs
	c.Env = append(c.Env, s.env...)
	firstFilter := "" // the stage that hides the exit status
	for j, argv := range s.filters {
		// A stage may be wrapped too: `| sudo tee`, `| powershell '…'`.
		stage := &Command{Argv: argv}
		stage.peel(depth + 1)
		t, _ := Identify(stage.Argv)
		if t != "" {
			c.Filters = append(c.Filters, t)
		}
		if j == 0 {
			firstFilter = cmp.Or(t, ProgramName(argv[0]))
		}
	}
	c.Masked = c.Masked || s.masked || s.ignored || !s.end
	c.Ignored = c.Ignored || s.ignored
	switch {
	case c.hiddenBy != "":
	case len(s.filters) > 0:
		c.hiddenBy = "| " + firstFilter
	case s.ignored:
		c.hiddenBy = "|| …"
	case s.background:
		c.hiddenBy = "&"
	case !s.end:
		c.hiddenBy = "the commands after it"
	}
	c.Fallback = s.fallback
	c.Condition = s.cond
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
	t, _ := Identify(st.Argv)
	return []string{t}
}

// peel replaces c.Argv by the command a wrapper runs, as long as it is one.
func (c *Command) peel(depth int) {
	for len(c.Argv) > 0 {
		before := c.Argv
		prog := ProgramName(c.Argv[0]) // bash for C:\Program Files\Git\usr\bin\bash.exe
		if prog == "timeout" && strings.HasSuffix(strings.ToLower(c.Argv[0]), ".exe") {
			return // Windows' timeout.exe waits; it runs nothing
		}
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
			c.wrapped(before[:len(before)-len(remote)])
			if depth < maxDepth {
				c.reparse(strings.Join(remote, " "), depth+1)
			}
			return
		case "bash", "sh", "zsh", "dash", "ksh", "fish":
			script, ok := shellScript(args)
			if !ok {
				return
			}
			c.wrapped(wordsBefore(before, script))
			if depth < maxDepth {
				c.reparse(script, depth+1)
			}
			return
		case "powershell", "powershell.exe", "pwsh", "pwsh.exe", "cmd", "cmd.exe":
			script, ok := windowsScript(args)
			if !ok {
				return
			}
			c.wrapped(wordsBefore(before, script))
			c.windows(script, prog == "cmd" || prog == "cmd.exe")
			if len(c.Argv) == 0 || !strings.EqualFold(c.Argv[0], "Start-Process") && !strings.EqualFold(c.Argv[0], "saps") {
				return
			}
			started, ok := startProcess(c.Argv[1:])
			if !ok {
				return
			}
			// Start-Process -Wait returns once the program has ended, but
			// not with its status.
			c.wrapped(c.Argv[:1])
			c.Argv, c.changes = started, ""
			c.Masked, c.hiddenBy = true, "Start-Process"
			continue // peel what it starts: `Start-Process bash.exe -ArgumentList "-c", "make" -Wait`
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
		c.wrapped(before[:len(before)-len(c.Argv)])
	}
}

// startProcess returns the command a PowerShell Start-Process with the
// arguments args starts and waits for (-Wait): its -FilePath (or first
// positional argument), then its -ArgumentList (or second). It reports
// false when no program is named, or when the call does not wait: the
// program then runs on after it, and the call tells nothing of its end.
func startProcess(args []string) ([]string, bool) {
	var file string
	var list []string
	wait, positional := false, 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		name := strings.ToLower(strings.TrimPrefix(a, "-"))
		switch {
		case !strings.HasPrefix(a, "-"): // a positional argument
			switch positional++; positional {
			case 1:
				file = a
			case 2:
				list, i = argumentList(args, i)
			}
		case len(name) >= 2 && (strings.HasPrefix("filepath", name) || name == "path" || name == "pspath"):
			if i+1 < len(args) {
				i++
				file = args[i]
			}
		case len(name) >= 2 && strings.HasPrefix("argumentlist", name) || name == "args":
			if i+1 < len(args) {
				list, i = argumentList(args, i+1)
			}
		case name == "wait" || name == "wait:$true":
			wait = true
		case startSwitches[name]:
		default:
			i++ // -Verb RunAs, -WorkingDirectory C:\src, -WindowStyle Hidden
		}
	}
	if file == "" || !wait {
		return nil, false
	}
	return append([]string{file}, list...), true
}

// startSwitches are the parameters of Start-Process, other than -Wait,
// that take no value.
var startSwitches = map[string]bool{"nonewwindow": true, "passthru": true,
	"loaduserprofile": true, "usenewenvironment": true, "noprofile": true}

// argumentList returns the words of the PowerShell list that starts at
// args[i] (`"-c", "make all"`, `'-c','make all'`, `@('-c','make all')`,
// or one string of them, `'-NoProfile -Command Get-Service'`), and the
// index of its last word in args. The script's words have lost their
// quotes, so a comma within an item cannot be told from one between
// items: a word is cut at the commas before its first space only
// (`-c,echo a,b` is `-c` and `echo a,b`; `/i x.msi ADDLOCAL=A,B` one item).
func argumentList(args []string, i int) ([]string, int) {
	var items []string
	for ; i < len(args); i++ {
		w := args[i]
		more := strings.HasSuffix(w, ",") || i+1 < len(args) && strings.HasPrefix(args[i+1], ",")
		if inner, ok := strings.CutPrefix(w, "@("); ok {
			items = append(items, quotedItems(strings.TrimSuffix(inner, ")"))...)
		} else {
			items = append(items, commaItems(strings.Trim(w, ","))...)
		}
		if !more {
			break
		}
	}
	if len(items) == 1 {
		items = commandLineWords(items[0])
	}
	return items, min(i, len(args)-1)
}

// commaItems cuts w at the commas before its first space.
func commaItems(w string) []string {
	var items []string
	for {
		comma := strings.IndexByte(w, ',')
		space := strings.IndexFunc(w, unicode.IsSpace)
		if comma < 0 || space >= 0 && space < comma {
			break
		}
		if comma > 0 {
			items = append(items, w[:comma])
		}
		w = w[comma+1:]
	}
	if w != "" {
		items = append(items, w)
	}
	return items
}

// quotedItems returns the items of the inside of a PowerShell array,
// `'-c','make a,b'`, which keeps its quotes: it is cut at the commas
// outside them, and each item's own quotes are dropped.
func quotedItems(list string) []string {
	return splitUnquoted(list, func(r rune) bool { return r == ',' })
}

// commandLineWords splits a command line on the white space outside its
// quotes, which are dropped: `/i "C:\My Files\x.msi" /qn` is three words.
func commandLineWords(s string) []string {
	return splitUnquoted(s, unicode.IsSpace)
}

// splitUnquoted cuts s at the runes sep matches outside quotes, drops the
// quotes, and returns the pieces that are not empty, trimmed of white
// space.
func splitUnquoted(s string, sep func(rune) bool) []string {
	var pieces []string
	var b strings.Builder
	end := func() {
		if p := strings.TrimSpace(b.String()); p != "" {
			pieces = append(pieces, p)
		}
		b.Reset()
	}
	var quote rune
	for _, r := range s {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote == 0 && (r == '"' || r == '\''):
			quote = r
		case quote == 0 && sep(r):
			end()
		default:
			b.WriteRune(r)
		}
	}
	end()
	return pieces
}

// wrapped records the words of a wrapper peeled (see Command.Wrappers),
// without the NAME=value settings among them, which Env holds.
func (c *Command) wrapped(words []string) {
	var b strings.Builder
	for _, w := range words {
		if isAssignment(w) {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	c.Wrappers = append(c.Wrappers, b.String())
}

// wordsBefore returns the words of a wrapper's argv before the script it
// runs: up to the first word, after the program, with which script
// begins; all of argv when none does.
func wordsBefore(argv []string, script string) []string {
	for i := 1; i < len(argv); i++ {
		if argv[i] != "" && strings.HasPrefix(script, argv[i]) {
			return argv[:i]
		}
	}
	return argv
}

// reparse replaces the command by the one found in a nested command line.
func (c *Command) reparse(line string, depth int) {
	c.Argv = nil
	c.parse(line, depth)
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
