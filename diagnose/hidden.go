package diagnose

import (
	"iter"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// A line whose exit status says it succeeded may still hold a failure that
// the status hides: `make || echo "build failed"` printing its fallback,
// the cp of `killall app; cp app ~/bin` that could not write, the git of
// `git diff main..x | head` that did not know the revision. hiddenFailure
// finds them in out, the output of cmd, once no rule has; nil if none.
func hiddenFailure(out string, cmd *shell.Command) *Diagnosis {
	if cmd.IsViewer() || cmd.AsksHelp() {
		return viewerFailed(out, cmd)
	}
	if d := fallbackRan(out, cmd); d != nil {
		return d
	}
	if d := otherCommandFailed(out, cmd); d != nil {
		return d
	}
	if d := pipFailed(out, cmd); d != nil {
		return d
	}
	// A program's last words are an error line; but a script whose status
	// the transcript does not record may print the error it caught and
	// go on (a reproduction of a bug): only the rules read its output.
	if cmd.Masked && !cmd.Ignored && (!cmd.IsUnrecorded() || !runsOwnCode(cmd)) {
		if m := lastErrorLine(out); m != "" {
			return &Diagnosis{Category: NonzeroExit, Message: m,
				Evidence: "an error line, " + cmd.HiddenStatus()}
		}
	}
	return nil
}

// pipErrorREs find the errors with which pip gives up, which do not name
// pip: a requirement it could not find or resolve, packages it could not
// install. The first names the failure best.
var pipErrorREs = []*prefilter.Regexp{
	prefilter.MustCompile(`(?m)^ERROR: No matching distribution found for .*$`),
	prefilter.MustCompile(`(?m)^ERROR: (?:Could not find a version that satisfies the requirement|Could not install packages due to|Invalid requirement:|Could not open requirements file:|ResolutionImpossible:|Cannot install) .*$`),
}

// pipFailed finds the error of a pip install whose status the line hides
// when it is not the output's last (`pip install erfa 2>&1; pip install
// --no-deps astropy` could not find erfa, and then installed astropy).
// Every pip install of the line must have its status hidden: an install
// the line expects may fail (`pip install a || pip install b`, `if ! pip
// install a`) prints errors that are no failure, and one whose status is
// the line's (`pip install a && …`) did not fail.
func pipFailed(out string, cmd *shell.Command) *Diagnosis {
	isPip := func(argv []string) bool {
		t := cmd.Peeled(argv).Target
		return t == "pip install" || t == "pip3 install"
	}
	installs, hidden := 0, 0
	if len(cmd.Argv) > 0 && isPip(cmd.Argv) {
		installs++
		if cmd.Masked && !cmd.Ignored && !cmd.Condition {
			hidden++
		}
	}
	for _, argv := range cmd.Others {
		if len(argv) > 0 && isPip(argv) {
			installs++
		}
	}
	for _, argv := range cmd.Hidden {
		if len(argv) > 0 && isPip(argv) {
			hidden++
		}
	}
	if hidden == 0 || hidden < installs {
		return nil
	}
	for _, re := range pipErrorREs {
		if msg := re.FindString(out); msg != "" {
			d := matchRules(msg, cmd, false, func(*rule) bool { return true }) // "…due to an OSError: [Errno 13] Permission denied"
			if d == nil {
				d = &Diagnosis{Category: NonzeroExit, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
			}
			d.Evidence = "pip reported an error the line's exit status hides"
			if cmd.IsUnrecorded() {
				d.Evidence = "pip reported an error, no exit status recorded"
			}
			return d
		}
	}
	return nil
}

// viewerFailed finds, in the output of a viewer whose status the line
// hides, the viewer's own error rather than the data it shows: a line in
// its own name ("cat: x: No such file or directory"), or git's "fatal:"
// before anything else.
func viewerFailed(out string, cmd *shell.Command) *Diagnosis {
	if !cmd.Masked || cmd.Ignored {
		return nil
	}
	msg := ""
	prog := cmd.Program()
	for _, m := range attributed(out, slices.Values([]string{prog})) {
		if out[m[2]:m[3]] == prog && failureWordRE.MatchString(out[m[4]:m[5]]) {
			msg = out[m[0]:m[1]]
			break
		}
	}
	if first := firstLine(out); msg == "" && prog == "git" && strings.HasPrefix(first, "fatal: ") {
		msg = first
	}
	if msg == "" {
		return nil
	}
	d := matchRules(msg, cmd, false, func(*rule) bool { return true })
	if d == nil {
		d = &Diagnosis{Category: NonzeroExit, Message: termtext.Cut(strings.TrimSpace(msg), 200)}
	}
	d.Evidence = prog + " reported an error, " + cmd.HiddenStatus()
	return d
}

// fallbackRan diagnoses a line whose `|| echo …` printed a text that says
// the command before it failed ("build failed"; not "not ready", the
// answer of a probe). A command run under timeout that printed no error of
// its own ran out of time.
func fallbackRan(out string, cmd *shell.Command) *Diagnosis {
	if cmd.Fallback == "" || !failureWordRE.MatchString(cmd.Fallback) {
		return nil
	}
	i := strings.LastIndex(out, cmd.Fallback)
	if i < 0 {
		return nil
	}
	before := out[:i]
	const why = "the fallback after || ran"
	if d := matchRules(before, cmd, false, func(*rule) bool { return true }); d != nil {
		d.Evidence += "; " + why
		return d
	}
	if cmd.Limit != "" {
		return &Diagnosis{Category: Timeout, Message: "killed by timeout " + cmd.Limit + " (the fallback after || ran)", Evidence: why + " under timeout " + cmd.Limit}
	}
	msg := failureLine(before)
	if msg == "" {
		msg = "failed: the fallback after || printed " + termtext.Cut(cmd.Fallback, 80)
	}
	return &Diagnosis{Category: NonzeroExit, Message: msg, Evidence: why}
}

// attributedRE finds lines in which a program names itself in an error:
// "cp: cannot create regular file …", "bash: line 1: cd: x: No such file
// or directory", zsh's "(eval):cd:1: no such file or directory: x".
var attributedRE = prefilter.MustCompile(`(?m)^(?:\S*sh: (?:line \d+: )?|\(eval\):)?([\w.+-]+)(?::\d+)?: (.+)$`)

// attributed returns attributedRE's matches in out, with their groups, of
// lines in which one of progs names itself. The expression has no literal
// to rule out a text by, and most outputs name none of the line's
// programs: a program names itself only if its name and a colon are in out.
func attributed(out string, progs iter.Seq[string]) [][]int {
	for p := range progs {
		if p != "" && strings.Contains(out, p+":") {
			return attributedRE.FindAllStringSubmatchIndex(out, -1)
		}
	}
	return nil
}

// otherCommandFailed finds an error that another command of the line
// printed under its own name, which the line's status hides: the command
// of interest when its own status is hidden too, or any other command of
// the line.
func otherCommandFailed(out string, cmd *shell.Command) *Diagnosis {
	progs := lineProgramsArgv(cmd)
	if len(progs) == 0 {
		return nil
	}
	for _, m := range attributed(out, maps.Keys(progs)) {
		prog := out[m[2]:m[3]]
		argv, ok := progs[prog]
		if !ok {
			continue
		}
		sub := cmd.Sub(argv)
		rest := out[m[0]:]
		d := matchRules(rest, sub, false, func(*rule) bool { return true })
		if d == nil {
			if !failureWordRE.MatchString(out[m[4]:m[5]]) {
				continue
			}
			d = &Diagnosis{Category: NonzeroExit, Message: termtext.Cut(strings.TrimSpace(out[m[0]:m[1]]), 200)}
		}
		d.Evidence = prog + " reported an error the line's exit status hides"
		d.culprit = prog
		return d
	}
	return nil
}

// lineProgramsArgv maps the programs of the line whose failure its status
// may hide to their command words: the command of interest when its status
// is hidden, and the line's other commands, but those it expects may fail.
// A program that runs a cleanup step too is left out: its error may be
// that step's.
func lineProgramsArgv(cmd *shell.Command) map[string][]string {
	progs := make(map[string][]string)
	skip := make(map[string]bool)
	add := func(argv []string) {
		p := path.Base(argv[0])
		if shell.IsCleanup(argv) || shell.IsSetup(p) && p != "cd" && p != "mkdir" && p != "sleep" && p != "source" {
			skip[p] = true
		} else {
			progs[p] = argv
		}
	}
	for _, argv := range cmd.Hidden {
		if len(argv) > 0 {
			add(argv)
		}
	}
	// The command of interest's own status is the line's unless hidden;
	// but a line of several commands that says it succeeded while its
	// command reported an error has said too little.
	several := len(cmd.Others) > 0 || len(cmd.Filters) > 0
	if len(cmd.Argv) > 0 {
		if (cmd.Masked || several) && !cmd.Ignored && !cmd.Condition {
			add(cmd.Argv)
		} else if shell.IsCleanup(cmd.Argv) {
			skip[path.Base(cmd.Argv[0])] = true
		}
	}
	for p := range skip {
		delete(progs, p)
	}
	return progs
}

// errorLineRE finds the lines with which programs report that they gave
// up: git's "fatal:", "error:" in any case at the start of a line,
// apt's "E:", systemctl's "Failed to restart x.service: …".
var errorLineRE = prefilter.MustCompile(`(?m)^(?:(?:fatal|error|Error|ERROR|FATAL|E)(?:\[\w+\])?: |Failed to (?:start|stop|restart|reload|enable|disable|connect|open|load|create|find|get|run|execute|bind|resolve) ).*$`)

// lastErrorLine returns the error line among the last lines of out, where
// a program that gave up reports it, cut to 200 runes; or "".
func lastErrorLine(out string) string {
	lines := strings.Split(strings.TrimRight(out, " \t\r\n"), "\n")
	n := 0
	for i := len(lines) - 1; i >= 0 && n < 3; i-- {
		l := strings.TrimSpace(lines[i])
		if l == "" {
			continue
		}
		n++
		if errorLineRE.MatchString(l) && !strings.HasPrefix(l, pipConflictNote) {
			return termtext.Cut(l, 200)
		}
	}
	return ""
}

// pipConflictNote starts pip's report of installed packages whose
// requirements the install broke: it installed them all the same.
const pipConflictNote = "ERROR: pip's dependency resolver does not currently take into account"
