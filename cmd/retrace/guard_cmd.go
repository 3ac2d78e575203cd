package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/internal/guard"
)

type guardCmd struct {
	Agent     string        `default:"auto" enum:"auto,claude-code,codex,gemini" help:"The agent that runs the guard (${enum}); auto recognizes it from the payload."`
	Store     string        `placeholder:"FILE" help:"The lessons that retrace learn keeps (default: $XDG_DATA_HOME/retrace/lessons.jsonl); the guard's state of each transcript is kept in the folder sessions beside it."`
	Timeout   time.Duration `default:"5s" help:"Let the call go on, unchecked, when there is no answer after this long."`
	Install   string        `placeholder:"AGENT" help:"Print the hook configuration that runs the guard for AGENT (claude-code, codex, gemini); with --write, add it to the agent's settings file."`
	Uninstall string        `placeholder:"AGENT" help:"Remove the hooks that run the guard from AGENT's settings file (with --write; without, say which file)."`
	Project   bool          `help:"With --install or --uninstall: the settings of the project in the current folder, not the user's."`
	Write     bool          `help:"With --install or --uninstall: change the settings file, keeping the old one as FILE.bak."`
}

// guardStatus is the exit status the guard answers with: 2 blocks the
// call.
type guardStatus int

func (s guardStatus) Error() string { return fmt.Sprintf("exit status %d", int(s)) }

// Run answers one hook payload on standard input: it exits 2, with the
// reason on standard error, to block a call that repeats a corrected
// mistake, and prints context after a failed call for the agent to read.
// Anything that goes wrong lets the call go on: the guard then exits 0,
// with one line on standard error. With --install or --uninstall, it sets
// the hooks up instead.
func (c *guardCmd) Run(g *Globals, env *Env) error {
	if c.Install != "" || c.Uninstall != "" {
		return c.setup(g, env)
	}
	if status := c.answer(g, env); status != 0 {
		return guardStatus(status)
	}
	return nil
}

// answer answers the payload on standard input and returns the exit
// status.
func (c *guardCmd) answer(g *Globals, env *Env) int {
	type answer struct {
		out    []byte
		reason string
		status int
		err    error
	}
	done := make(chan answer, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- answer{err: fmt.Errorf("internal error: %v", r)}
			}
		}()
		b, err := io.ReadAll(io.LimitReader(env.Stdin, guard.MaxPayload+1))
		if err != nil {
			done <- answer{err: err}
			return
		}
		agent := strings.TrimPrefix(c.Agent, "auto")
		p, err := guard.ReadPayload(b, agent)
		if err != nil {
			done <- answer{err: err}
			return
		}
		store := storePath(c.Store, env)
		if store == "" {
			done <- answer{err: errNoStore}
			return
		}
		reply, err := guard.Guard{Store: guard.Store{Path: store}}.Handle(p)
		out, reason, status := p.Answer(reply)
		done <- answer{out, reason, status, err}
	}()
	var a answer
	select {
	case a = <-done:
	case <-time.After(c.Timeout):
		a.err = fmt.Errorf("no answer after %s", c.Timeout)
	}
	if a.err != nil && !g.Quiet {
		say(env.Stderr, "retrace guard: %v; the call goes on", a.err)
	}
	env.Stdout.Write(a.out)
	io.WriteString(env.Stderr, a.reason)
	return a.status
}

// setup prints the hook configuration, or writes it into the agent's
// settings file or removes it from there.
func (c *guardCmd) setup(g *Globals, env *Env) error {
	agent := c.Install + c.Uninstall
	if c.Install != "" && c.Uninstall != "" {
		return usageError("--install and --uninstall cannot be given together")
	}
	if !slices.Contains(guard.Agents, agent) {
		return usageError(fmt.Sprintf("unknown agent %q (%s)", agent, strings.Join(guard.Agents, ", ")))
	}
	file := guard.SettingsFile(agent, c.Project, env.Getenv("HOME"), env.Getenv("CODEX_HOME"))
	command := "retrace guard --agent " + agent
	if c.Store != "" {
		command += " --store " + shellQuote(c.Store)
	}
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	var settings []byte
	changed := true
	if c.Install != "" {
		if !c.Write {
			old = nil
		}
		settings, changed, err = guard.Install(old, agent, command)
	} else {
		settings, changed, err = guard.Uninstall(old)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", file, err)
	}
	return c.save(g, env, file, old, settings, changed)
}

// save writes the settings to file with --write, and says what it did;
// without --write, it prints the configuration to add.
func (c *guardCmd) save(g *Globals, env *Env, file string, old, settings []byte, changed bool) error {
	switch {
	case !c.Write && c.Install != "":
		env.Stdout.Write(settings)
		say(env.Stderr, "retrace: add this to %s, or run again with --write", file)
	case !c.Write:
		say(env.Stderr, "retrace: run again with --write to remove the hooks that run the guard from %s", file)
	case !changed && c.Install != "":
		say(env.Stderr, "retrace: %s already runs the guard", file)
	case !changed:
		say(env.Stderr, "retrace: no hook in %s runs the guard", file)
	default:
		backup, err := guard.Save(file, old, settings)
		if err != nil {
			return err
		}
		if !g.Quiet {
			msg := "retrace: wrote " + file
			if backup != "" {
				msg += " (the previous one is " + backup + ")"
			}
			say(env.Stderr, "%s", msg)
		}
	}
	return nil
}

// errNoStore says that there is no folder to keep the store in.
var errNoStore = errors.New("neither $XDG_DATA_HOME nor $HOME is an absolute path: name the store with --store")

// storePath returns the store the --store flag names, or the default one;
// "" when there is none.
func storePath(flag string, env *Env) string {
	if flag != "" {
		return flag
	}
	return guard.DefaultStore(env.Getenv)
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
