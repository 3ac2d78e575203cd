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
// cannot create regular file". It returns "" otherwise, and for a nil
// cmd.
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
			return ""
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
