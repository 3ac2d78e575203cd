package analyzer

import (
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/diagnose"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

var healthURLRE = regexp.MustCompile(`(?i)/(?:health\w*|ready\w*|readyz|livez|healthz|ping|status|v1/models|get_model_info)\b`)

// role says what call k, between a failure and its fix, did.
func (a *sessionAnalysis) role(k int) Role {
	c := a.s.Calls[k]
	switch c.Kind {
	case parser.KindRead, parser.KindSearch, parser.KindWeb:
		return RoleDiagnostic
	case parser.KindEdit, parser.KindWrite:
		return RoleEdit
	case parser.KindShell:
		return shellRole(a.cmds[k])
	}
	if diagnose.RunsCode(c) && setupCell(c.Args["code"]) {
		// `%pip install x` or `!apt-get install -y x`: the shell
		// commands the cell runs say what it did.
		for l := range strings.Lines(c.Args["code"]) {
			if l = strings.TrimSpace(l); l != "" && l[0] != '#' {
				if r := shellRole(shell.Parse(l[1:])); r != RoleOther {
					return r
				}
			}
		}
	}
	return RoleOther
}

func shellRole(cmd *shell.Command) Role {
	prog := cmd.Program()
	switch {
	case prog == "":
		return RoleOther
	case edits(cmd):
		return RoleEdit
	case cmd.AsksHelp():
		return RoleDiagnostic
	case prog == "sleep" || prog == "wait" || polls(cmd):
		return RoleWait
	case (prog == "curl" || prog == "wget") && slices.ContainsFunc(cmd.Filters, func(f string) bool { return f == "sh" || f == "bash" || f == "zsh" }):
		return RoleEnvironment // curl … | sh installs something
	case cmd.ChangesEnvironment():
		return RoleEnvironment
	case (prog == "sed" || prog == "perl") && !cmd.HasArg("-i", "-pi", "-i.bak"):
		return RoleDiagnostic
	case cmd.Inspects() || cmd.Looks():
		return RoleDiagnostic
	case prog == "curl" || prog == "wget" || prog == "nc":
		return RoleDiagnostic
	}
	return RoleOther
}

// edits reports whether a command changes a file in place or writes one
// from a here-document or echo.
func edits(cmd *shell.Command) bool {
	prog := cmd.Program()
	switch {
	case (prog == "sed" || prog == "perl") && slices.ContainsFunc(cmd.Args, func(a string) bool {
		return a == "-i" || strings.HasPrefix(a, "-i") || a == "-pi" || strings.HasPrefix(a, "--in-place")
	}):
		return true
	case prog == "patch" || cmd.Target == "git apply" || cmd.Target == "git am":
		return true
	case (prog == "cat" || prog == "echo" || prog == "printf" || prog == "tee") && len(cmd.Writes) > 0:
		return true
	case prog == "tee" && len(cmd.Args) > 0:
		return true
	}
	return false
}

// polls reports whether a command checks that a service is up: a health
// URL, or a sleep before the command.
func polls(cmd *shell.Command) bool {
	prog := cmd.Program()
	if prog != "curl" && prog != "wget" && prog != "nc" && prog != "http" {
		return false
	}
	if healthURLRE.MatchString(strings.Join(cmd.Args, " ")) || (prog == "nc" && cmd.HasArg("-z")) {
		return true
	}
	return slices.ContainsFunc(cmd.Others, func(o []string) bool { return o[0] == "sleep" })
}

// editedFiles returns the files a call changed: an edit tool's file, the
// files of sed -i and patch, the targets of echo/cat/tee redirections.
func editedFiles(c *parser.Call, cmd *shell.Command) []string {
	if cmd == nil {
		if (c.Kind == parser.KindEdit || c.Kind == parser.KindWrite) && c.File != "" {
			return []string{c.File}
		}
		return nil
	}
	if !edits(cmd) {
		return nil
	}
	files := slices.Clone(cmd.Writes)
	switch cmd.Program() {
	case "sed", "perl":
		// sed [-i] [-e SCRIPT | SCRIPT] FILE...: the script is the first
		// word unless -e gives it.
		script := false
		for i := 0; i < len(cmd.Args); i++ {
			switch a := cmd.Args[i]; {
			case a == "-e" || a == "-f" || a == "--expression" || a == "--file":
				script = true
				i++
			case strings.HasPrefix(a, "-"):
			case !script:
				script = true
			default:
				files = append(files, a)
			}
		}
	case "patch":
		_, words := splitArgs(cmd.Args, false)
		files = append(files, words...)
	}
	return files
}
