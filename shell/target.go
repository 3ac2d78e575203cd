package shell

import (
	"path"
	"regexp"
	"slices"
	"strings"
)

var pythonRE = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// rubyVersionRE matches the version RubyGems' executables take first:
// `bundle _2.3.26_ install`.
var rubyVersionRE = regexp.MustCompile(`^_\d[\w.]*_$`)

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
	"swift": true, "just": true, "task": true, "cmake": true, "ollama": true, "gem": true,
	"huggingface-cli": true, "hf": true, "sglang": true, "vllm": true, "net": true,
	"netsh": true, "winget": true, "choco": true, "scoop": true, "wsl": true,
	"lake": true,
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

// runners run the program named after them: `uv run pytest` runs pytest,
// Lean's `lake env lean x.lean` runs lean.
var runners = map[string]string{
	"uv": "run", "poetry": "run", "pipenv": "run", "pdm": "run", "hatch": "run",
	"rye": "run", "conda": "run", "npx": "", "bunx": "", "pnpx": "", "lake": "env",
}

// Identify names what argv, the words of a simple command, runs (its
// target; see Command.Target) and returns the arguments after that name.
func Identify(argv []string) (target string, args []string) {
	return identifyDepth(argv, 0)
}

func identifyDepth(argv []string, depth int) (string, []string) {
	if len(argv) == 0 {
		return "", nil
	}
	prog := ProgramName(argv[0])
	rest := argv[1:]
	if strings.Contains(argv[0], "/init.d/") {
		// A service's init script, not the program it starts:
		// /etc/init.d/nginx restart.
		return "init.d/" + prog, rest
	}
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
	case (prog == "ruby" || prog == "jruby") && len(rest) > 1 && rest[0] == "-S" && depth < maxDepth:
		return identifyDepth(rest[1:], depth+1) // `jruby -S gem install x` runs gem
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
	switch prog {
	case "gradlew":
		prog = "gradle" // the project's wrapper of gradle
	case "gmake":
		prog = "make"
	}
	rest := skipOptions(args, optionLetters(prog), optionValues[prog])
	if prog == "make" {
		for len(rest) > 0 && isAssignment(rest[0]) {
			rest = rest[1:]
		}
	}
	if (prog == "bundle" || prog == "gem") && len(rest) > 0 && rubyVersionRE.MatchString(rest[0]) {
		rest = rest[1:] // `bundle _2.3.26_ install` runs that version's install
	}
	if len(rest) == 0 {
		return prog, args
	}
	sub := rest[0]
	if strings.ContainsAny(sub, "/.") && prog != "make" && prog != "just" {
		return prog, args // a path, not a subcommand: `cargo ./x`
	}
	switch {
	case prog == "cargo" && sub == "run":
		return cargoRunTarget(rest[1:])
	case prog == "go" && sub == "run":
		return goRunTarget(rest[1:])
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

// ProgramName returns the name a program is known by: the base name of its
// path, Unix or Windows, without a ".exe".
func ProgramName(p string) string {
	p = path.Base(strings.ReplaceAll(p, `\`, "/"))
	if strings.HasSuffix(strings.ToLower(p), ".exe") {
		p = p[:len(p)-4]
	}
	return p
}

// The targets of `cargo run` and `go run` are the programs they build, so
// that the flags after them, which belong to the program, are its
// arguments: a retry's corrected flags are compared with the failure's,
// and a lesson names the program. Their arguments come first, then the
// tool's own options (`--release`, `-race`), which a retry may change too;
// the "--" between is dropped.

// cargoRunValues are the options of cargo run that take a value.
var cargoRunValues = []string{"--bin", "-p", "--package", "--example", "-F", "--features", "--target",
	"--target-dir", "--manifest-path", "--profile", "-j", "--jobs", "--color", "--config", "-Z",
	"--message-format", "--lockfile-path"}

// cargoRunTarget names what `cargo run` runs: the binary of --bin or
// --example, else the package of -p, else "cargo run" (the package in the
// working directory, whose name the line does not say).
func cargoRunTarget(args []string) (string, []string) {
	var bin, pkg string
	var opts, prog []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			prog = args[i+1:]
			break
		}
		name, value, attached := strings.Cut(a, "=")
		if !attached && slices.Contains(cargoRunValues, a) && i+1 < len(args) {
			i++
			value, attached = args[i], true
		}
		switch {
		case attached && (name == "--bin" || name == "--example"):
			bin = value
		case attached && (name == "-p" || name == "--package"):
			pkg = value
		case attached && !strings.Contains(a, "="):
			opts = append(opts, a, value)
		default:
			opts = append(opts, a)
		}
	}
	target := "cargo run"
	if bin != "" {
		target = bin
	} else if pkg != "" {
		target = pkg
	}
	return target, slices.Concat(prog, opts)
}

// goRunValues are the build flags of go run that take a value.
var goRunValues = []string{"-exec", "-tags", "-ldflags", "-gcflags", "-asmflags", "-mod", "-modfile",
	"-overlay", "-p", "-pgo", "-pkgdir", "-toolexec", "-buildmode", "-compiler", "-installsuffix",
	"-coverpkg", "-covermode", "-C"}

// goRunTarget names what `go run` runs: the last element of the package's
// path (`./cmd/server`, `./cmd/server/main.go` and
// `golang.org/x/tools/cmd/stringer@latest` name server and stringer), a
// single file other than main.go by its name, else "go run" (the package
// in the working directory, or files of it).
func goRunTarget(args []string) (string, []string) {
	var opts []string
	i := 0
	for ; i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-"; i++ {
		opts = append(opts, args[i])
		name := strings.TrimPrefix(args[i], "-") // -flag and --flag are one
		if !strings.Contains(name, "=") && slices.Contains(goRunValues, "-"+strings.TrimPrefix(name, "-")) && i+1 < len(args) {
			i++
			opts = append(opts, args[i])
		}
	}
	var files []string
	for ; i < len(args) && strings.HasSuffix(args[i], ".go"); i++ {
		files = append(files, args[i])
	}
	target, pkg := "go run", ""
	switch {
	case len(files) == 1:
		dir, file := path.Split(strings.TrimPrefix(files[0], "./"))
		if dir == "" {
			if file != "main.go" {
				target = file
			}
			break
		}
		pkg = dir
	case len(files) > 1:
	case i < len(args):
		pkg = args[i]
		i++
	}
	if pkg != "" {
		pkg, _, _ = strings.Cut(pkg, "@")
		if base := path.Base(strings.TrimSuffix(pkg, "/")); base != "." && base != "/" && base != "..." {
			target = base
		}
	}
	return target, slices.Concat(args[i:], opts)
}

// InContainer returns the command a `docker run` or `podman run` runs in
// its container, or nil when cmd is not one or names no command.
func (cmd *Command) InContainer() *Command {
	if cmd.Target != "docker run" && cmd.Target != "podman run" {
		return nil
	}
	rest := skipOptions(cmd.Args, "eEvpwuhmlc", "env env-file volume publish workdir user name hostname "+
		"network net gpus shm-size ipc entrypoint device runtime platform mount cpus memory label "+
		"add-host cap-add cap-drop security-opt ulimit pid log-driver log-opt restart tmpfs pull")
	if len(rest) < 2 {
		return nil
	}
	return cmd.Sub(rest[1:]) // after the image
}
