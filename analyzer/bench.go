package analyzer

import (
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser"
	"github.com/retrace-dev/retrace/shell"
)

// A Bench is one benchmark number a call printed: the objects `retrace
// bench` prints.
type Bench struct {
	Session SessionRef `json:"session"`
	CallID  string     `json:"call_id"`
	Msg     int        `json:"msg"`
	Target  string     `json:"target"`
	Label   string     `json:"label"`
	Value   float64    `json:"value"`
	Unit    string     `json:"unit"` // normalized: tok/s, req/s, ms, s, us, GB/s, it/s, samples/s, ops/s, %, x
	// Context holds the parameters the number was measured with: the
	// command's options and any key=value, section header or table row
	// around it, the nearer winning.
	Context map[string]string `json:"context"`
	Text    string            `json:"text"`            // the number and unit as printed
	Failed  bool              `json:"failed,omitzero"` // printed by a call that failed
	Line    int               `json:"line,omitzero"`   // 1-based line in the call's output; 0 for assistant text
	Time    time.Time         `json:"time,omitzero"`   // start of the call; zero when unknown
	// Baseline marks a reference value the transcript states ("baseline
	// 92.7 tok/s"), which is not a run of its own.
	Baseline bool `json:"baseline,omitzero"`
	// Source is "text" for a number stated in the assistant's text before
	// the call rather than printed by it; empty otherwise.
	Source string `json:"source,omitzero"`
}

// BenchOptions tunes benchmark extraction. The zero value is what
// AnalyzeSession uses.
type BenchOptions struct {
	// GPU reads nvidia-smi's GPU utilization when nvidia-smi is the command
	// run. Off, nvidia-smi's tables give no numbers, whoever prints them.
	GPU bool
}

// Benchmarks extracts the numbers of a session's calls with opts: the
// numbers AnalyzeSession finds with the zero BenchOptions.
func Benchmarks(s *parser.Session, opts BenchOptions) []*Bench {
	return newSessionAnalysis(s).benchmarksWith(opts)
}

// benchmarks extracts the numbers the session's shell calls printed.
func (a *sessionAnalysis) benchmarks() []*Bench {
	return a.benchmarksWith(BenchOptions{})
}

// benchmarksWith extracts the numbers the session's shell calls printed,
// and the baselines the assistant states before its calls, in call order.
func (a *sessionAnalysis) benchmarksWith(opts BenchOptions) []*Bench {
	var out []*Bench
	lastTarget := "" // of the last call that printed numbers
	for i, c := range a.s.Calls {
		var found []*Bench
		target := a.targets[i]
		measures := false
		if f := a.factsOf(i); f != nil && opts == (BenchOptions{}) {
			// Read when the call was added, its output since let go.
			found, measures = f.found, f.measures
			if f.other {
				target = f.mcTarget // the benchmark after `pip install … &&`
			}
		} else {
			mc := measured(a.cmds[i], opts)
			if mc != nil && mc != a.cmds[i] {
				target = mc.Target // the benchmark after `pip install … &&`
			}
			measures = mc != nil
			found = commandBench(mc, c.Output, opts)
		}
		failed := a.failures[i] != nil
		for _, b := range found {
			b.Target, b.Failed = target, failed
		}
		if len(found) > 0 {
			lastTarget = target
		}
		// A baseline stated in the text before the call belongs to what
		// the call measures, or else to what was measured last.
		if stated := textBaselines(c.Text); len(stated) > 0 {
			t := lastTarget
			if measures {
				t = target
			}
			for _, b := range stated {
				b.Target = t
			}
			if t != "" {
				found = append(stated, found...)
			}
		}
		for _, b := range found {
			b.Session = a.ref
			b.CallID = c.ID
			b.Msg = c.Msg
			b.Time = c.Start
			out = append(out, b)
		}
	}
	return out
}

// factsOf returns the facts found of call i when it was added, or nil.
func (a *sessionAnalysis) factsOf(i int) *callFacts {
	if a.facts == nil {
		return nil
	}
	return a.facts[i]
}

// callBench returns the numbers the output of a shell command holds, each
// with the command's own options as context where nothing nearer says
// otherwise. It returns nil for commands that do not measure: listings,
// searches, help text, installs, builds, servers.
func callBench(cmd *shell.Command, out string, opts BenchOptions) []*Bench {
	return commandBench(measured(cmd, opts), out, opts)
}

// commandBench returns the numbers of the output of mc, a command that
// measures (see measured), or nil when mc is nil.
func commandBench(mc *shell.Command, out string, opts BenchOptions) []*Bench {
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

// measured returns the command of a line whose output may hold results: the
// line's command of interest, or, when that only sets up (`pip install -r
// r.txt && python3 bench.py`), the last other command of the line that
// does not. It returns nil when none measures.
func measured(cmd *shell.Command, opts BenchOptions) *shell.Command {
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
func measures(cmd *shell.Command, opts BenchOptions) bool {
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

// extractBench finds the numbers in an output when the command is unknown.
func extractBench(out string) []*Bench {
	return extract(nil, out, BenchOptions{})
}

// A benchText is an output being read: its lines, and which of them a
// tool's reader has taken, so that the generic reading skips them.
type benchText struct {
	cmd     *shell.Command // the command that printed it; nil when unknown
	opts    BenchOptions
	lines   []string
	claimed []bool
}

// claim marks lines [from, to) as read.
func (t *benchText) claim(from, to int) {
	for i := max(from, 0); i < min(to, len(t.lines)); i++ {
		t.claimed[i] = true
	}
}

// claimAll marks every line as read: the output is the tool's alone.
func (t *benchText) claimAll() { t.claim(0, len(t.lines)) }

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
func extract(cmd *shell.Command, out string, opts BenchOptions) []*Bench {
	t := &benchText{cmd: cmd, opts: opts, lines: outputLines(out)}
	t.claimed = make([]bool, len(t.lines))
	var found []*Bench
	for _, tool := range benchTools {
		found = append(found, tool.read(t)...)
	}
	found = append(found, genericBench(t)...)
	sortByLine(found)
	return markBaselines(t, found)
}

// sortByLine orders numbers by line, keeping the order of each line's.
func sortByLine(found []*Bench) {
	slices.SortStableFunc(found, func(x, y *Bench) int { return x.Line - y.Line })
}

// A unitDef is a unit as printed: its normalized unit and the factor that
// converts a value to it.
type unitDef struct {
	unit   string
	factor *big.Rat
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad factor " + s)
	}
	return r
}

var one = rat("1")

// units maps the units benchmarks print, lower case, to their normalized
// form.
var units = func() map[string]unitDef {
	m := map[string]unitDef{}
	add := func(unit, factor string, names ...string) {
		f := rat(factor)
		for _, n := range names {
			m[n] = unitDef{unit, f}
		}
	}
	add("tok/s", "1", "tok/s", "toks/s", "tokens/s", "token/s", "tok/sec", "toks/sec", "tokens/sec",
		"token/sec", "tokens/second", "t/s", "tokens/seconds")
	add("req/s", "1", "req/s", "reqs/s", "requests/s", "request/s", "req/sec", "reqs/sec",
		"requests/sec", "requests/second", "rps", "qps", "queries/s", "queries/sec")
	add("ms", "1", "ms", "msec", "msecs", "millisecond", "milliseconds")
	add("s", "1", "s", "sec", "secs", "second", "seconds")
	add("s", "60", "min", "mins", "minute", "minutes")
	add("s", "3600", "hour", "hours")
	add("us", "1", "us", "µs", "μs", "usec", "usecs", "microsecond", "microseconds")
	add("us", "1/1000", "ns", "nsec", "nsecs", "nanosecond", "nanoseconds")
	// A time per iteration, token or step is a latency: ms/iter is ms.
	for _, per := range []string{"iter", "iteration", "it", "token", "tok", "step", "batch", "op",
		"call", "req", "request", "query", "sample", "image", "img", "loop"} {
		for _, t := range []string{"ms", "s", "sec", "us", "µs", "μs", "ns"} {
			if d, ok := m[t]; ok {
				m[t+"/"+per] = d
			}
		}
	}
	add("GB/s", "1", "gb/s", "gbytes/s", "gbyte/s")
	add("GB/s", "1/1000", "mb/s", "mbytes/s", "mbyte/s")
	add("GB/s", "1/1000000", "kb/s", "kbytes/s", "kbyte/s")
	add("GB/s", "1073741824/1000000000", "gib/s")
	add("GB/s", "1048576/1000000000", "mib/s")
	add("GB/s", "1024/1000000000", "kib/s")
	add("GB/s", "1000", "tb/s")
	add("GB/s", "1/8", "gbit/s", "gbits/s", "gbits/sec", "gbit/sec")
	add("GB/s", "1/8000", "mbit/s", "mbits/s", "mbits/sec", "mbit/sec")
	add("GB/s", "1/8000000", "kbit/s", "kbits/s", "kbits/sec", "kbit/sec")
	add("GB/s", "1/8000000000", "bit/s", "bits/s", "bits/sec")
	add("it/s", "1", "it/s", "iter/s", "iters/s", "iterations/s", "iterations/sec", "steps/s", "steps/sec")
	add("samples/s", "1", "samples/s", "samples/sec", "sample/s", "images/s", "images/sec",
		"img/s", "imgs/s", "imgs/sec", "seq/s", "sequences/s", "sequences/sec")
	add("ops/s", "1", "ops/s", "op/s", "ops/sec", "operations/s", "operations/sec", "iops")
	add("ops/s", "1000", "kops/s")
	add("ops/s", "1000000", "mops/s")
	add("%", "1", "%")
	add("x", "1", "x", "×")
	return m
}()

// lookupUnit finds a printed unit. Rates and symbols match whatever their
// case ("MB/s", "Gbits/sec", "IOPS"); a word must be written in lower case,
// so that "iOS 5 Second Edition" holds no seconds.
func lookupUnit(u string) (unitDef, bool) {
	lower := strings.ToLower(u)
	if lower != u && !strings.Contains(u, "/") && len(u) > 2 && u != "IOPS" {
		return unitDef{}, false
	}
	d, ok := units[lower]
	return d, ok
}

// maxNumber bounds the length of a number read, so that no input makes
// exact arithmetic slow.
const maxNumber = 40

var numberCleaner = strings.NewReplacer(",", "", "−", "-", "+", "")

// convert returns the value of a printed number times factor, rounded to
// six decimals unless that would take more than a thousandth of it away
// ("1e-320 ms" stays 1e-320). It reads "1,234.5", a sign (U+2212
// included) and "1e+07"; a value beyond float64's range, too large or too
// small to be told from 0, does not read. The arithmetic is exact, so a
// half rounds away from zero as on paper.
func convert(num string, factor *big.Rat) (float64, bool) {
	num = numberCleaner.Replace(strings.TrimSpace(num))
	if num == "" || len(num) > maxNumber {
		return 0, false
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		// Bounded so that no exponent makes exact arithmetic slow.
		if e, err := strconv.Atoi(num[i+1:]); err != nil || e > maxExponent || e < -maxExponent {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, false
	}
	if factor != nil {
		r.Mul(r, factor)
	}
	exact, _ := r.Float64()
	if math.IsInf(exact, 0) || exact == 0 && r.Sign() != 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(r.FloatString(6), 64)
	if err != nil || math.Abs(f-exact) > math.Abs(exact)/1000 {
		f = exact
	}
	return f, true
}

// maxExponent bounds the exponent of a number read: past it, a float64 is
// infinite or 0.
const maxExponent = 400

// newBench returns a number read from line n (0-based) of an output,
// converted by u; nil when the number does not read.
func newBench(label, num string, u unitDef, text string, n int, ctx map[string]string) *Bench {
	v, ok := convert(num, u.factor)
	if !ok || label == "" || u.unit == "" {
		return nil
	}
	if ctx == nil {
		ctx = map[string]string{}
	}
	return &Bench{Label: label, Value: v, Unit: u.unit, Context: ctx, Text: text, Line: n + 1}
}

// appendBench appends b to found unless it is nil.
func appendBench(found []*Bench, b ...*Bench) []*Bench {
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
