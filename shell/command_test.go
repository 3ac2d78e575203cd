package shell

import (
	"flag"
	"runtime/debug"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var _ = flag.Bool("update", false, "rewrite golden files (none here)")

func TestParse(t *testing.T) {
	tests := []struct {
		line   string
		host   string
		target string
		args   string // space-joined
		filter string // space-joined
		masked bool
	}{
		// The seed stories.
		{
			line:   `ssh root@10.1.230.174 '~/ml-env/bin/python3 /tmp/benchmark_eagle3.py --server-url http://localhost:8000 --max-tokens 500 --num-prompts 5 --warmup 1'`,
			host:   "root@10.1.230.174",
			target: "benchmark_eagle3.py",
			args:   "--server-url http://localhost:8000 --max-tokens 500 --num-prompts 5 --warmup 1",
		},
		{
			line:   `ssh root@10.1.230.174 '~/ml-env/bin/python3 /tmp/benchmark_parallel.py --concurrency 1 --num-requests 5 --max-tokens 200 2>&1'`,
			host:   "root@10.1.230.174",
			target: "benchmark_parallel.py",
			args:   "--concurrency 1 --num-requests 5 --max-tokens 200",
		},
		{line: `ssh root@10.1.230.174 'head -30 /tmp/benchmark_eagle3.py'`, host: "root@10.1.230.174", target: "head", args: "-30 /tmp/benchmark_eagle3.py"},
		// Interpreters, however spelled.
		{line: `python3 x.py -v`, target: "x.py", args: "-v"},
		{line: `/root/ml-env/bin/python3 /tmp/x.py`, target: "x.py"},
		{line: `./x.py --a 1`, target: "x.py", args: "--a 1"},
		{line: `python -u -W ignore x.py`, target: "x.py"},
		{line: `python -m pytest tests/ -x`, target: "pytest", args: "tests/ -x"},
		{line: `python3 -m pip install -U torch`, target: "pip install", args: "-U torch"},
		{line: `python -c 'print(1)'`, target: "python -c"},
		{line: `python3 - <<'EOF'` + "\nprint(1)\nEOF", target: "python -"},
		{line: `uv run pytest -q`, target: "pytest", args: "-q"},
		{line: `uv run --with rich python bench.py`, target: "bench.py"},
		{line: `poetry run python manage.py test`, target: "manage.py", args: "test"},
		{line: `npx -y tsc --noEmit`, target: "tsc", args: "--noEmit"},
		{line: `lake env lean solution.lean`, target: "lean", args: "solution.lean"},
		{line: `lake build Proofs`, target: "lake build", args: "Proofs"},
		{line: `node --require ts-node/register src/main.ts`, target: "main.ts"},
		{line: `deno run --allow-net server.ts`, target: "server.ts"},
		{line: `bash scripts/run.sh fast`, target: "run.sh", args: "fast"},
		{line: `torchrun --nproc_per_node 8 train.py --lr 1e-4`, target: "train.py", args: "--lr 1e-4"},
		// Build and task tools with their subcommand.
		{line: `go test ./pkg/... -run TestX`, target: "go test", args: "./pkg/... -run TestX"},
		{line: `go -C sub build ./...`, target: "go build", args: "./..."},
		{line: `npm run build -- --prod`, target: "npm run build", args: "-- --prod"},
		{line: `make -j8 bench`, target: "make bench"},
		{line: `make -C build V=1 test`, target: "make test"},
		{line: `./gradlew -p app build --info`, target: "gradle build", args: "--info"},
		{line: `gmake -j4 all`, target: "make all"},
		{line: `bundle _2.3.26_ install --path vendor`, target: "bundle install", args: "--path vendor"},
		{line: `jruby -S gem install rake -v 13.0`, target: "gem install", args: "rake -v 13.0"},
		{line: `make`, target: "make"},
		{line: `git -C repo status`, target: "git status"},
		{line: `cargo test --release`, target: "cargo test", args: "--release"},
		{line: `docker compose up -d`, target: "docker compose up", args: "-d"},
		// cargo run and go run: the program they build, its arguments
		// first, then the tool's own options.
		{line: `cargo run --release -- --threads 4`, target: "cargo run", args: "--threads 4 --release"},
		{line: `cargo run --release --bin server -- --port 8080`, target: "server", args: "--port 8080 --release"},
		{line: `cargo run --bin=server`, target: "server"},
		{line: `cargo run -p bench --features cuda -- --iters 10 data.bin`, target: "bench", args: "--iters 10 data.bin --features cuda"},
		{line: `cargo run -p tools --bin gen -- --out x.rs`, target: "gen", args: "--out x.rs"},
		{line: `cargo run --example demo -- -v`, target: "demo", args: "-v"},
		{line: `cargo run`, target: "cargo run"},
		{line: `cd crates/cli && cargo run -q -- --help`, target: "cargo run", args: "--help -q"},
		{line: `go run ./cmd/server -port 8080`, target: "server", args: "-port 8080"},
		{line: `go run ./cmd/server/main.go -port 8080`, target: "server", args: "-port 8080"},
		{line: `go run -race -tags netgo ./cmd/server input.txt`, target: "server", args: "input.txt -race -tags netgo"},
		{line: `go run -ldflags="-s -w" cmd/gen/ -out x.go`, target: "gen", args: "-out x.go -ldflags=-s -w"},
		{line: `go run golang.org/x/tools/cmd/stringer@latest -type=Kind`, target: "stringer", args: "-type=Kind"},
		{line: `go run . -v`, target: "go run", args: "-v"},
		{line: `go run main.go -n 5`, target: "go run", args: "-n 5"},
		{line: `go run bench.go -n 5`, target: "bench.go", args: "-n 5"},
		{line: `go run a.go b.go`, target: "go run"},
		{line: `go -C tools run ./cmd/gen`, target: "gen"},
		{line: `uv pip install numpy`, target: "uv pip install", args: "numpy"},
		// Wrappers.
		{line: `sudo -u postgres psql -c 'select 1'`, target: "psql", args: "-c select 1"},
		{line: `sudo -E env CUDA_VISIBLE_DEVICES=0 python serve.py`, target: "serve.py"},
		{line: `FOO=1 BAR=2 ./run.sh`, target: "run.sh"},
		{line: `timeout 300 python bench.py`, target: "bench.py"},
		{line: `timeout -s KILL 10s ./server`, target: "server"},
		{line: `nohup python server.py > server.log 2>&1 &`, target: "server.py", masked: true},
		{line: `nice -n 10 make`, target: "make"},
		{line: `time go build ./...`, target: "go build", args: "./..."},
		{line: `stdbuf -oL python x.py`, target: "x.py"},
		{line: `bash -lc 'cd /srv && python manage.py migrate'`, target: "manage.py", args: "migrate"},
		{line: `bash -euo pipefail -c 'make test'`, target: "make test"},
		{line: `sh -c "python3 x.py --n \"a b\""`, target: "x.py", args: "--n a b"},
		{line: `ssh -p 2222 -i ~/.ssh/key user@host "cd /app && ./bench --runs 3"`, host: "user@host", target: "bench", args: "--runs 3"},
		{line: `ssh -tt gpu1 'sudo -u ml bash -c "python3 /opt/t.py --x 1"'`, host: "gpu1", target: "t.py", args: "--x 1"},
		{line: `ssh gpu1`, target: "ssh", args: "gpu1"},
		{line: `docker exec -it web python manage.py check`, host: "docker:web", target: "manage.py", args: "check"},
		{line: `docker exec -e A=1 -w /app web ls`, host: "docker:web", target: "ls"},
		{line: `kubectl exec -n ml pod-0 -c main -- python x.py`, host: "kubectl:pod-0", target: "x.py"},
		// Setup steps, pipelines and masks.
		{line: `cd /tmp && python3 x.py`, target: "x.py"},
		{line: `source .venv/bin/activate && pytest -x`, target: "pytest", args: "-x"},
		{line: `set -e; export A=1; mkdir -p out; ./build.sh`, target: "build.sh"},
		{line: `(cd web && npm test)`, target: "npm test"},
		{line: `python x.py 2>&1 | tail -20`, target: "x.py", filter: "tail", masked: true},
		{line: `python x.py | tee log.txt | grep -i error`, target: "x.py", filter: "tee grep", masked: true},
		{line: `cat input.txt | python x.py`, target: "x.py", masked: true},
		{line: `python x.py | sudo`, target: "x.py", masked: true}, // a stage that names no target
		{line: `make test || true`, target: "make test", masked: true},
		{line: `sleep 30 && curl -s localhost:8000/health`, target: "curl", args: "-s localhost:8000/health"},
		{line: `sleep 600`, target: "sleep", args: "600"},
		{line: "cd /testbed && cat > repro.py << 'EOF'\nimport sys\nEOF\npython repro.py --fast", target: "repro.py", args: "--fast"},
		{line: `cat > notes.txt << 'EOF'` + "\nhello\nEOF", target: "cat"},
		{line: `cat notes.txt`, target: "cat", args: "notes.txt"},
		// Lines the shell cannot parse keep the words before the trouble.
		{line: "powershell.exe -Command \"cd 'C:\\src'; `$env:X='1'; git commit\"", target: "git commit"},
		{line: `python x.py --name "unterminated`, target: "x.py", args: "--name unterminated"},
		{line: `for f in *.py; do python $f; done`, target: "python", args: "$f"},
		{line: `echo hello`, target: "echo", args: "hello"},
		// Words the shell parser rejects are split on spaces.
		{line: ``, target: ""},
	}
	for _, tt := range tests {
		c := Parse(tt.line)
		got := []any{c.Host, c.Target, strings.Join(c.Args, " "), strings.Join(c.Filters, " "), c.Masked}
		want := []any{tt.host, tt.target, tt.args, tt.filter, tt.masked}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("Parse(%q) [host target args filters masked] mismatch (-want +got):\n%s", tt.line, diff)
		}
	}
}

func TestMaskedBy(t *testing.T) {
	tests := []struct{ line, want string }{
		{`python x.py 2>&1 | tail -20`, "| tail"},
		{`python x.py | sudo tee log | grep x`, "| tee"},
		{`python x.py | sudo`, "| sudo"},
		{`make test || true`, "|| …"},
		{`python server.py &`, "&"},
	}
	for _, tt := range tests {
		if got := Parse(tt.line).MaskedBy(); got != tt.want {
			t.Errorf("Parse(%q).MaskedBy() = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestParseWrites(t *testing.T) {
	tests := []struct {
		line string
		want []string
	}{
		{`cat > /tmp/x.py <<'EOF'` + "\nprint(1)\nEOF", []string{"/tmp/x.py"}},
		{`python x.py > out.log 2>&1`, []string{"out.log"}},
		{`python x.py 2>/dev/null | tee run.log`, nil},
		{`echo x >> notes.md`, []string{"notes.md"}},
	}
	for _, tt := range tests {
		if got := Parse(tt.line).Writes; !cmp.Equal(got, tt.want) {
			t.Errorf("Parse(%q).Writes = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestParseInput(t *testing.T) {
	tests := []struct {
		line   string
		input  string
		others []string
	}{
		{"python3 - <<'EOF'\nimport json\nprint(x)\nEOF", "import json\nprint(x)", nil},
		{"python3 <<EOF | tail -5\nprint($HOME)\nEOF", "print($HOME)", nil},
		{"cat > repro.py << 'EOF'\nprint(x)\nEOF\npython repro.py", "", []string{"print(x)"}},
		{"cat <<-EOF > a.txt\n\thello\n\tEOF\nwc -l a.txt", "", []string{"\thello"}},
		{"python3 <<< 'print(1)'", "'print(1)'", nil},
		{"bash -c \"python3 <<EOF\nprint(2)\nEOF\"", "print(2)", nil},
		{"ssh host python3 - <<EOF\nprint(1)\nEOF", "print(1)", nil},
		{"python3 x.py < in.txt", "", nil},
		{"python3 3<<EOF x.py\nnot stdin\nEOF", "", nil},
	}
	for _, tt := range tests {
		c := Parse(tt.line)
		if c.Input != tt.input || !cmp.Equal(c.OtherInputs, tt.others) {
			t.Errorf("Parse(%q) Input, OtherInputs = %q, %q; want %q, %q", tt.line, c.Input, c.OtherInputs, tt.input, tt.others)
		}
	}
}

func TestParseWindowsCommand(t *testing.T) {
	tests := []struct{ line, target, args string }{
		{`powershell.exe -Command "Get-ScheduledTask | Where-Object {$_.TaskPath -eq '\'} | Select-Object -First 3"`, "Get-ScheduledTask", ""},
		{`powershell.exe -NoProfile -Command "whoami /priv"`, "whoami", "/priv"},
		{`powershell '& "C:\Program Files\GnuPG\bin\gpg.exe" --import C:\Users\me\key.asc 2>&1'`, "gpg", `--import C:\Users\me\key.asc`},
		// Redirections are not arguments.
		{`powershell.exe -Command "certutil -csp 'Crypto Provider' -key 2>&1 | Select-String NGC"`, "certutil", "-csp Crypto Provider -key"},
		{`powershell.exe -Command "Get-Item C:\app *> $null; Get-Date"`, "Get-Item", `C:\app`},
		{`cmd.exe /c "sort < names.txt > sorted.txt"`, "sort", ""},
		{`cmd.exe /c "dir C:\Users"`, "dir", `C:\Users`},
		{`pwsh -c Get-Service`, "Get-Service", ""},
		{`"C:\Windows\System32\timeout.exe" /t 5`, "timeout", "/t 5"}, // Windows' own, not a wrapper
		{`"C:\Program Files\Git\usr\bin\bash.exe" -c "make test"`, "make test", ""},
		// Start-Process -Wait runs its -FilePath (or first argument) with
		// its -ArgumentList (or second), a list or one string; without
		// -Wait, the call ends before the program.
		{`powershell 'Start-Process -FilePath "C:\Program Files\Git\usr\bin\bash.exe" -ArgumentList "-c", "/usr/bin/rebase -O -v" -Wait -NoNewWindow'`, "rebase", "-O -v"},
		{`powershell.exe -Command "Start-Process powershell -Verb RunAs -Wait -ArgumentList '-NoProfile -Command Get-Service app'"`, "Get-Service", "app"},
		{`powershell.exe -Command "Start-Process powershell -Verb RunAs -Wait -ArgumentList '-NoProfile','-Command','Restart-Service Spooler'"`, "Restart-Service", "Spooler"},
		{`powershell.exe -Command "Start-Process bash -ArgumentList @('-c','make test') -Wait"`, "make test", ""},
		{`powershell.exe -Command "Start-Process msiexec -ArgumentList '/i \"C:\My Files\x.msi\" /qn' -Wait"`, "msiexec", `/i C:\My Files\x.msi /qn`},
		{`powershell.exe -Command "saps -Wait notepad.exe C:\notes.txt"`, "notepad", `C:\notes.txt`},
		{`pwsh -c "Start-Process msiexec -ArgumentList '/i x.msi ADDLOCAL=A,B /qn' -Wait"`, "msiexec", "/i x.msi ADDLOCAL=A,B /qn"},
		{`pwsh -c "Start-Process tool.exe -ArgumentList '-c','echo a,b' -Wait:$true"`, "tool", "-c echo a,b"},
		{`pwsh -c "Start-Process tool.exe -ArgumentList '\"C:\My Files\in.txt\" --out o' -Wait"`, "tool", `C:\My Files\in.txt --out o`},
		{`pwsh -c "Start-Process node -ArgumentList @('server.js','--hosts','a,b') -Wait"`, "server.js", "--hosts a,b"},
		{`docker.exe exec app make test`, "make test", ""},
		{`"C:\Program Files\Git\usr\bin\env.exe" FOO=1 make test`, "make test", ""},
		{`powershell.exe -Command "Start-Process -Args '/quiet' -File setup.exe -Wait"`, "setup", "/quiet"},
		{`powershell.exe -Command "Start-Process -FilePath .\dist\server.exe -ArgumentList '--config','prod.yaml'"`, "Start-Process", `-FilePath .\dist\server.exe -ArgumentList --config,prod.yaml`},
		{`powershell.exe -Command "Start-Process -Wait"`, "Start-Process", "-Wait"},
		// A look whose objects a method changes is named by the method.
		{`powershell.exe -Command "Get-WmiObject Win32_NetworkAdapterConfiguration | Where-Object IPEnabled | ForEach-Object { $_.SetTcpipNetbios(2) }"`,
			"Get-WmiObject .SetTcpipNetbios()", "Win32_NetworkAdapterConfiguration"},
		{`powershell.exe -Command "$svc = Get-WmiObject Win32_Service -Filter "Name='app'"; $svc.StopService()"`, "Get-WmiObject .StopService()", "Win32_Service -Filter Name=app"},
		{`powershell.exe -Command "Get-WmiObject Win32_NetworkAdapterConfiguration | Select-Object Description,TcpipNetbiosOptions"`,
			"Get-WmiObject", "Win32_NetworkAdapterConfiguration"},
		{`powershell.exe -Command "Get-ChildItem C:\logs | ForEach-Object { $_.GetType() }"`, "Get-ChildItem", `C:\logs`},
		{`powershell.exe -Command "Get-Service app | ForEach-Object { $_.Stop() }"`, "Get-Service .Stop()", "app"},
		{`powershell.exe -Command "Get-Service app; Get-Process x | ForEach-Object { $_.Kill() }"`, "Get-Service", "app"},
		// Methods that read, or change other objects, do not count.
		{`powershell.exe -Command "Get-Content C:\app.log | Where-Object { $_.StartsWith('ERROR') }"`, "Get-Content", `C:\app.log`},
		{`powershell.exe -Command "Get-ChildItem C:\logs | Where-Object { $_.LastWriteTime -gt $cutoff.AddDays(-1) }"`, "Get-ChildItem", `C:\logs`},
		{`powershell.exe -Command "$sw = [Diagnostics.Stopwatch]::StartNew(); Get-Process; $sw.Stop()"`, "Get-Process", ""},
		{`powershell.exe -Command "Get-Process | ForEach-Object { [void]$names.Add($_.Name) }"`, "Get-Process", ""},
		{`powershell.exe -Command "Stop-Service app; $p.Start()"`, "Stop-Service", "app"},
	}
	for _, tt := range tests {
		c := Parse(tt.line)
		if c.Target != tt.target || strings.Join(c.Args, " ") != tt.args {
			t.Errorf("Parse(%q) = %q %q, want %q %q", tt.line, c.Target, strings.Join(c.Args, " "), tt.target, tt.args)
		}
	}
}

// TestParseBounded reads command lines the shell parser would
// recurse through once or more per level, with the stack limited to
// 16 MiB: a stack overflow is fatal, not a panic. Lines nested too deep or
// too long for the parser are taken as words, the way lines it rejects
// are; lines within the bounds are read whole, chains of any length
// included.
func TestParseBounded(t *testing.T) {
	defer debug.SetMaxStack(debug.SetMaxStack(16 << 20))
	long := "cat > big.txt <<'EOF'\n" + strings.Repeat("x", 64<<10) + "\nEOF\nmake test"
	for _, tt := range []struct {
		name, line string
		target     string
	}{
		{"300 000 parentheses", strings.Repeat("(", 300_000), strings.Repeat("(", 300_000)},
		{"parentheses around a command", strings.Repeat("(", 150) + "make test" + strings.Repeat(")", 150), strings.Repeat("(", 150) + "make"},
		{"substitutions", "echo " + strings.Repeat("$(", 40_000) + strings.Repeat(")", 40_000), "echo"},
		{"a long here-document", long, "cat"},
		{"an and list", strings.Repeat(":&&", 21000) + "make test", "make test"},
		{"an or list", strings.Repeat(":||", 21000) + "make test", "make test"},
		{"a pipeline", "make test" + strings.Repeat("|a", 30000), "make test"},
		{"nested enough", strings.Repeat("( ", 50) + "make test" + strings.Repeat(" )", 50), "make test"},
		// Wrappers are followed maxDepth deep, in every form.
		{"modules of modules", "python" + strings.Repeat(" -mpython", 100_000), "python"},
		{"runners of runners", strings.Repeat("uv run ", 100_000) + "pytest", "uv run"},
	} {
		c := Parse(tt.line)
		if c.Target != tt.target {
			t.Errorf("%s: target %.60q, want %.60q", tt.name, c.Target, tt.target)
		}
	}
}

// TestWrappers checks that the wrappers peeled are kept, each as written up
// to what it runs, outermost first.
func TestWrappers(t *testing.T) {
	for _, tt := range []struct {
		line string
		want []string
	}{
		{`ipconfig /all`, nil},
		{`cmd.exe /c "ipconfig /all"`, []string{"cmd.exe /c"}},
		{`powershell.exe -NoProfile -Command "Get-Process -Name app"`, []string{"powershell.exe -NoProfile -Command"}},
		{`powershell 'code notes.md'`, []string{"powershell"}},
		{`sudo -u app timeout 30 ./run.sh --fast`, []string{"sudo -u app", "timeout 30"}},
		{`ssh -p 2222 build@ci 'bash -lc "make test"'`, []string{"ssh -p 2222 build@ci", "bash -lc"}},
		{`docker exec -it web python manage.py migrate`, []string{"docker exec -it web"}},
		{`cd app && nohup ./server &`, []string{"nohup"}},
		{`timeout 5 RUST_LOG=info ./app`, []string{"timeout 5"}},
		{`env -u HOME LANG=C sort x`, []string{"env -u HOME"}},
		{`powershell 'Start-Process -FilePath "C:\Program Files\Git\usr\bin\bash.exe" -ArgumentList "-c", "rebase -O -v" -Wait'`,
			[]string{"powershell", "Start-Process", `C:\Program Files\Git\usr\bin\bash.exe -c`}},
	} {
		if got := Parse(tt.line).Wrappers; !slices.Equal(got, tt.want) {
			t.Errorf("Parse(%q).Wrappers = %q, want %q", tt.line, got, tt.want)
		}
	}
}
