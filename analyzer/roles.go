package analyzer

import (
	"regexp"
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/parser"
)

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
var diagnosticTargets = map[string]bool{
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

var healthURLRE = regexp.MustCompile(`(?i)/(?:health\w*|ready\w*|readyz|livez|healthz|ping|status|v1/models|get_model_info)\b`)

// role says what call k, between a failure and its fix, did.
func (a *sessionAnalysis) role(k int) Role {
	c := a.s.Calls[k]
	switch c.Kind {
	case parser.KindRead, parser.KindSearch, parser.KindWeb:
		return Diagnostic
	case parser.KindEdit, parser.KindWrite:
		return EditRole
	case parser.KindShell:
		return shellRole(a.cmds[k])
	}
	return OtherRole
}

func shellRole(cmd *Command) Role {
	prog, target := cmd.Program(), cmd.Target
	switch {
	case prog == "":
		return OtherRole
	case edits(cmd):
		return EditRole
	case asksHelp(cmd):
		return Diagnostic
	case prog == "sleep" || prog == "wait" || polls(cmd):
		return Wait
	case (prog == "curl" || prog == "wget") && slices.ContainsFunc(cmd.Filters, func(f string) bool { return f == "sh" || f == "bash" || f == "zsh" }):
		return Environment // curl … | sh installs something
	case environmentTargets[target] || environmentTargets[prog]:
		return Environment
	case (prog == "sed" || prog == "perl") && !cmd.HasArg("-i", "-pi", "-i.bak"):
		return Diagnostic
	case diagnosticTargets[target] || diagnosticTargets[prog] || looks(cmd):
		return Diagnostic
	case prog == "curl" || prog == "wget" || prog == "nc":
		return Diagnostic
	}
	return OtherRole
}

// edits reports whether a command changes a file in place or writes one
// from a here-document or echo.
func edits(cmd *Command) bool {
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
func polls(cmd *Command) bool {
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
func editedFiles(c *parser.Call, cmd *Command) []string {
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
