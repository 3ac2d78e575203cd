package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/agnivade/levenshtein"
	"github.com/alecthomas/kong"
	"github.com/willabides/kongplete"
)

type helpCmd struct {
	Command []string `arg:"" optional:"" help:"The command to explain; with none, retrace itself."`
}

// Run prints the help of the command named, as --help does.
func (c *helpCmd) Run(ctx *kong.Context) error {
	if len(c.Command) > 0 && commandNamed(ctx.Kong, c.Command[0]) == "" {
		meant, _ := mistypedCommand(ctx.Kong, c.Command[:1])
		if meant != "" {
			return usageError(fmt.Sprintf("help: unknown command %q; did you mean %q?", c.Command[0], meant))
		}
		return usageError(fmt.Sprintf("help: unknown command %q (the commands: %s)", c.Command[0], strings.Join(commandNames(ctx.Kong), ", ")))
	}
	_, err := ctx.Kong.Parse(append(c.Command, "--help"))
	return err
}

type versionCmd struct{}

// Run prints retrace's version, as --version does.
func (versionCmd) Run(env *Env) error {
	_, err := fmt.Fprintln(env.Stdout, versionString())
	return err
}

type completionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell to complete in (${enum})."`
}

// Run prints the shell code that has the shell ask retrace for the
// completions of its command line: retrace answers when the shell sets
// COMP_LINE (see answerCompletion).
func (c *completionCmd) Run(env *Env) error {
	// Where a name is not completed, the shell's own completion of
	// file names takes over: PATH arguments are files.
	var code string
	switch c.Shell {
	case "bash":
		code = `# Add to ~/.bashrc: eval "$(retrace completion bash)"
complete -o default -C retrace retrace
`
	case "zsh":
		code = `# Add to ~/.zshrc: eval "$(retrace completion zsh)"
autoload -U +X bashcompinit && bashcompinit
complete -o default -C retrace retrace
`
	case "fish":
		code = `# Add to ~/.config/fish/config.fish: retrace completion fish | source
function __retrace_complete
    set -lx COMP_LINE (commandline -cp)
    test -z (commandline -ct); and set COMP_LINE "$COMP_LINE "
    retrace
end
complete -c retrace -a '(__retrace_complete)'
`
	}
	_, err := io.WriteString(env.Stdout, code)
	return err
}

// answerCompletion answers the shell's request for completions, when COMP_LINE
// says there is one, and reports whether it did.
func answerCompletion(k *kong.Kong) (answered bool) {
	if os.Getenv("COMP_LINE") == "" {
		return false
	}
	kongplete.Complete(k, kongplete.WithExitFunc(func(int) { answered = true }))
	return answered
}

// mistypedCommand returns an error when the first argument of a command
// line, which kong takes for a path of the default command, is rather a
// command misspelled (`retrace pair x`) or a word that is neither a command
// nor a file, with the command it was likely meant for, if any. Nil when
// it names a command or a file, or when there is no such argument.
func mistypedCommand(k *kong.Kong, args []string) (meant string, err error) {
	bools := map[string]bool{}
	for _, f := range k.Model.Flags {
		if f.IsBool() {
			bools["--"+f.Name] = true
			if f.Short != 0 {
				bools["-"+string(f.Short)] = true
			}
		}
	}
	for len(args) > 0 && bools[args[0]] {
		args = args[1:]
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") || strings.ContainsAny(args[0], `./\*?~:`) {
		return "", nil
	}
	word := args[0]
	if commandNamed(k, word) != "" {
		return "", nil
	}
	if _, err := os.Stat(word); err == nil {
		return "", nil
	}
	names := commandNames(k)
	bestDist := 3
	for _, n := range names {
		if d := levenshtein.ComputeDistance(word, n); d < bestDist || (d == bestDist && strings.HasPrefix(n, word)) {
			meant, bestDist = n, d
		}
	}
	if meant != "" {
		return meant, usageError(fmt.Sprintf("unknown command %q; did you mean %q?", word, meant))
	}
	return "", usageError(fmt.Sprintf("%q is neither a command nor a file or directory (the commands: %s)", word, strings.Join(names, ", ")))
}

// commandNames returns the names and aliases of retrace's commands.
func commandNames(k *kong.Kong) []string {
	var names []string
	for _, n := range k.Model.Children {
		if !n.Hidden {
			names = append(names, n.Name)
			names = append(names, n.Aliases...)
		}
	}
	return names
}

// commandNamed returns name when it names one of retrace's commands, or "".
func commandNamed(k *kong.Kong, name string) string {
	if slices.Contains(commandNames(k), name) {
		return name
	}
	return ""
}
