package analyzer

import (
	"path"
	"regexp"
	"strings"
)

var pythonRE = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// subcommandTools are programs whose first non-option argument says what
// they do: `go test` and `go build` are different targets.
var subcommandTools = map[string]bool{
	"go": true, "cargo": true, "npm": true, "pnpm": true, "yarn": true, "bun": true,
	"deno": true, "git": true, "docker": true, "podman": true, "kubectl": true,
	"helm": true, "pip": true, "pip3": true, "uv": true, "poetry": true, "pdm": true,
	"apt": true, "apt-get": true, "brew": true, "gh": true, "terraform": true,
	"dotnet": true, "make": true, "gmake": true, "gradle": true, "gradlew": true,
	"mvn": true, "bazel": true, "systemctl": true, "conda": true, "rustup": true,
	"nix": true, "composer": true, "bundle": true, "rake": true, "mix": true,
	"swift": true, "just": true, "task": true, "cmake": true, "ollama": true,
	"huggingface-cli": true, "hf": true, "sglang": true, "vllm": true, "net": true,
	"netsh": true, "winget": true, "choco": true, "scoop": true, "wsl": true,
}

// launchers run a Python script given among their own options, whose
// arities are too many to list: the script is their first *.py argument.
var launchers = map[string]bool{
	"torchrun": true, "deepspeed": true, "accelerate": true, "mpirun": true,
	"srun": true, "horovodrun": true,
}

// optionValues lists, per tool, the options before the subcommand that take
// a value, so the value is not taken for the subcommand.
var optionValues = map[string]string{
	"git":       "-C -c --git-dir --work-tree --namespace",
	"go":        "-C",
	"make":      "-C -f -j -l -o -W --directory --file --jobs",
	"gmake":     "-C -f -j -l -o -W --directory --file --jobs",
	"cargo":     "--manifest-path --config -Z --color",
	"docker":    "-H -c --context --host --config --log-level",
	"kubectl":   "-n -c --namespace --context --kubeconfig --cluster --user -s --server",
	"helm":      "-n --namespace --kube-context --kubeconfig",
	"npm":       "--prefix -w --workspace",
	"pnpm":      "-C --dir --filter -F",
	"yarn":      "--cwd",
	"uv":        "--directory --project --python -p",
	"poetry":    "-C --directory -P --project",
	"mvn":       "-f -pl -P -D",
	"gradle":    "-p -b",
	"gradlew":   "-p -b",
	"systemctl": "-H -M --host --machine",
	"conda":     "-n --name -p --prefix",
}

// runners run the program named after them: `uv run pytest` runs pytest.
var runners = map[string]string{
	"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run",
	"rye": "run", "conda": "run", "npx": "", "bunx": "", "pnpx": "",
}

// identify names what argv runs and returns the arguments after that name.
func identify(argv []string) (target string, args []string) {
	return identifyDepth(argv, 0)
}

func identifyDepth(argv []string, depth int) (string, []string) {
	if len(argv) == 0 {
		return "", nil
	}
	prog := programName(argv[0])
	rest := argv[1:]
	if depth < maxDepth {
		if sub, ok := runners[prog]; ok {
			if r, ok := afterRunner(prog, sub, rest); ok {
				return identifyDepth(r, depth+1)
			}
		}
	}
	switch {
	case pythonRE.MatchString(prog) || prog == "py":
		return identifyPython(prog, rest, depth)
	case prog == "node" || prog == "tsx" || prog == "ts-node":
		return scriptTarget(prog, skipOptions(rest, "r", "require import loader"))
	case prog == "bun" && len(rest) > 0 && isScript(rest[0]):
		return scriptTarget(prog, rest)
	case launchers[prog]:
		for i, a := range rest {
			if strings.HasSuffix(a, ".py") {
				return path.Base(a), rest[i+1:]
			}
		}
		return prog, rest
	case prog == "deno" && len(rest) > 0 && rest[0] == "run":
		return scriptTarget(prog, skipOptions(rest[1:], "c", "config"))
	case prog == "bash" || prog == "sh" || prog == "zsh" || prog == "dash" || prog == "ksh":
		// A script file; `bash -c` was peeled before.
		return scriptTarget(prog, skipOptions(rest, "o", ""))
	case subcommandTools[prog]:
		return subcommandTarget(prog, rest)
	}
	return prog, rest
}

// afterRunner returns the command a runner runs: what follows `uv run`,
// or `npx [options]`.
func afterRunner(prog, sub string, args []string) ([]string, bool) {
	if sub != "" {
		opts := skipOptions(args, optionLetters(prog), optionValues[prog])
		if len(opts) == 0 || opts[0] != sub {
			return nil, false
		}
		args = opts[1:]
	}
	switch prog {
	case "conda":
		args = skipOptions(args, "np", "name prefix")
	case "npx", "bunx", "pnpx":
		args = skipOptions(args, "p", "package")
	default:
		args = skipOptions(args, "p", "python with")
	}
	return args, len(args) > 0
}

// identifyPython names what a Python interpreter runs: a script by its
// base name, a module as if run directly (`python -m pytest` is pytest),
// `python -c` code, or standard input.
func identifyPython(prog string, args []string, depth int) (string, []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-m" && i+1 < len(args):
			mod := append([]string{args[i+1]}, args[i+2:]...)
			if depth < maxDepth {
				return identifyDepth(mod, depth+1)
			}
			return args[i+1], args[i+2:]
		case strings.HasPrefix(a, "-m") && len(a) > 2:
			if depth < maxDepth {
				return identifyDepth(append([]string{a[2:]}, args[i+1:]...), depth+1)
			}
			return a[2:], args[i+1:]
		case a == "-c":
			if i+1 < len(args) {
				return "python -c", args[i+2:]
			}
			return "python -c", nil
		case a == "-":
			return "python -", args[i+1:]
		case a == "-W" || a == "-X":
			i++
		case strings.HasPrefix(a, "-"):
		case strings.HasPrefix(a, "$"):
			return "python", args[i:] // a script named by a variable
		default:
			return path.Base(a), args[i+1:]
		}
	}
	return "python", nil
}

// scriptTarget names a script by its base name, or the interpreter alone.
func scriptTarget(prog string, args []string) (string, []string) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return prog, args
	}
	return path.Base(args[0]), args[1:]
}

func isScript(s string) bool {
	switch path.Ext(s) {
	case ".js", ".mjs", ".cjs", ".ts", ".mts", ".tsx", ".jsx":
		return true
	}
	return false
}

// subcommandTarget names a tool with its subcommand: "go test",
// "npm run build", "make bench", or the tool alone when it has none.
func subcommandTarget(prog string, args []string) (string, []string) {
	if prog == "gradlew" || prog == "gmake" {
		prog = strings.TrimPrefix(prog, "g")
	}
	rest := skipOptions(args, optionLetters(prog), optionValues[prog])
	if prog == "make" {
		for len(rest) > 0 && isAssignment(rest[0]) {
			rest = rest[1:]
		}
	}
	if len(rest) == 0 {
		return prog, args
	}
	sub := rest[0]
	if strings.ContainsAny(sub, "/.") && prog != "make" && prog != "just" {
		return prog, args // a path, not a subcommand: `cargo ./x`
	}
	switch {
	case (prog == "npm" || prog == "pnpm" || prog == "yarn" || prog == "bun") && (sub == "run" || sub == "run-script") && len(rest) > 1:
		return prog + " run " + rest[1], rest[2:]
	case prog == "docker" && (sub == "compose" || sub == "buildx") && len(rest) > 1:
		return prog + " " + sub + " " + rest[1], rest[2:]
	case (prog == "uv" || prog == "conda" || prog == "poetry") && (sub == "pip" || sub == "env" || sub == "self") && len(rest) > 1:
		return prog + " " + sub + " " + rest[1], rest[2:]
	}
	return prog + " " + sub, rest[1:]
}

// optionLetters returns the short options of prog that take a value, as
// the letters skipOptions wants.
func optionLetters(prog string) string {
	var b strings.Builder
	for _, o := range strings.Fields(optionValues[prog]) {
		if len(o) == 2 && o[0] == '-' {
			b.WriteByte(o[1])
		}
	}
	return b.String()
}

// programName returns the name a program is known by: the base name of its
// path, Unix or Windows, without a ".exe".
func programName(p string) string {
	p = path.Base(strings.ReplaceAll(p, `\`, "/"))
	if strings.HasSuffix(strings.ToLower(p), ".exe") {
		p = p[:len(p)-4]
	}
	return p
}
