package bench

import (
	"slices"
	"strings"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/shell"
)

// A Result is one number an output holds: what it measures (its label),
// its value in a normalized unit, the parameters it was measured with and
// where the output printed it.
type Result struct {
	Label string  `json:"label"`
	Value float64 `json:"value"`
	Unit  string  `json:"unit"` // normalized: tok/s, req/s, ms, s, us, GB/s, it/s, samples/s, ops/s, %, x
	// Context holds the parameters the number was measured with: the
	// command's options and any key=value, section header or table row
	// around it, the nearer winning.
	Context map[string]string `json:"context"`
	Text    string            `json:"text"`          // the number and unit as printed
	Line    int               `json:"line,omitzero"` // 1-based line in the output; 0 for the assistant's text
	// Baseline marks a reference value the transcript states ("baseline
	// 92.7 tok/s"), which is not a run of its own.
	Baseline bool `json:"baseline,omitzero"`
	// Source is "text" for a number stated in the assistant's text before
	// the call rather than printed by it; empty otherwise.
	Source string `json:"source,omitzero"`
}

// Options tunes benchmark reading. The zero value is what the analysis of
// a session uses.
type Options struct {
	// GPU reads nvidia-smi's GPU utilization when nvidia-smi is the command
	// run. Off, nvidia-smi's tables give no numbers, whoever prints them.
	GPU bool
}

// Read returns the numbers the output of mc holds, each with the
// command's own options as context where nothing nearer says otherwise;
// mc is a command that measures, as Measured returns it, or nil, which
// gives none. The numbers come in output order.
func Read(mc *shell.Command, out string, opts Options) []*Result {
	if mc == nil {
		return nil
	}
	found := extract(mc, out, opts)
	if len(found) == 0 {
		return nil
	}
	ctx := commandContext(mc)
	for _, b := range found {
		for k, v := range ctx {
			if _, ok := b.Context[k]; !ok {
				b.Context[k] = v
			}
		}
	}
	return found
}

// Measured returns the command of a line whose output may hold results:
// the line's command of interest (what a `docker run` runs), or, when
// that only sets up (`pip install -r r.txt && python3 bench.py`), the last
// other command of the line that does not. It returns nil for a line
// that does not measure: listings, searches, help text, installs, builds,
// servers; and for a nil cmd.
func Measured(cmd *shell.Command, opts Options) *shell.Command {
	if cmd == nil {
		return nil
	}
	if c := cmd.InContainer(); c != nil {
		cmd = c
	}
	if measures(cmd, opts) {
		return cmd
	}
	if !preparesOnly(cmd) {
		return nil
	}
	for i := len(cmd.Others) - 1; i >= 0; i-- {
		argv := cmd.Others[i]
		if len(argv) == 0 || shell.IsSetup(shell.ProgramName(argv[0])) {
			continue
		}
		c := cmd.Sub(argv)
		if measures(c, opts) {
			return c
		}
	}
	return nil
}

// measures reports whether a command's output may hold benchmark results:
// not a file listing, a search, source code, help text, an install, a
// build or a server's log.
func measures(cmd *shell.Command, opts Options) bool {
	if opts.GPU && cmd.Target == "nvidia-smi" {
		return true
	}
	if cmd.Inspects() || cmd.IsViewer() {
		return false
	}
	if preparesOnly(cmd) || servers[cmd.Target] || quietPrograms[cmd.Program()] {
		return false
	}
	return !cmd.AsksHelp()
}

// preparesOnly reports whether a command installs, downloads or builds.
// A container run is not one: what it runs may be a benchmark.
func preparesOnly(cmd *shell.Command) bool {
	if cmd.Target == "docker run" || cmd.Target == "podman run" {
		return false
	}
	return cmd.ChangesEnvironment() || builds[cmd.Target]
}

// builds are targets that compile or package: their times are build
// times.
var builds = map[string]bool{
	"cargo build": true, "cargo check": true, "go build": true, "go vet": true,
	"docker build": true, "docker buildx build": true, "docker compose build": true,
	"podman build": true, "npm run build": true, "pnpm run build": true,
	"yarn run build": true, "yarn build": true, "tsc": true, "vite": true,
	"cmake": true, "ninja": true, "gradle build": true, "mvn package": true,
	"mvn install": true, "pip wheel": true, "build": true, "mkdocs build": true,
}

// quietPrograms never print benchmark results: version control, CI
// clients, network probes and system settings, whose times are not
// measurements of the project.
var quietPrograms = map[string]bool{
	"git": true, "gh": true, "glab": true, "hub": true, "svn": true, "hg": true,
	"ping": true, "ping6": true, "traceroute": true, "tracepath": true, "mtr": true,
	"dig": true, "nslookup": true, "host": true, "whois": true, "net": true, "netsh": true,
	"ipconfig": true, "ifconfig": true, "ip": true, "systeminfo": true, "sysctl": true,
}

// servers are targets that start an inference server: the throughputs in
// their logs are the server's own running statistics, not results.
var servers = map[string]bool{
	"vllm serve": true, "sglang.launch_server": true, "sglang serve": true,
	"vllm.entrypoints.openai.api_server": true, "vllm.entrypoints.api_server": true,
	"text-generation-launcher": true, "llama-server": true, "ollama serve": true,
	"trtllm-serve": true, "lmdeploy serve": true, "tritonserver": true,
}

// An output is one being read: its lines, and which of them a
// tool's reader has taken, so that the generic reading skips them.
type output struct {
	cmd     *shell.Command // the command that printed it; nil when unknown
	opts    Options
	lines   []string
	claimed []bool
}

// claim marks lines [from, to) as read.
func (t *output) claim(from, to int) {
	for i := max(from, 0); i < min(to, len(t.lines)); i++ {
		t.claimed[i] = true
	}
}

// claimAll marks every line as read: the output is the tool's alone.
func (t *output) claimAll() { t.claim(0, len(t.lines)) }

// maxLine bounds the lines read: longer ones (JSON documents, minified
// code, base64) hold no results and are read as blank.
const maxLine = 4096

// outputLines splits an output into the lines a terminal would show: the
// text after a line's last carriage return, without escape sequences (see
// termtext.EscapeLen).
func outputLines(out string) []string {
	out = termtext.StripEscapes(out)
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		l = strings.TrimRight(l, "\r")
		if j := strings.LastIndexByte(l, '\r'); j >= 0 {
			l = l[j+1:]
		}
		if len(l) > maxLine {
			l = ""
		}
		lines[i] = l
	}
	return lines
}

// extract reads an output with the tools' readers, then reads the lines
// none of them took with the generic reading. The numbers come in output
// order.
func extract(cmd *shell.Command, out string, opts Options) []*Result {
	t := &output{cmd: cmd, opts: opts, lines: outputLines(out)}
	t.claimed = make([]bool, len(t.lines))
	var found []*Result
	for _, r := range readers {
		found = append(found, r.read(t)...)
	}
	found = append(found, readGeneric(t)...)
	sortByLine(found)
	return markBaselines(t, found)
}

// sortByLine orders numbers by line, keeping the order of each line's.
func sortByLine(found []*Result) {
	slices.SortStableFunc(found, func(x, y *Result) int { return x.Line - y.Line })
}

// newResult returns a number read from line n (0-based) of an output,
// converted by u; nil when the number does not read.
func newResult(label, num string, u unitDef, text string, n int, ctx map[string]string) *Result {
	v, ok := convert(num, u.factor)
	if !ok || label == "" || u.unit == "" {
		return nil
	}
	if ctx == nil {
		ctx = map[string]string{}
	}
	return &Result{Label: label, Value: v, Unit: u.unit, Context: ctx, Text: text, Line: n + 1}
}

// appendResult appends b to found unless it is nil.
func appendResult(found []*Result, b ...*Result) []*Result {
	for _, x := range b {
		if x != nil {
			found = append(found, x)
		}
	}
	return found
}

// copyContext returns a copy of ctx.
func copyContext(ctx map[string]string) map[string]string {
	c := make(map[string]string, len(ctx))
	for k, v := range ctx {
		c[k] = v
	}
	return c
}

// contextKey normalizes the name of a parameter, however it was printed:
// "--max-tokens", "max_tokens" and "Max tokens" are all "max-tokens".
func contextKey(name string) string {
	name = strings.ToLower(strings.Trim(name, "- "))
	return strings.NewReplacer("_", "-", " ", "-").Replace(name)
}
