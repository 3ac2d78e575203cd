package analyzer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/retrace-dev/retrace/parser"
)

// A step is one call of a test session: a shell command with its exit code
// and output, or another tool when tool is set.
type step struct {
	cmd  string
	exit int
	out  string
	tool string // "Edit", "Read", …; "" for Bash
	file string
	side string // sidechain
	args map[string]string
	// status is the call's status ("no-result"); its exit code is then
	// unknown.
	status string
	// same puts the call in the message of the call before it, made with
	// it in one response.
	same bool
}

// session builds a session whose calls are one second apart, one per
// message unless a step is marked same, with ids c1, c2, …
func session(steps ...step) *parser.Session {
	s := &parser.Session{Path: "t.jsonl", Format: "claude-code", ID: "s"}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	msg := -2
	for i, st := range steps {
		if !st.same {
			msg += 2
		}
		tool := st.tool
		if tool == "" {
			tool = "Bash"
		}
		c := &parser.Call{
			Ordinal: i + 1, Msg: msg, ID: fmt.Sprintf("c%d", i+1),
			Tool: tool, Kind: parser.KindOf(tool), Command: st.cmd, File: st.file,
			Output: st.out, Sidechain: st.side, Args: st.args,
			Start: t0.Add(time.Duration(i) * time.Second),
		}
		switch {
		case st.status != "":
			c.Status = parser.Status(st.status)
		case c.Kind == parser.KindShell:
			exit := st.exit
			c.Exit = &exit
		default:
			c.IsError = st.exit != 0
		}
		s.Calls = append(s.Calls, c)
	}
	return s
}

// pyTraceback returns a Python traceback ending in last.
func pyTraceback(last string) string {
	return "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\n" + last + "\n"
}

const usage = "usage: b.py [-h] [--num-runs N] [--server-url URL]\nb.py: error: unrecognized arguments: --num-prompts 5\n"

// chainSummary describes a chain in one line: its failures, fix and kind.
func chainSummary(ch *Chain) string {
	var ids []string
	for _, f := range ch.Failures() {
		ids = append(ids, f.CallID)
	}
	s := strings.Join(ids, ",") + " →"
	if ch.Fix == nil {
		return s + " unresolved"
	}
	s += " " + ch.Fix.CallID + " " + string(ch.Fix.Kind)
	if len(ch.Fix.Because) > 0 {
		s += " because " + strings.Join(ch.Fix.Because, ",")
	}
	return s
}

func TestPair(t *testing.T) {
	unrelated := func(n int) []step {
		var out []step
		for i := range n {
			out = append(out, step{cmd: fmt.Sprintf("echo step %d", i)})
		}
		return out
	}
	tests := []struct {
		name  string
		steps []step
		want  []string
	}{
		{"argv fix", []step{{cmd: "python b.py --num-prompts 5", exit: 2, out: usage}, {cmd: "python b.py --num-runs 5"}},
			[]string{"c1 → c2 argv"}},
		{"edit then same command", []step{
			{cmd: "pytest tests/test_cart.py", exit: 1, out: "FAILED tests/test_cart.py::test_total"},
			{tool: "Edit", file: "src/cart.py"},
			{cmd: "pytest tests/test_cart.py"}},
			[]string{"c1 → c3 edit because c2"}},
		{"a script on standard input rewritten", []step{
			{cmd: "python3 - <<'EOF'\nimport pandas as pd\nprint(pd.read_csv('a.csv')['year'].astype(int))\nEOF", exit: 1,
				out: pyTraceback("ValueError: invalid literal for int() with base 10: '1973.'")},
			{cmd: "python3 - <<'EOF'\nimport pandas as pd\nprint(pd.read_csv('a.csv')['year'].str.rstrip('.').astype(int))\nEOF"}},
			[]string{"c1 → c2 argv"}},
		{"a script on standard input retried with a blank line added", []step{
			{cmd: "python3 - <<'EOF'\nimport requests\nprint(requests.get('https://x').status_code)\nEOF", exit: 1,
				out: pyTraceback("requests.exceptions.ConnectionError: Connection reset by peer")},
			{cmd: "python3 - <<'EOF'\nimport requests\n\nprint(requests.get('https://x').status_code)\nEOF"}},
			[]string{"c1 → c2 same"}},
		{"a script on standard input retried by one that imports the same", []step{
			{cmd: "python - <<'PY'\nimport docopt\nprint(docopt.__version__)\nPY", exit: 1, out: pyTraceback("ModuleNotFoundError: No module named 'docopt'")},
			{cmd: "python - <<'PY'\nimport urllib.request\nprint(urllib.request.urlopen('https://pypi.org').status)\nPY"},
			{cmd: "pip install -e ."},
			{cmd: "python - <<'PY'\nimport sys\nimport docopt\nprint(docopt.__file__)\nPY"}},
			[]string{"c1 → c4 argv"}},
		{"a script written anew on the fix's line", []step{
			{cmd: "cat > repro.py <<'EOF'\nprint(x)\nEOF\npython repro.py", exit: 1, out: pyTraceback("NameError: name 'x' is not defined")},
			{cmd: "cat > repro.py <<'EOF'\nx = 1\nprint(x)\nEOF\npython repro.py"}},
			[]string{"c1 → c2 edit because c2"}},
		{"a script written before, run again with its output redirected", []step{
			{cmd: "cat > /tmp/t.py <<'EOF'\nimport app.config\nEOF\npython /tmp/t.py", exit: 1, out: pyTraceback("KeyError: 'db'")},
			{tool: "Edit", file: "app/config.py"},
			{cmd: "python /tmp/t.py > /tmp/out.txt; cat /tmp/out.txt"}},
			[]string{"c1 → c3 edit because c2"}},
		{"the same script run again", []step{
			{cmd: "cat > repro.py <<'EOF'\nprint(x)\nEOF\npython repro.py", exit: 1, out: "ConnectionResetError: [Errno 104] Connection reset by peer"},
			{cmd: "cat > repro.py <<'EOF'\nprint(x)\nEOF\npython repro.py"}},
			[]string{"c1 → c2 same"}},
		{"a code cell retried after a cell that installs", []step{
			{tool: "execute_ipython_cell", args: map[string]string{"code": "import yaml\nprint(yaml.safe_load('a: 1'))"},
				out: "ModuleNotFoundError                       Traceback (most recent call last)\nCell In[1], line 1\n----> 1 import yaml\n\nModuleNotFoundError: No module named 'yaml'"},
			{tool: "execute_ipython_cell", args: map[string]string{"code": "%pip install pyyaml"}, out: "Successfully installed pyyaml-6.0.2"},
			{tool: "execute_ipython_cell", args: map[string]string{"code": "import yaml\nprint(yaml.safe_load('a: 1'))"}, out: "{'a': 1}"}},
			[]string{"c1 → c3 environment because c2"}},
		{"a call made with the failure is no retry of it", []step{
			{cmd: "ping -n 1 192.0.2.7", exit: 1, out: "Request timed out.\n"},
			{cmd: "ping -n 1 192.0.2.1", same: true},
			{cmd: "ipconfig"},
			{cmd: "ping -n 1 192.0.2.7"}},
			[]string{"c1 → c4 same"}},
		{"a cell that looks around is no retry of a cell's", []step{
			{tool: "execute_ipython_cell", args: map[string]string{"code": "import pandas as pd\ndf = pd.read_csv('/workspace/sales.csv')"},
				out: "FileNotFoundError                         Traceback (most recent call last)\nCell In[1], line 2\n----> 2 df = pd.read_csv('/workspace/sales.csv')\n\nFileNotFoundError: [Errno 2] No such file or directory: '/workspace/sales.csv'"},
			{tool: "execute_ipython_cell", args: map[string]string{"code": "import os\nprint(os.listdir('/workspace'))"}, out: "['data']"},
			{tool: "execute_ipython_cell", args: map[string]string{"code": "df = pd.read_csv('/workspace/data/sales.csv')\nprint(len(df))"}, out: "120"}},
			[]string{"c1 → c3 argv"}},
		{"a cell that calls another function for the same name retries it", []step{
			{tool: "execute_ipython_cell", args: map[string]string{"code": "df = pd.read_csv('/workspace/report.xlsx')"},
				out: "UnicodeDecodeError                        Traceback (most recent call last)\nCell In[1], line 1\n----> 1 df = pd.read_csv('/workspace/report.xlsx')\n\nUnicodeDecodeError: 'utf-8' codec can't decode byte 0x8d in position 12"},
			{tool: "execute_ipython_cell", args: map[string]string{"code": "df = pd.read_excel('/workspace/report.xlsx')\nprint(df.shape)"}, out: "(120, 8)"}},
			[]string{"c1 → c2 argv"}},
		{"a compile of another file is no retry", []step{
			{cmd: "lake env lean solution.lean", exit: 1, out: "solution.lean:22:2: error: unsolved goals\nsolution.lean:23:6: error: tactic 'apply' failed"},
			{cmd: "lake env lean test_ring.lean"},
			{tool: "Edit", file: "solution.lean"},
			{cmd: "lean solution.lean"}},
			[]string{"c1 → c4 argv"}},
		{"a compile of the whole project retries one of its files", []step{
			{cmd: "npx tsc src/cart.ts --noEmit", exit: 2, out: "src/cart.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."},
			{tool: "Edit", file: "src/cart.ts"},
			{cmd: "npx tsc --noEmit"}},
			[]string{"c1 → c3 argv"}},
		{"a run on the folder or the project file retries a file's", []step{
			{cmd: "pytest tests/test_cart.py -q", exit: 1, out: "FAILED tests/test_cart.py::test_total - AssertionError"},
			{tool: "Edit", file: "src/cart.py"},
			{cmd: "pytest tests/ -q"},
			{cmd: "npx tsc --noEmit src/cart.ts", exit: 2, out: "src/cart.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number'."},
			{tool: "Edit", file: "src/cart.ts"},
			{cmd: "npx tsc --noEmit -p tsconfig.json"}},
			[]string{"c1 → c3 argv", "c4 → c6 argv"}},
		{"a pattern that names the file retries its run", []step{
			{cmd: "pytest tests/test_cart.py -q", exit: 1, out: "FAILED tests/test_cart.py::test_total - AssertionError"},
			{tool: "Edit", file: "src/cart.py"},
			{cmd: "pytest tests/test_*.py -q"}},
			[]string{"c1 → c3 argv"}},
		{"a test file's run retries one of its tests", []step{
			{cmd: "pytest tests/test_cart.py::test_total", exit: 1, out: "FAILED tests/test_cart.py::test_total - AssertionError"},
			{cmd: "pytest tests/test_tax.py"},
			{tool: "Edit", file: "src/cart.py"},
			{cmd: "pytest tests/test_cart.py -q"}},
			[]string{"c1 → c4 argv"}},
		{"install then same command", []step{
			{cmd: "python app.py", exit: 1, out: "Traceback (most recent call last):\n  File \"app.py\", line 1, in <module>\nModuleNotFoundError: No module named 'flask'"},
			{cmd: "pip install flask"},
			{cmd: "python app.py"}},
			[]string{"c1 → c3 environment because c2"}},
		{"wait then same command", []step{
			{cmd: "curl -sf localhost:8000/health", exit: 7, out: "curl: (7) Failed to connect to localhost port 8000"},
			{cmd: "sleep 30"},
			{cmd: "curl -sf localhost:8000/health"}},
			[]string{"c1 → c3 wait because c2"}},
		{"install and run in one line", []step{
			{cmd: "mkdocs build", exit: 127, out: "/bin/bash: line 1: mkdocs: command not found"},
			{cmd: "pip install mkdocs && mkdocs build"}},
			[]string{"c1 → c2 environment because c2"}},
		{"the failing stage of a pipeline is blamed", []step{
			{cmd: `op item get key --fields "Private Key" | gpg --import`, exit: 2, out: "gpg: no valid OpenPGP data found.\ngpg: Total number processed: 0"},
			{cmd: `op item get key --fields "Private Key" > /tmp/k.asc`},
			{cmd: `gpg --import /tmp/k.asc`}},
			[]string{"c1 → c3 argv"}},
		{"exploring other files is not a retry", []step{
			{cmd: "ls -la ~/.config/dconf/cosmic/", exit: 2, out: "ls: cannot access '/home/u/.config/dconf/cosmic/': Not a directory"},
			{cmd: "ls -la ~/.config/cosmic"}},
			[]string{"c1 → unresolved"}},
		{"a subagent started for another task is no retry", []step{
			{tool: "Task", exit: 1, out: "Agent type 'plugin:junior' not found.", args: map[string]string{"description": "Build layout tree", "subagent_type": "plugin:junior"}},
			{tool: "Task", args: map[string]string{"description": "Create package", "subagent_type": "junior"}},
			{tool: "Task", args: map[string]string{"description": "Build layout tree", "subagent_type": "junior"}}},
			[]string{"c1 → c3 argv"}},
		{"a fetch of another page is no retry", []step{
			{tool: "WebFetch", exit: 1, out: "Request failed with status code 403", args: map[string]string{"url": "https://a.example/post"}},
			{tool: "WebFetch", args: map[string]string{"url": "https://b.example/docs"}}},
			[]string{"c1 → unresolved"}},
		{"a fetch of the same site is a retry", []step{
			{tool: "WebFetch", exit: 1, out: "Request failed with status code 404", args: map[string]string{"url": "https://docs.example.org/en/setp"}},
			{tool: "WebFetch", args: map[string]string{"url": "https://www.Docs.example.org/en/setup/"}}},
			[]string{"c1 → c2 argv"}},
		{"a subagent's task reworded with the same prompt is a retry", []step{
			{tool: "Task", exit: 1, out: "Agent type 'explorer' not found.", args: map[string]string{"description": "Explore codebase structure", "prompt": "List the packages", "subagent_type": "explorer"}},
			{tool: "Task", args: map[string]string{"description": "Explore the codebase", "prompt": "List the packages", "subagent_type": "Explore"}}},
			[]string{"c1 → c2 argv"}},
		{"an install among others on the retry's line", []step{
			{cmd: "pip install numpy==1.19", exit: 1, out: "ERROR: No matching distribution found for numpy==1.19"},
			{cmd: "pip install --upgrade pip && pip install numpy"}},
			[]string{"c1 → c2 argv"}},
		{"an editable install with extras installs the same path", []step{
			{cmd: "pip install -e .", exit: 1, out: "ERROR: Project file:///repo has a 'pyproject.toml' and its build backend is missing the 'build_editable' hook."},
			{cmd: "pip install -e '.[dev]'"}},
			[]string{"c1 → c2 argv"}},
		{"a variant of the package is a retry", []step{
			{cmd: "pip install psycopg2", exit: 1, out: "Error: pg_config executable not found."},
			{cmd: "pip install psycopg2-binary"}},
			[]string{"c1 → c2 argv"}},
		{"an install through sudo among others on the retry's line", []step{
			{cmd: "sudo pip install numpy==1.19", exit: 1, out: "ERROR: No matching distribution found for numpy==1.19"},
			{cmd: "sudo pip install -U pip && sudo pip install numpy"}},
			[]string{"c1 → c2 argv"}},
		{"a fetch given its scheme is a retry", []step{
			{tool: "WebFetch", exit: 1, out: "Invalid URL", args: map[string]string{"url": "docs.example.org/a"}},
			{tool: "WebFetch", args: map[string]string{"url": "https://docs.example.org/a"}}},
			[]string{"c1 → c2 argv"}},
		{"a package named like another is no retry", []step{
			{cmd: "pip install torch==1.4", exit: 1, out: "ERROR: No matching distribution found for torch==1.4"},
			{cmd: "pip install torchvision"}},
			[]string{"c1 → unresolved"}},
		{"a viewer's pattern is not a place it looks at", []step{
			{cmd: `find /home -type f -name "*.rs" -path "*applet*" 2>&1 | head -20`, exit: 1, out: "find: '/home/u/.cache/gh': Permission denied"},
			{cmd: `find /usr/src -type f -name "*.rs"`}},
			[]string{"c1 → unresolved"}},
		{"a viewer retried on the same file", []step{
			{cmd: "cat config/app.yaml", exit: 1, out: "cat: config/app.yaml: Permission denied"},
			{cmd: "sudo cat config/app.yaml"}},
			[]string{"c1 → c2 argv"}}, // run through sudo
		{"another snippet of python -c is no retry", []step{
			{cmd: "python3 -c \"import astroid; print(astroid.__version__)\"", exit: 1, out: pyTraceback("ImportError: cannot import name 'formatargspec' from 'inspect'")},
			{cmd: "python3 -c \"import inspect; print(dir(inspect))\" | grep -i format"},
			{cmd: "python3 -c \"import sys\nimport astroid\nprint('ok')\""}},
			[]string{"c1 → c3 argv"}},
		{"a snippet of the standard library's modules is retried by the same modules", []step{
			{cmd: "python -c \"import sys, importlib.util\nspec = importlib.util.spec_from_file_location('m', 'm.py')\"", exit: 1, out: pyTraceback("ModuleNotFoundError: No module named 'erfa'")},
			{cmd: "python -c \"import sys, importlib, subprocess\nsubprocess.run(['pip', 'list'])\""},
			{cmd: "python -c \"import importlib.util\nimport sys\nspec = importlib.util.spec_from_file_location('m', 'n.py')\""}},
			[]string{"c1 → c3 argv"}},
		{"a snippet of os alone is not retried by one of re", []step{
			{cmd: `python3 -c "import os; print(os.path.normcase(None))"`, exit: 1, out: pyTraceback("TypeError: expected str, bytes or os.PathLike object, not NoneType")},
			{cmd: `python3 -c "import re; print(re.escape('a'))"`}},
			[]string{"c1 → unresolved"}},
		{"a snippet of the standard library retried with sys added", []step{
			{cmd: `python3 -c "import json; print(json.load(open('c.json'))['x'])"`, exit: 1, out: pyTraceback("KeyError: 'x'")},
			{cmd: `python3 -c "import json, sys; print(json.load(open('c.json')).get('x'), file=sys.stderr)"`}},
			[]string{"c1 → c2 argv"}},
		{"a snippet's __future__ import is set aside", []step{
			{cmd: `python3 -c "from __future__ import print_function; import json; print(json.load(open('c.json'))['x'])"`, exit: 1, out: pyTraceback("KeyError: 'x'")},
			{cmd: `python3 -c "import json; print(json.load(open('c.json')).get('x'))"`}},
			[]string{"c1 → c2 argv"}},
		{"a snippet that imports nothing is retried by any", []step{
			{cmd: "python -c \"print(f'{\\\"a\\\"}')\"", exit: 1, out: pyTraceback("SyntaxError: f-string expression part cannot include a backslash")},
			{cmd: "python -c \"import re\nprint(re.escape('a'))\""}},
			[]string{"c1 → c2 argv"}},
		{"installing another package is no retry", []step{
			{cmd: "pip install erfa", exit: 1, out: "ERROR: No matching distribution found for erfa"},
			{cmd: "pip install astropy-iers-data"},
			{cmd: "pip install --no-deps pyerfa==2.0.1"}},
			[]string{"c1 → c3 argv"}},
		{"installing with a corrected file name is a retry", []step{
			{cmd: "pip install -r requirement.txt", exit: 1, out: "ERROR: Could not open requirements file: [Errno 2] No such file or directory: 'requirement.txt'"},
			{cmd: "pip install -r requirements.txt"}},
			[]string{"c1 → c2 argv"}},
		{"another line's install of another package is no retry", []step{
			{cmd: "npm install left-pad@9", exit: 1, out: "npm ERR! code ETARGET\nnpm ERR! notarget No matching version found for left-pad@9."},
			{cmd: "npm install lodash && npm test"},
			{cmd: "npm install left-pad@1.3.0 && npm test"}},
			[]string{"c1 → c3 argv"}},
		{"powershell cmdlets are targets", []step{
			{cmd: `powershell.exe -Command "Get-Acl 'C:\Windows\System32\drivers\etc\hosts'"`, exit: 1, out: "+ FullyQualifiedErrorId : CouldNotAutoloadMatchingModule"},
			{cmd: `powershell.exe -Command "Get-Service | Select-Object -First 5"`}},
			[]string{"c1 → unresolved"}},
		{"a cd in front changes the environment", []step{
			{cmd: "mv data-capture/*.ts src/", exit: 1, out: "(eval):1: no matches found: data-capture/*.ts"},
			{cmd: "cd .. && mv data-capture/*.ts src/"}},
			[]string{"c1 → c2 environment because c2"}},
		{"flaky", []step{{cmd: "make test", exit: 2, out: "make: *** [test] Error 2"}, {cmd: "make test"}},
			[]string{"c1 → c2 same"}},
		{"unresolved", []step{{cmd: "make deploy", exit: 2, out: "Error 2"}, {cmd: "git status"}},
			[]string{"c1 → unresolved"}},
		{"two attempts", []step{
			{cmd: "python b.py --num-prompts 5", exit: 2, out: usage},
			{cmd: "python b.py --n 5", exit: 2, out: "usage: b.py [-h] [--num-runs N]\nb.py: error: unrecognized arguments: --n 5"},
			{cmd: "python b.py --num-runs 5"}},
			[]string{"c1,c2 → c3 argv"}},
		{"help is not a fix", []step{
			{cmd: "python b.py --num-prompts 5", exit: 2, out: usage},
			{cmd: "python b.py --help", out: "usage: b.py [-h] [--num-runs N] [--server-url URL]\n\noptions:\n  -h, --help  show this help message and exit\n"},
			{cmd: "python b.py --num-runs 5"}},
			[]string{"c1 → c3 argv"}},
		{"interleaved", []step{
			{cmd: "python a.py --x", exit: 2, out: "usage: a.py [-h] [--y]\na.py: error: unrecognized arguments: --x"},
			{cmd: "python b.py --num-prompts 5", exit: 2, out: usage},
			{cmd: "python b.py --num-runs 5"},
			{cmd: "python a.py --y"}},
			[]string{"c1 → c4 argv", "c2 → c3 argv"}},
		{"fix after ten unrelated calls", append(append([]step{{cmd: "python b.py --num-prompts 5", exit: 2, out: usage}}, unrelated(10)...),
			step{cmd: "python b.py --num-runs 5"}),
			[]string{"c1 → c12 argv"}},
		{"beyond the look-ahead", append(append([]step{{cmd: "python b.py --num-prompts 5", exit: 2, out: usage}}, unrelated(Lookahead)...),
			step{cmd: "python b.py --num-runs 5"}),
			[]string{"c1 → unresolved"}},
		{"same script on two hosts", []step{
			{cmd: "ssh gpu1 'python b.py --num-prompts 5'", exit: 2, out: usage},
			{cmd: "ssh gpu2 'python b.py --num-runs 5'"},
			{cmd: "ssh gpu1 'python b.py --num-runs 5'"}},
			[]string{"c1 → c3 argv"}},
		{"subagents apart", []step{
			{cmd: "python b.py --num-prompts 5", exit: 2, out: usage, side: "a1"},
			{cmd: "python b.py --num-runs 5"},
			{cmd: "python b.py --num-runs 5", side: "a1"}},
			[]string{"c1 → c3 argv"}},
		{"which is a probe", []step{
			{cmd: "which rg || which ag", exit: 1, out: "ag not found"},
			{cmd: "which grep"}},
			nil},
		{"rejected calls start no chain", []step{
			{cmd: "rm -rf build", exit: 1, out: "The user doesn't want to proceed with this tool use."},
			{cmd: "rm -rf build"}},
			nil},
		{"a cleanup before the command is not its target", []step{
			{cmd: "killall app; ./app --port 8080", exit: 1, out: "listen tcp :8080: bind: address already in use"},
			{cmd: "./app --port 8081"}},
			[]string{"c1 → c2 argv"}},
		{"an init script is not the program it starts", []step{
			{cmd: "/usr/sbin/blocky --config /etc/blocky.yml validate", exit: 1, out: "Error: unknown command \"validate\" for \"blocky\"\nRun 'blocky --help' for usage."},
			{cmd: "/etc/init.d/blocky restart"},
			{cmd: "/usr/sbin/blocky --config /etc/blocky.yml"}},
			[]string{"c1 → c3 argv"}},
		{"a different patch is a different change", []step{
			{cmd: "patch -p1 < fix.patch", exit: 2, out: "patching file src/x.py\npatch: **** malformed patch at line 35:      return x"},
			{cmd: "patch -p1 < fix_v2.patch", out: "patching file src/x.py"}},
			[]string{"c1 → unresolved"}},
		{"a call with no result is no fix", []step{
			{cmd: "import -window root /tmp/a.png", exit: 1, out: "import: missing an image filename `/tmp/a.png' @ error/import.c/ImportImageCommand/1289."},
			{cmd: "import -window root /tmp/b.png", status: "no-result"}},
			[]string{"c1 → unresolved"}},
		{"a filter not found: the retry without it", []step{
			{cmd: "cargo test 2>&1 | tail -30", exit: 127, out: "zsh: command not found: tail"},
			{cmd: "cargo test"}},
			[]string{"c1 → c2 argv"}},
		{"an assignment after timeout belongs to the program", []step{
			{cmd: "timeout 5 RUST_LOG=info ./app", exit: 127, out: "timeout: failed to run command ‘RUST_LOG=info’: No such file or directory"},
			{cmd: "RUST_LOG=info timeout 5 ./app"}},
			[]string{"c1 → c2 same"}},
		{"a look that never ran is retried by the next of its kind", []step{
			{cmd: `powershell.exe -Command "Get-ScheduledTask | Where-Object {$_.TaskPath -eq '\'} | Select-Object -First 3"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-ScheduledTask | Where-Object State -eq Ready"`}},
			[]string{"c1 → c2 argv"}},
		{"a filtered look that never ran is not retried by a look at named things", []step{
			{cmd: `powershell.exe -Command "Get-Process | Where-Object ProcessName -match 'bd|bitdefender' | Select-Object ProcessName,Id,Path"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-Process -Id 2696,4496 -ErrorAction SilentlyContinue | Select-Object Id,ProcessName,Path"`}},
			[]string{"c1 → unresolved"}},
		{"a filtered look that never ran is retried by a look at what it filtered for", []step{
			{cmd: `powershell.exe -Command "Get-Process | Where-Object { $_.Name -eq 'node' } | Select-Object Id,Path"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-Process -Name node | Select-Object Id,Path"`}},
			[]string{"c1 → c2 argv"}},
		{"a filtered look that never ran is not retried by a look at a word's letter", []step{
			{cmd: `powershell.exe -Command "Get-Process | Where-Object { $_.Name -eq 'Node' } | Select-Object Id,Path"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-Process -Name e"`},
			{cmd: `powershell.exe -Command "Get-Process -Name node"`}},
			[]string{"c1 → c3 argv"}},
		{"a look that never ran is not retried by a look at something else", []step{
			{cmd: `powershell.exe -Command "Get-ItemProperty 'HKLM:\SYSTEM\Control\WDigest' -Name UseLogonCredential"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-ItemProperty 'HKLM:\SOFTWARE\Policies\Spynet' -Name SpynetReporting"`},
			{cmd: `powershell.exe -Command "Get-ItemProperty 'HKLM:\SYSTEM\Control\WDigest'"`}},
			[]string{"c1 → c3 argv"}},
		{"a look that never ran is not retried by another line's look at something else", []step{
			{cmd: `powershell.exe -Command "Get-Process -Name 'Antigravity'"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Stop-Process -Name git -Force; Get-Process -Name git -ErrorAction SilentlyContinue"`}},
			[]string{"c1 → unresolved"}},
		{"another line's look at the same thing is a retry", []step{
			{cmd: `powershell.exe -Command "Get-Process -Name 'Antigravity'"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Start-Sleep -Seconds 2; Get-Process -Name Antigravity"`}},
			[]string{"c1 → c2 environment because c2"}},
		{"a failure known by its status alone is blamed on a command whose status the line returns", []step{
			{cmd: `ps aux | grep "[a]pp" | awk '{print $2}' | xargs -r kill -9; sleep 2; cp build/app ~/bin/ && echo "Installed!"`, exit: 1},
			{cmd: `ps aux | grep "[a]pp"`},
			{cmd: "cp build/app ~/bin/"}},
			[]string{"c1 → c3 argv"}},
		{"a failure its output tells of is the command's, whatever ends the line", []step{
			{cmd: "systemctl --user restart app.service; sleep 2; ps aux | grep app | grep -v grep", exit: 1, out: "Failed to restart app.service: Unit app.service not found."},
			{cmd: "systemctl --user restart app-panel.service"}},
			[]string{"c1 → c2 argv"}},
		{"a failure known by its status alone, of a line its pipeline ends, is the command's", []step{
			{cmd: "journalctl -u app.service | tail -20", exit: 1},
			{cmd: "journalctl -u app.service --since today"}},
			[]string{"c1 → c2 argv"}},
		{"the line run again with its blamed command corrected", []step{
			{cmd: "cosmic-screenshot 2>&1 & sleep 2; ls -lt ~/Pictures/Screenshots/ | head -3", exit: 0, out: "ls: cannot access '/home/u/Pictures/Screenshots/': No such file or directory"},
			{cmd: "cosmic-screenshot 2>&1 & sleep 2; ls -t ~/Documents/Screenshot_*.png 2>/dev/null | head -1", out: "/home/u/Documents/Screenshot_1.png"}},
			[]string{"c1 → c2 environment because c2"}},
		{"a failure blamed on another command is retried by another line's run of it", []step{
			{cmd: `ps aux | grep "[a]pp" | awk '{print $2}' | xargs -r kill -9; sleep 2; cp build/app ~/bin/ && echo "Installed!"`, exit: 1},
			{cmd: "make && cp build/app ~/bin/"}},
			[]string{"c1 → c2 environment because c2"}},
		{"a line that passes its command's status on does not blame what passes it", []step{
			{cmd: "./deploy.sh > deploy.log 2>&1; exit $?", exit: 1},
			{cmd: "./deploy.sh --verbose"}},
			[]string{"c1 → c2 argv"}},
		{"a line that stops at its first failure blames none after it", []step{
			{cmd: "set -e; make build >/dev/null 2>&1; make test >/dev/null 2>&1", exit: 1},
			{cmd: "make build"}},
			[]string{"c1 → c2 environment because c2"}}, // the line's set -e is gone
		{"set -o errexit stops a line at its first failure", []step{
			{cmd: "set -o nounset -o errexit; make build >/dev/null 2>&1; make test >/dev/null 2>&1", exit: 1},
			{cmd: "make build"}},
			[]string{"c1 → c2 environment because c2"}},
		{"a failure known by its status alone is not blamed on a filter", []step{
			{cmd: "ps aux | grep app | xargs -r kill; journalctl -u app | tail -5", exit: 1},
			{cmd: "ps aux | grep app"}},
			[]string{"c1 → c2 argv"}},
		{"a change made through a look is not retried by the look alone", []step{
			{cmd: `powershell.exe -Command "Get-WmiObject Win32_NetworkAdapterConfiguration | Where-Object IPEnabled -eq $true | ForEach-Object { $_.SetTcpipNetbios(2) }"`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell.exe -Command "Get-WmiObject Win32_NetworkAdapterConfiguration -Filter 'IPEnabled=True' | Select-Object Description,TcpipNetbiosOptions"`},
			{cmd: `powershell.exe -Command "$a = Get-WmiObject Win32_NetworkAdapterConfiguration -Filter 'IPEnabled=True'; foreach ($x in $a) { $x.SetTcpipNetbios(2) }"`}},
			[]string{"c1 → c3 argv"}},
		{"a program started by Start-Process is retried", []step{
			{cmd: "cd /usr/bin && ./rebase -O -v 2>&1 | head -50", exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell 'Start-Process -FilePath "C:\Program Files\Git\usr\bin\bash.exe" -ArgumentList "-c", "/usr/bin/rebase -O -v" -Wait -NoNewWindow'`}},
			[]string{"c1 → c2 argv"}},
		{"a wider look is a retry", []step{
			{cmd: "ls -la docs/audit/", exit: 2, out: "ls: cannot access 'docs/audit/': No such file or directory"},
			{cmd: "cd ~/notes/docs/audit && ls -lh"}},
			[]string{"c1 → c2 argv"}},
		{"a failure that asked for the version is fixed by asking again", []step{
			{cmd: `powershell '"C:\Program Files\GnuPG\bin\gpg.exe" --version'`, exit: 1, out: "At line:1 char:40\n+ \"C:\\Program Files\\GnuPG\\bin\\gpg.exe\" --version\n+                                        ~~~~~~~\nUnexpected token 'version' in expression or statement.\n    + CategoryInfo          : ParserError: (:) [], ParentContainsErrorRecordException\n    + FullyQualifiedErrorId : UnexpectedToken"},
			{cmd: `powershell '& "C:\Program Files\GnuPG\bin\gpg.exe" --version'`, out: "gpg (GnuPG) 2.4.5"}},
			[]string{"c1 → c2 argv"}},
		{"another line's run of the target must touch the same path", []step{
			{cmd: "rmdir data/node_modules && rmdir data", exit: 1, out: "rmdir: data/node_modules: Directory not empty"},
			{cmd: "mv charts/* web/charts/ && rmdir charts"}},
			[]string{"c1 → unresolved"}},
		{"a search of another command's output is no retry of a search of files", []step{
			{cmd: `grep -r "encoding" src/core/default.cfg`, exit: 2, out: "grep: src/core/default.cfg: No such file or directory"},
			{cmd: `git diff HEAD src/core/linted_file.py | grep -A5 "def persist"`}},
			[]string{"c1 → unresolved"}},
		{"a search of the same file's text is", []step{
			{cmd: `grep -c "encoding" src/core/default.cfg`, exit: 2, out: "grep: src/core/default.cfg: Permission denied"},
			{cmd: `sudo cat src/core/default.cfg | grep -c encoding`}},
			[]string{"c1 → c2 environment because c2"}},
		{"a missing file's name corrected is a retry", []step{
			{cmd: `grep -r "encoding" src/core/default.cfg`, exit: 2, out: "grep: src/core/default.cfg: No such file or directory"},
			{cmd: `grep -n "encoding" src/core/default_config.cfg`}},
			[]string{"c1 → c2 argv"}},
		{"another file of the directory is not", []step{
			{cmd: `cat tests/test_x.py`, exit: 1, out: "cat: tests/test_x.py: No such file or directory"},
			{cmd: `cat tests/test_y.py`}},
			[]string{"c1 → unresolved"}},
		{"nor the same name in another directory", []step{
			{cmd: "ls -la users/new_user/Library/Containers/", exit: 1, out: "ls: users/new_user/Library/Containers/: No such file or directory"},
			{cmd: "ls -la users/old_user/Library/Containers/"}},
			[]string{"c1 → unresolved"}},
		{"nor a longer name of a file that was there", []step{
			{cmd: "cat src/config.py src/settings.py", exit: 1, out: "cat: src/settings.py: No such file or directory"},
			{cmd: "cat src/config_loader.py"}},
			[]string{"c1 → unresolved"}},
		{"nor a pattern", []step{
			{cmd: `grep -n "self.config" app/settings.py`, exit: 2, out: "grep: app/settings.py: No such file or directory"},
			{cmd: `grep -rn "self.config_path" app/core/`}},
			[]string{"c1 → unresolved"}},
		{"nor a test of the file, or a shorter name", []step{
			{cmd: "cat main.go", exit: 1, out: "cat: main.go: No such file or directory"},
			{cmd: "cat main_test.go"},
			{cmd: "cat tests/test_main_window.py", exit: 1, out: "cat: tests/test_main_window.py: No such file or directory"},
			{cmd: "cat tests/test_main.py"}},
			[]string{"c1 → unresolved", "c3 → unresolved"}},
		{"a filter's failure is retried by its line reading another input", []step{
			{cmd: "curl -s http://localhost:8080/api/users | jq '.[0].name'", exit: 5, out: "jq: error (at <stdin>:0): Cannot index object with number"},
			{cmd: "curl -s http://localhost:8080/api/users/list | jq '.[0].name'"}},
			[]string{"c1 → c2 environment because c2"}},
		{"nor a file of a name corrected that was there", []step{
			{cmd: `grep -c "encoding" src/core/default.cfg`, exit: 2, out: "grep: src/core/default.cfg: Permission denied"},
			{cmd: `grep -n "encoding" src/core/default_config.cfg`}},
			[]string{"c1 → unresolved"}},
		{"a powershell assignment runs its cmdlet", []step{
			{cmd: `powershell '$prefs = Get-MpPreference; $prefs.ExclusionPath | Sort-Object'`, exit: 1, out: "Command failed: cygpath -u 'c:\\users\\dev'"},
			{cmd: `powershell 'Get-MpPreference | Select-Object -ExpandProperty ExclusionPath'`}},
			[]string{"c1 → c2 argv"}},
		{"tool error fixed by a new edit", []step{
			{tool: "Edit", file: "x.go", exit: 1, out: "<tool_use_error>String to replace not found in file.</tool_use_error>"},
			{tool: "Read", file: "x.go"},
			{tool: "Edit", file: "x.go"}},
			[]string{"c1 → c3 same"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := AnalyzeSession(session(tt.steps...))
			var got []string
			for _, ch := range rep.Chains {
				got = append(got, chainSummary(ch))
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("chains (-want +got):\n%s", diff)
			}
		})
	}
}

func TestChainDetails(t *testing.T) {
	rep := AnalyzeSession(session(
		step{cmd: "python b.py --num-prompts 5", exit: 2, out: usage},
		step{cmd: "head -30 b.py"},
		step{cmd: "python b.py --n 5", exit: 2, out: usage},
		step{cmd: "python b.py --num-runs 5", out: "Average: 71.1 tok/s\n"},
	))
	if len(rep.Chains) != 1 {
		t.Fatalf("got %d chains, want 1", len(rep.Chains))
	}
	ch := rep.Chains[0]
	wantBetween := []Step{
		{CallID: "c2", Role: RoleDiagnostic, Msg: 2, Command: "head -30 b.py", program: "head"},
		{CallID: "c3", Role: RoleRetry, Msg: 4, Command: "python b.py --n 5", program: "python"},
	}
	if diff := cmp.Diff(wantBetween, ch.Between, cmp.AllowUnexported(Step{})); diff != "" {
		t.Errorf("between (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"c3"}, ch.Retries); diff != "" {
		t.Errorf("retries (-want +got):\n%s", diff)
	}
	if want := (Cost{Messages: 6, Calls: 3, Seconds: 3}); ch.Cost != want {
		t.Errorf("cost = %+v, want %+v", ch.Cost, want)
	}
	for _, f := range ch.Failures() {
		if f.FixedBy == nil || *f.FixedBy != "c4" || f.Attempts != 2 {
			t.Errorf("failure %s: fixed_by %v, attempts %d; want c4, 2", f.CallID, f.FixedBy, f.Attempts)
		}
	}
	if !ch.OfferedByUsage {
		t.Error("offered_by_usage = false, want true: the usage text names --num-runs")
	}
	if len(ch.Benchmarks) != 1 || ch.Benchmarks[0].Value != 71.1 {
		t.Errorf("fix benchmarks = %v, want the 71.1 tok/s of the fix", ch.Benchmarks)
	}
}

// TestRetryDiff: where the fix's line runs the target more than once, the
// change is read against the run that works on what the failure did.
func TestRetryDiff(t *testing.T) {
	rep := AnalyzeSession(session(
		step{cmd: "pip install numpy==1.19", exit: 1, out: "ERROR: No matching distribution found for numpy==1.19"},
		step{cmd: "pip install -U pip && pip install numpy"},
	))
	if len(rep.Chains) != 1 || rep.Chains[0].Fix == nil || rep.Chains[0].Fix.Kind != FixArgv {
		t.Fatalf("chains = %+v, want one fixed by its arguments", rep.Chains)
	}
	want := &Diff{Removed: []string{"numpy==1.19"}, Added: []string{"numpy"}}
	if diff := cmp.Diff(want, rep.Chains[0].Diff, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("diff (-want +got):\n%s", diff)
	}
}

func TestOfferedByUsage(t *testing.T) {
	for _, tt := range []struct {
		fix  string
		want bool
	}{
		{"python b.py --num-runs 5", true},
		{"python b.py --runs 5", false},                   // not in the usage text
		{"python b.py --num-runs 5 --server-url x", true}, // every new flag is
		{"python b.py", false},                            // nothing introduced
	} {
		rep := AnalyzeSession(session(step{cmd: "python b.py --num-prompts 5", exit: 2, out: usage}, step{cmd: tt.fix}))
		if got := rep.Chains[0].OfferedByUsage; got != tt.want {
			t.Errorf("fix %q: offered_by_usage = %v, want %v", tt.fix, got, tt.want)
		}
	}
}

// TestSeeds checks the founding stories in every format they are written
// in: three chains, each fixed by renaming flags the usage text offered.
func TestSeeds(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "seeds", "*"))
	if len(files) < 2 {
		t.Fatalf("seed transcripts missing: %v", files)
	}
	type renamed struct{ from, to string }
	want := []struct {
		target  string
		renames []renamed
		between []Role
		result  string
	}{
		{"benchmark_eagle3.py", []renamed{{"--num-prompts 5", "--num-runs 5"}}, nil, "Average 71.1 tok/s"},
		{"benchmark_eagle3.py", []renamed{{"--num-prompts 5", "--num-runs 5"}, {"--output-len 256", "--max-tokens 256"}, {"--port 30000", "--server-url http://localhost:30000"}}, []Role{RoleDiagnostic}, "Average 38 tok/s"},
		{"benchmark_parallel.py", []renamed{{"--num-requests 5", "--requests-per-level 5"}}, nil, "Throughput 86.8 tok/s"},
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			f, err := os.Open(file)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := parser.Parse(f, file, nil)
			if err != nil {
				t.Fatal(err)
			}
			rep := Analyze([]*parser.Session{s})
			chains := rep.Sessions[0].Chains
			if len(chains) != len(want) {
				for _, ch := range chains {
					t.Logf("chain %s: %s", chainSummary(ch), ch.Failure.Message)
				}
				t.Fatalf("got %d chains, want %d", len(chains), len(want))
			}
			for i, w := range want {
				ch := chains[i]
				if ch.Failure.Target != w.target || ch.Fix == nil || ch.Fix.Kind != FixArgv || !ch.OfferedByUsage {
					t.Errorf("chain %d: target %s, fix %v, offered %v", i, ch.Failure.Target, ch.Fix, ch.OfferedByUsage)
					continue
				}
				var got []renamed
				for _, r := range ch.Diff.Renamed {
					got = append(got, renamed{r.From + " " + r.FromValue, r.To + " " + r.ToValue})
				}
				if diff := cmp.Diff(w.renames, got, cmp.AllowUnexported(renamed{})); diff != "" {
					t.Errorf("chain %d renames (-want +got):\n%s", i, diff)
				}
				var roles []Role
				for _, st := range ch.Between {
					roles = append(roles, st.Role)
				}
				if diff := cmp.Diff(w.between, roles); diff != "" {
					t.Errorf("chain %d between (-want +got):\n%s", i, diff)
				}
				var results []string
				for _, b := range ch.Benchmarks {
					results = append(results, fmt.Sprintf("%s %g %s", b.Label, b.Value, b.Unit))
				}
				if !strings.Contains(strings.Join(results, "\n"), w.result) {
					t.Errorf("chain %d: fix printed %q, want %s among them", i, results, w.result)
				}
			}
			var lesson *Lesson
			for _, l := range rep.Lessons {
				if l.Wrong == "--num-prompts" {
					lesson = l
				}
			}
			if lesson == nil || lesson.Right != "--num-runs" || lesson.Count != 2 || lesson.Target != "benchmark_eagle3.py" {
				t.Errorf("lesson for --num-prompts = %+v, want benchmark_eagle3.py --num-runs twice", lesson)
			}
			var sweep float64
			for _, b := range rep.Sessions[0].Benchmarks {
				if b.Label == "Total tok/s" && b.Context["concurrency"] == "64" {
					sweep = b.Value
				}
			}
			if sweep != 775 {
				t.Errorf("sweep at concurrency 64 = %g tok/s, want 775", sweep)
			}
			if n := len(rep.Sessions[0].Failures); n != 3 {
				for _, f := range rep.Sessions[0].Failures {
					t.Logf("failure %s %s: %s", f.CallID, f.Category, f.Message)
				}
				t.Errorf("got %d failures, want the 3 of the stories: grep finding nothing, a grep of error lines and a tail of a crash log are not failures", n)
			}
		})
	}
}

func TestFixExplained(t *testing.T) {
	trace := "Traceback (most recent call last):\n  File \"/srv/app/src/cart.py\", line 12, in total\n    return sum(i.price for i in items)\nAttributeError: 'dict' object has no attribute 'price'"
	tests := []struct {
		name  string
		steps []step
		want  Fix
	}{
		{"edit of the file in the traceback", []step{
			{cmd: "python -m pytest tests/", exit: 1, out: trace},
			{tool: "Read", file: "src/cart.py"},
			{tool: "Edit", file: "src/cart.py"},
			{cmd: "python -m pytest tests/"}},
			Fix{CallID: "c4", Msg: 6, Command: "python -m pytest tests/", Kind: FixEdit, Because: []string{"c3"}, Files: []string{"src/cart.py"}, InTraceback: ptr(true)}},
		{"edit of another file", []step{
			{cmd: "python -m pytest tests/", exit: 1, out: trace},
			{cmd: `sed -i "s/price/cost/" src/models.py`},
			{cmd: "python -m pytest tests/"}},
			Fix{CallID: "c3", Msg: 4, Command: "python -m pytest tests/", Kind: FixEdit, Because: []string{"c2"}, Files: []string{"src/models.py"}, InTraceback: ptr(false)}},
		{"install", []step{
			{cmd: "python app.py", exit: 1, out: "ModuleNotFoundError: No module named 'flask'"},
			{cmd: "pip install flask"},
			{cmd: "python app.py"}},
			Fix{CallID: "c3", Msg: 4, Command: "python app.py", Kind: FixEnvironment, Because: []string{"c2"}, Changes: []string{"pip install flask"}}},
		{"a flag moved to a config file", []step{
			{cmd: "python train.py --lr 3e-4 --epochs 2", exit: 2, out: "usage: train.py [-h] [--epochs N] [--config FILE]\ntrain.py: error: unrecognized arguments: --lr 3e-4"},
			{tool: "Edit", file: "configs/train.yaml"},
			{cmd: "python train.py --epochs 2 --config configs/train.yaml"}},
			Fix{CallID: "c3", Msg: 4, Command: "python train.py --epochs 2 --config configs/train.yaml", Kind: FixArgv}},
		{"an install on the fix's own line names the install, not the line", []step{
			{cmd: "python app.py", exit: 1, out: "ModuleNotFoundError: No module named 'flask'"},
			{cmd: "pip install flask && echo installed && python app.py"}},
			Fix{CallID: "c2", Msg: 2, Command: "pip install flask && echo installed && python app.py", Kind: FixEnvironment,
				Because: []string{"c2"}, Changes: []string{"pip install flask"}}},
		{"another install on the fix's own line is the change", []step{
			{cmd: "pip install numpy", exit: 1, out: "ERROR: numpy requires a newer pip"},
			{cmd: "pip install -U pip && pip install numpy"}},
			Fix{CallID: "c2", Msg: 2, Command: "pip install -U pip && pip install numpy", Kind: FixEnvironment,
				Because: []string{"c2"}, Changes: []string{"pip install -U pip"}}},
		{"the same command through another wrapper", []step{
			{cmd: "cat config/app.yaml", exit: 1, out: "cat: config/app.yaml: Permission denied"},
			{cmd: "sudo cat config/app.yaml"}},
			Fix{CallID: "c2", Msg: 2, Command: "sudo cat config/app.yaml", Kind: FixArgv}},
		{"a tool call given the file it lacked changed its arguments", []step{
			{tool: "Write", exit: 1, out: "params must have required property 'file_path'"},
			{tool: "Write", file: "/app/hello.py"}},
			Fix{CallID: "c2", Msg: 2, Command: "Write /app/hello.py", Kind: FixArgv}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := AnalyzeSession(session(tt.steps...))
			if len(rep.Chains) != 1 || rep.Chains[0].Fix == nil {
				t.Fatalf("chains = %d, want one fixed", len(rep.Chains))
			}
			if diff := cmp.Diff(&tt.want, rep.Chains[0].Fix); diff != "" {
				t.Errorf("fix (-want +got):\n%s", diff)
			}
		})
	}
}

func ptr[T any](v T) *T { return &v }

func TestWorkaround(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []step
		want  string // the workaround's call id, or ""
	}{
		{"alternative program", []step{
			{cmd: "tree -L 2", exit: 127, out: "bash: tree: command not found"},
			{cmd: "find . -maxdepth 2 -type d"}}, "c2"},
		{"same file arguments", []step{
			{cmd: "bat src/main.go", exit: 127, out: "bash: bat: command not found"},
			{cmd: "git status"},
			{cmd: "cat src/main.go"}}, "c3"},
		{"unrelated next call", []step{
			{cmd: "tree -L 2", exit: 127, out: "bash: tree: command not found"},
			{cmd: "git log -1"}}, ""},
		{"too far", []step{
			{cmd: "tree -L 2", exit: 127, out: "bash: tree: command not found"},
			{cmd: "git log -1"}, {cmd: "git status"}, {cmd: "date"},
			{cmd: "find . -type d"}}, ""},
		{"another program did the job on the same file", []step{
			{cmd: "convert shot.png -resize 50% small.png", exit: 1, out: "convert: no decode delegate for this image format `PNG' @ error/constitute.c/ReadImage/746."},
			{cmd: "git status"},
			{cmd: "ffmpeg -y -i shot.png -vf scale=iw/2:ih/2 small.png"}}, "c3"},
		{"an edit did a failed patch's job", []step{
			{cmd: "sed -i 's/retries = 3/retries = 5/' src/config.py && python -c 'import src.config'", exit: 1, out: "sed: -e expression #1, char 24: unterminated `s' command"},
			{tool: "Edit", file: "src/config.py"}}, "c2"},
		{"a look is not the job of a change", []step{
			{cmd: "convert shot.png -resize 50% small.png", exit: 1, out: "convert: no decode delegate for this image format `PNG' @ error/constitute.c/ReadImage/746."},
			{cmd: "file shot.png"}}, ""},
		{"nothing in common", []step{
			{cmd: "convert shot.png -resize 50% small.png", exit: 1, out: "convert: no decode delegate for this image format `PNG' @ error/constitute.c/ReadImage/746."},
			{cmd: "python make_thumbnails.py"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := AnalyzeSession(session(tt.steps...))
			got := ""
			if w := rep.Chains[0].Workaround; w != nil {
				got = w.CallID
			}
			if got != tt.want {
				t.Errorf("workaround = %q, want %q", got, tt.want)
			}
		})
	}
	rep := Analyze([]*parser.Session{session(step{cmd: "tree -L 2", exit: 127, out: "bash: tree: command not found"}, step{cmd: "find . -type d"})})
	if len(rep.Lessons) != 1 || rep.Lessons[0].Kind != "command" || rep.Lessons[0].Wrong != "tree" || rep.Lessons[0].Right != "find" {
		t.Errorf("lessons = %+v, want tree → find", rep.Lessons)
	}
}

// TestWorkaroundLesson checks that a workaround lesson names the program
// that took the missing one's place on the line, not the line's command,
// even when read back from JSON Lines; and that a workaround for anything
// but a missing program teaches no lesson.
func TestWorkaroundLesson(t *testing.T) {
	for _, tt := range []struct {
		name  string
		steps []step
		want  string // "wrong → right", or ""
	}{
		{"the replacement, not the line's first command", []step{
			{cmd: "mkdir -p out && touch out/a.txt && tree out", exit: 127, out: "bash: line 1: tree: command not found"},
			{cmd: "mkdir -p out && touch out/a.txt && find out -type f"}}, "tree → find"},
		{"a command new to the line that names the same file", []step{
			{cmd: "cd src && bat main.go", exit: 127, out: "bash: bat: command not found"},
			{cmd: "cd src && cat main.go"}}, "bat → cat"},
		{"a look that did a failed look's job is no lesson", []step{
			{tool: "Read", file: "/app/conf", exit: 1, out: "EISDIR: illegal operation on a directory, read"},
			{tool: "LS", file: "/app/conf"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rep := AnalyzeSession(session(tt.steps...))
			if len(rep.Chains) != 1 || rep.Chains[0].Workaround == nil {
				t.Fatalf("chains = %d, want one with a workaround", len(rep.Chains))
			}
			var lines bytes.Buffer
			for _, ch := range rep.Chains {
				b, err := json.Marshal(ch)
				if err != nil {
					t.Fatal(err)
				}
				lines.Write(append(b, '\n'))
			}
			back, _, _, err := ReadJSONL(&lines, "pairs.jsonl")
			if err != nil {
				t.Fatal(err)
			}
			for _, reports := range [][]*SessionReport{{rep}, back} {
				got := ""
				if ls := Lessons(reports); len(ls) > 0 {
					got = ls[0].Wrong + " → " + ls[0].Right
				}
				if got != tt.want {
					t.Errorf("lesson = %q, want %q", got, tt.want)
				}
			}
		})
	}
}

// TestBuiltProgramFlags checks that the flags after `cargo run --` and
// `go run PKG` are the built program's: the chain's target is the
// program, the fix renames its flag, and the parser's suggestion or usage
// text offered the new one.
func TestBuiltProgramFlags(t *testing.T) {
	clap := "    Finished `release` profile [optimized] target(s) in 0.08s\n" +
		"     Running `target/release/crun --threds 4`\n" +
		"error: unexpected argument '--threds' found\n\n  tip: a similar argument exists: '--threads'\n\n" +
		"Usage: crun --threads <THREADS>\n\nFor more information, try '--help'.\n"
	goFlag := "flag provided but not defined: -prot\nUsage of /tmp/go-build2291/b001/exe/server:\n" +
		"  -port int\n    \tport to listen on (default 8080)\n  -v\tlog every request\nexit status 2\n"
	tests := []struct {
		name          string
		failed, fixed string
		exit          int
		out           string
		target        string
		parser        string
		rename        Rename
	}{
		{"cargo run", "cargo run --release -- --threds 4", "cargo run --release -- --threads 4", 2, clap,
			"cargo run", "clap", Rename{From: "--threds", To: "--threads", FromValue: "4", ToValue: "4", By: "value"}},
		{"cargo run --bin", "cargo run --bin crun -- --threds 4", "cargo run --bin crun -- --threads 8", 2, clap,
			"crun", "clap", Rename{From: "--threds", To: "--threads", FromValue: "4", ToValue: "8", By: "name"}},
		{"go run", "go run ./cmd/server -prot 8080", "go run ./cmd/server -port 8080", 1, goFlag,
			"server", "go-flag", Rename{From: "-prot", To: "-port", FromValue: "8080", ToValue: "8080", By: "value"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep := AnalyzeSession(session(step{cmd: tt.failed, exit: tt.exit, out: tt.out}, step{cmd: "ls"}, step{cmd: tt.fixed}))
			if len(rep.Chains) != 1 {
				t.Fatalf("got %d chains, want 1", len(rep.Chains))
			}
			ch := rep.Chains[0]
			f := ch.Failures()[0]
			if f.Target != tt.target || f.Parser != tt.parser {
				t.Errorf("target %q, parser %q; want %q, %q", f.Target, f.Parser, tt.target, tt.parser)
			}
			if ch.Fix == nil || ch.Fix.CallID != "c3" || ch.Fix.Kind != FixArgv {
				t.Fatalf("fix = %+v, want c3 with its arguments changed", ch.Fix)
			}
			if ch.Diff == nil || len(ch.Diff.Renamed) != 1 || ch.Diff.Renamed[0] != tt.rename {
				t.Errorf("diff = %+v, want the rename %+v", ch.Diff, tt.rename)
			}
			if !ch.OfferedByUsage {
				t.Error("offered_by_usage = false, want true")
			}
		})
	}
}
