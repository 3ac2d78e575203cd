package shell

import (
	"path"
	"slices"
	"strings"
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
	// Wrappers are the wrappers peeled to reach the command, outermost
	// first, each as its words up to the command or script it runs:
	// "ssh root@10.0.0.1", "sudo -u app", "cmd.exe /c", "timeout 30".
	Wrappers []string

	// Argv is the command of interest, program first.
	Argv []string
	// Target names what is being run: the script however the interpreter
	// is spelled ("benchmark_eagle3.py"), the module of python -m, a
	// build or task tool with its subcommand ("go test", "npm run build"),
	// or a plain program's base name ("ls"); a PowerShell cmdlet that
	// gets objects with the method the script changes them by
	// ("Get-WmiObject .SetTcpipNetbios()").
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
	// Condition reports that the command is the condition of an if or a
	// loop: its failure is an answer the line acts on.
	Condition bool
	// Hidden are the other commands of the line whose failure its status
	// hides and that the line does not expect to fail: not followed by
	// `|| …`, not a condition.
	Hidden [][]string
	// Ends names the commands whose failure can be the line's exit
	// status, in order: the last one, and those at which a failing `&&`
	// chain stops; each by the target of its last pipeline stage, wrappers
	// peeled ("grep" for `ssh host 'ps | grep x'`; only "cp" for `killall
	// app; cp app ~/bin`).
	Ends []string
	// Writes lists the files the line's redirections write, other than
	// /dev/null.
	Writes []string
	// Input is the text a here-document or here-string gives the command
	// on its standard input: the script of `python3 - <<'EOF'`. OtherInputs
	// are those of the line's other commands, in order: the file `cat >
	// t.py <<'EOF'` writes before `python t.py` runs it.
	Input       string
	OtherInputs []string
	// Others are the other simple commands of the line, program first, in
	// order: the `cd dir` of `cd dir && make`, the `sleep 5` of
	// `sleep 5; curl …`.
	Others [][]string

	// hiddenBy says what hides the command's exit status, when Masked.
	hiddenBy string
	// stdin is the file redirected to the command's standard input.
	stdin string
	// changes names the method by which a PowerShell script changes the
	// objects its look gets (see changedBy), or "".
	changes string
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

// Other returns the command of the line, other than its command of
// interest, whose target is target; nil if none.
func (c *Command) Other(target string) *Command {
	for _, argv := range c.Others {
		if t, _ := Identify(argv); t == target {
			return c.Sub(argv)
		}
	}
	return nil
}

// Sub returns argv, the words of another simple command of the line (one
// of Others, Hidden, Argv), as a Command of the same line and host, its
// target identified. Only its Line, Host, Argv, Target and Args are set.
func (c *Command) Sub(argv []string) *Command {
	t, args := Identify(argv)
	return &Command{Line: c.Line, Host: c.Host, Argv: argv, Target: t, Args: args}
}

// Peeled is Sub of the command argv's wrappers run: `pip install numpy`
// for `sudo pip install numpy`.
func (c *Command) Peeled(argv []string) *Command {
	w := &Command{Argv: argv}
	w.peel(0)
	return c.Sub(w.Argv)
}

// MaskedBy says what hides the command's exit status when Masked: "|
// tail", "&", "the commands after it"; "|| …" by default.
func (c *Command) MaskedBy() string {
	if c.hiddenBy != "" {
		return c.hiddenBy
	}
	return "|| …"
}

// unrecorded is the hiddenBy of a command whose transcript records no
// exit status.
const unrecorded = "the transcript"

// Unrecorded returns a copy of c whose exit status is hidden, as a line's
// is by a filter, for a call whose transcript records none: its output is
// the only evidence of how it ended.
func (c *Command) Unrecorded() *Command {
	u := *c
	if !u.Masked {
		u.Masked, u.hiddenBy = true, unrecorded
	}
	return &u
}

// IsUnrecorded reports whether c is a copy made by Unrecorded.
func (c *Command) IsUnrecorded() bool { return c.hiddenBy == unrecorded }

// HiddenStatus says, for evidence, why the exit status does not tell the
// command's outcome when Masked: "exit status hidden by | tail", or "no
// exit status recorded".
func (c *Command) HiddenStatus() string {
	if c.IsUnrecorded() {
		return "no exit status recorded"
	}
	return "exit status hidden by " + c.MaskedBy()
}

// Runs reports whether the line runs target, as its command of interest
// or as another of its commands: `pip install mkdocs && mkdocs build`
// runs mkdocs.
func (c *Command) Runs(target string) bool {
	if c.Target == target || slices.Contains(c.Filters, target) {
		return true
	}
	for _, argv := range c.Others {
		if t, _ := Identify(argv); t == target {
			return true
		}
	}
	return false
}

// Parse reads a shell command line. It never fails: a line the shell
// parser rejects, or one too long or nested too deep for it (see
// internal/shparse), is split on white space.
func Parse(line string) *Command {
	c := &Command{Line: line}
	c.parse(line, 0)
	c.Target, c.Args = Identify(c.Argv)
	c.Target = patchTarget(c)
	if c.changes != "" && c.Looks() {
		// `Get-WmiObject … | ForEach-Object { $_.SetTcpipNetbios(2) }`
		// changes what it gets: a look at the same objects is no retry.
		c.Target += " ." + c.changes + "()"
	}
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
