package shell

import (
	"path"
	"regexp"
	"strings"
)

// What a command does, as the analysis asks it: whether it only shows data,
// only looks, changes the environment, prepares or cleans up, or asks for
// help. The tables name targets and programs (see Command.Target and
// Command.Program).

// Programs whose output is data: an error message in what they print is
// not theirs.
var viewers = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true,
	"egrep": true, "fgrep": true, "zgrep": true, "rg": true, "ag": true, "ack": true,
	"sed": true, "awk": true, "jq": true, "yq": true, "find": true, "ls": true,
	"echo": true, "printf": true, "diff": true, "git log": true, "git show": true,
	"git diff": true, "git grep": true, "journalctl": true, "docker logs": true,
	"kubectl logs": true, "wc": true, "sort": true, "uniq": true, "strings": true,
	"xxd": true, "od": true, "tree": true, "nl": true, "bat": true, "column": true,
	"dmesg": true,
}

// Targets that change the environment: install, create, export, restart.
var environmentTargets = map[string]bool{
	"pip install": true, "pip3 install": true, "pip uninstall": true, "uv pip install": true,
	"uv add": true, "uv sync": true, "uv venv": true, "poetry install": true, "poetry add": true,
	"npm install": true, "npm i": true, "npm ci": true, "pnpm install": true, "pnpm add": true,
	"pnpm i": true, "yarn install": true, "yarn add": true, "bun install": true, "bun add": true,
	"apt install": true, "apt-get install": true, "apt update": true, "apt-get update": true,
	"brew install": true, "conda install": true, "conda create": true, "go get": true,
	"go install": true, "go mod": true, "cargo add": true, "cargo install": true,
	"rustup target": true, "rustup component": true, "rustup toolchain": true,
	"git clone": true, "git checkout": true, "git switch": true, "git pull": true,
	"git fetch": true, "git stash": true, "git submodule": true, "git reset": true,
	"docker start": true, "docker restart": true, "docker run": true, "docker pull": true,
	"docker compose up": true, "docker compose restart": true, "systemctl start": true,
	"systemctl restart": true, "systemctl enable": true, "huggingface-cli download": true,
	"hf download": true, "ollama pull": true, "make install": true,
	"export": true, "mkdir": true, "ln": true, "chmod": true, "chown": true, "touch": true,
	"cp": true, "mv": true, "rm": true, "kill": true, "pkill": true, "killall": true,
	"source": true, "wget": true, "unzip": true, "tar": true, "pipx": true, "nvm": true,
	"virtualenv": true, "venv": true, "fuser": true,
}

// Targets that only look: at files, processes, the machine.
var inspectTargets = map[string]bool{
	"cat": true, "head": true, "tail": true, "less": true, "more": true, "grep": true,
	"egrep": true, "rg": true, "ag": true, "ack": true, "awk": true, "ls": true,
	"find": true, "fd": true, "wc": true, "file": true, "stat": true, "which": true,
	"whereis": true, "type": true, "tree": true, "du": true, "df": true, "free": true,
	"ps": true, "pgrep": true, "lsof": true, "netstat": true, "ss": true, "top": true,
	"htop": true, "nvidia-smi": true, "env": true, "printenv": true, "pwd": true,
	"whoami": true, "id": true, "uname": true, "hostname": true, "jq": true, "diff": true,
	"cmp": true, "xxd": true, "od": true, "hexdump": true, "strings": true, "readlink": true,
	"realpath": true, "man": true, "git status": true, "git log": true, "git diff": true,
	"git show": true, "git grep": true, "git blame": true, "git branch": true,
	"docker ps": true, "docker logs": true, "docker inspect": true, "docker images": true,
	"kubectl get": true, "kubectl describe": true, "kubectl logs": true, "journalctl": true,
	"systemctl status": true, "pip show": true, "pip list": true, "pip freeze": true,
	"pip3 show": true, "pip3 list": true, "go version": true, "go env": true,
	"go doc": true, "go list": true, "npm ls": true, "npm view": true, "python -c": true,
	"nl": true, "bat": true, "dmesg": true, "date": true, "sort": true, "uniq": true,
}

// IsViewer reports whether the command's output is data, not its own
// words: an error message in what cat, grep or git log print is not
// theirs.
func (cmd *Command) IsViewer() bool {
	return viewers[cmd.Target] || viewers[cmd.Program()]
}

// Inspects reports whether the command only looks: at files, processes,
// the machine (ls, ps, git status, nvidia-smi).
func (cmd *Command) Inspects() bool {
	return inspectTargets[cmd.Target] || inspectTargets[cmd.Program()]
}

// Looks reports whether the command's target only looks at things: a
// viewer, a program that inspects, a PowerShell Get- or Test- cmdlet.
// Unlike IsViewer and Inspects, it reads the target alone.
func (cmd *Command) Looks() bool {
	t := cmd.Target
	return viewers[t] || inspectTargets[t] || strings.HasPrefix(t, "Get-") || strings.HasPrefix(t, "Test-")
}

// ChangesEnvironment reports whether the command installs, exports,
// creates or restarts something (pip install, export, mkdir, docker
// restart).
func (cmd *Command) ChangesEnvironment() bool {
	return environmentTargets[cmd.Target] || environmentTargets[cmd.Program()]
}

// AsksHelp reports whether a command only asks for its usage or version.
// A lone -h counts; among other arguments it often means something else
// (df -h, sort -h).
func (cmd *Command) AsksHelp() bool {
	if cmd.HasArg("--help", "-help") {
		return true
	}
	if len(cmd.Args) != 1 {
		return false
	}
	switch cmd.Args[0] {
	case "-h", "help", "--version", "-V":
		return true
	}
	return false
}

// IsCleanup reports whether argv, the words of a simple command, removes
// or stops something, which a line may do on the chance that it is there:
// `uci delete x; uci add …`, `rm -f out.log; make`.
func IsCleanup(argv []string) bool {
	switch path.Base(argv[0]) {
	case "rm", "rmdir", "unlink", "kill", "killall", "pkill":
		return true
	}
	if len(argv) > 1 {
		switch argv[1] {
		case "delete", "del", "remove", "rm", "rmi", "kill", "stop", "unset", "uninstall", "unload", "disable":
			return true
		}
	}
	return false
}

// RunsPython reports whether the command runs the Python interpreter: a
// script, a module or -c.
func (cmd *Command) RunsPython() bool {
	if len(cmd.Argv) == 0 {
		return false
	}
	prog := ProgramName(cmd.Argv[0])
	return pythonRE.MatchString(prog) || prog == "py" || strings.HasSuffix(cmd.Target, ".py")
}

// IsSetup reports whether a program prepares for the command of a line
// rather than being it: cd, export, source, sleep, mkdir …
func IsSetup(prog string) bool { return setupPrograms[prog] }

// IsFlag reports whether a word is a flag: a dash and more, but not a
// negative number ("-1", "-0.5").
func IsFlag(s string) bool { return len(s) > 1 && s[0] == '-' && !isNumber(s) }

var numberRE = regexp.MustCompile(`^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$`)

func isNumber(s string) bool { return numberRE.MatchString(s) }
