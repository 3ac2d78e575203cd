package diagnose

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// matchUnexpanded recognizes a line whose command substitutions the shell
// printed as they were written, their variables emptied ("$(basename )"
// for `echo "$(basename $f)"`): the agent's own shell escaped the $( of
// the line, so that nothing it meant ran. Substitutions the line itself
// quotes or escapes ('$(date)', \$(date)) are meant to print as they are.
func matchUnexpanded(out string, cmd *shell.Command, _ bool) *Diagnosis {
	if cmd == nil || !strings.Contains(out, "$(") {
		return nil
	}
	for _, name := range substitutions(cmd.Line) {
		if i := strings.Index(out, "$("+name); i >= 0 {
			return &Diagnosis{Category: ShellSyntax, Message: termtext.Cut(strings.TrimSpace(lineAt(out, i)), 200) + " (the shell printed $(" + name + " …) instead of running it)"}
		}
	}
	return nil
}

// substitutions returns the programs of the $(…) command substitutions of
// a line that the shell would run: not in single quotes, not escaped.
func substitutions(line string) []string {
	var names []string
	single := false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && !single:
			i++
		case c == '\'':
			single = !single
		case !single && c == '$' && i+1 < len(line) && line[i+1] == '(' && (i+2 >= len(line) || line[i+2] != '('):
			j := i + 2
			for j < len(line) && (isWordByte(line[j])) {
				j++
			}
			if j > i+2 {
				names = append(names, line[i+2:j])
			}
		}
	}
	return names
}

func isWordByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.'
}

// lineAt returns the line of s that holds byte i.
func lineAt(s string, i int) string {
	start := strings.LastIndexByte(s[:i], '\n') + 1
	end := strings.IndexByte(s[i:], '\n')
	if end < 0 {
		return s[start:]
	}
	return s[start : i+end]
}

// backquotedRE finds the shell's complaint about a word it ran: a program
// it did not find, or a file it could not execute.
var backquotedRE = prefilter.MustCompile("(?m)^(?:\\S*sh: )?(?:line \\d+: )?([^\\s:]+): (?:command not found|Permission denied|No such file or directory)\\s*$")

// zshBackquotedRE finds zsh's complaint of the same: "(eval):1: command
// not found: parse".
var zshBackquotedRE = prefilter.MustCompile(`(?m)^(?:\S*sh|\(eval\)):\d+: (?:command not found|permission denied|no such file or directory): (\S+)\s*$`)

// matchBackquoted recognizes a line that quoted words in backquotes
// inside double quotes, as Markdown does (`git commit -m "Fix the
// `parse` helper"`): the shell ran each as a command, and complained of
// it. What the line meant as text was lost from it, whether or not its
// command then ran.
func matchBackquoted(out string, cmd *shell.Command, _ bool) *Diagnosis {
	if cmd == nil || !strings.Contains(cmd.Line, "`") {
		return nil
	}
	for _, m := range slices.Concat(backquotedRE.FindAllStringSubmatch(out, -1), zshBackquotedRE.FindAllStringSubmatch(out, -1)) {
		if strings.Contains(cmd.Line, "`"+m[1]) && doubleQuotedBackquote(cmd.Line, m[1]) {
			return &Diagnosis{Category: ShellSyntax, Message: termtext.Cut(strings.TrimSpace(m[0]), 200) + " (the shell ran `" + m[1] + "`, quoted in backquotes inside double quotes)"}
		}
	}
	return nil
}

// doubleQuotedBackquote reports whether line holds `word…` inside double
// quotes and outside single ones, where the shell substitutes it.
func doubleQuotedBackquote(line, word string) bool {
	single, double := false, false
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && !single:
			i++
		case c == '\'' && !double:
			single = !single
		case c == '"' && !single:
			double = !double
		case c == '`' && double && strings.HasPrefix(line[i+1:], word):
			return true
		}
	}
	return false
}
