package diagnose

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/shell"
)

// Blamed returns the target of the command of cmd's line that the error
// names, when it is not the line's command of interest: the gpg of
// `op item get key | gpg --import` failing with "gpg: no valid OpenPGP
// data found", the cp of `killall app; cp app ~/bin` failing with "cp:
// cannot create regular file"; for a failure known by its exit status
// alone, the first command whose status the line can return, when the
// command of interest is none of them (the cp of `ps … | xargs kill -9;
// cp app ~/bin && echo ok`). It returns "" otherwise, and for a nil cmd.
func (d *Diagnosis) Blamed(cmd *shell.Command) string {
	if cmd == nil {
		return ""
	}
	prog := d.Program
	if d.culprit != "" {
		prog = d.culprit
	}
	if prog == "" {
		head, _, ok := strings.Cut(d.Message, ": ")
		if !ok || strings.ContainsAny(head, " /") {
			return statusBlamed(d, cmd)
		}
		prog = head
	}
	if prog == cmd.Program() {
		return ""
	}
	if slices.Contains(cmd.Filters, prog) {
		if d.Category == CommandNotFound {
			return "" // the agent runs the command again without the filter
		}
		return prog
	}
	for _, argv := range cmd.Others {
		if len(argv) > 0 && shell.ProgramName(argv[0]) == prog {
			t, _ := shell.Identify(argv)
			return t
		}
	}
	return ""
}

// statusBlamed returns the target of the first command that is not a
// setup step among those whose exit status the line can return, for a
// failure known by its status alone (its output says nothing) whose
// line's command of interest is not among them: that command's status
// was lost, the line's is another's. It returns "" otherwise.
func statusBlamed(d *Diagnosis, cmd *shell.Command) string {
	if d.Category != NonzeroExit || d.Message != d.Evidence || slices.Contains(cmd.Ends, cmd.Target) || exitsOnError(cmd) {
		return ""
	}
	for _, t := range cmd.Ends {
		word, _, _ := strings.Cut(strings.ToLower(t), "(")
		switch {
		case slices.Contains(cmd.Filters, t):
			return "" // the command's own pipeline ends the line: `git ls-tree … | grep x`
		case passesStatus[word]:
			return "" // `…; exit $LASTEXITCODE`, `… || false`: the status may be any command's
		case shell.IsSetup(t):
			continue
		case cmd.Other(t) == nil:
			return "" // the filter of another command: `…; journalctl -u app | tail`
		}
		return t
	}
	return ""
}

// passesStatus are the words that end a line with a status another
// command made: they pass it on (`exit $?`, `return`, `|| false`,
// `throw`) or decide on it (`if`, a loop, a test).
var passesStatus = map[string]bool{"exit": true, "return": true, "false": true, "throw": true,
	"if": true, "for": true, "foreach": true, "while": true, "until": true, "test": true, "[": true, "[[": true}

// exitsOnError reports whether the line stops at the first command that
// fails (`set -e`, `set -euo pipefail`, `set -o errexit`): its status is
// that command's.
func exitsOnError(cmd *shell.Command) bool {
	for _, argv := range cmd.Others {
		if len(argv) < 2 || argv[0] != "set" {
			continue
		}
		for k, a := range argv[1:] {
			if a == "errexit" && argv[k] == "-o" ||
				a != "-o" && strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "e") {
				return true
			}
		}
	}
	return false
}
