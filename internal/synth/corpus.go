package synth

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"strings"
	"time"
)

// The benchmark corpus: sessions drawn at random, but reproducibly, with
// the mix of calls and outputs real transcripts hold. Most calls succeed
// and print little (ls, git status, a grep); some read or write whole
// files; builds, installs and test runs print long logs, a few longer
// than retrace keeps; one call in ten or so fails, and most failures are
// followed by the edit, install or corrected command that fixes them; and
// some calls are benchmarks that print numbers with units, as lines or as
// tables. The proportions follow the public transcripts the team studied
// (../shared/corpus): in Claude Code's files a shell output is 130 bytes
// at the median and 1.3 KB at the 90th percentile, a file read 2 KB and
// 13 KB, and a file takes about 8 KB per call. The bytes of Claude Code's
// files divide among the parts of their records as real ones do, within a
// few points (go run ./tools/transcriptmix compares them): in the real
// files, toolUseResult 33%, tool_result 13%, tool inputs 7%, images 10%,
// thinking 6%, text 2%; in 100 MB of these, 36%, 22%, 4%, 7%, 6%, 1%.

// Corpus returns session n of the corpus drawn from seed. The same seed
// and n give the same session, byte for byte once written.
func Corpus(seed uint64, n int) *Session {
	g := &gen{r: rand.New(rand.NewPCG(seed, uint64(n)))}
	g.ids = ids{seed: fmt.Sprintf("corpus/%d/%d", seed, n)}
	lang := languages[g.r.IntN(len(languages))]
	project := pick(g.r, projects)
	g.lang = lang
	g.s = &Session{
		ID:    g.ids.uuid(),
		Title: "",
		Cwd:   "/home/dev/" + project,
		Model: pick(g.r, models),
		Start: time.Date(2026, 1, 5, 9, 0, 0, 0, time.UTC).Add(time.Duration(n) * 97 * time.Minute),
	}
	g.files = g.projectFiles()
	// Real sessions run from a few dozen calls to several hundred; the
	// spread keeps files from 100 KB to a few MB.
	calls := 30 + int(g.r.ExpFloat64()*150)
	calls = min(calls, 900)
	g.prompt(true)
	for len(g.s.Steps) < calls {
		if g.r.IntN(14) == 0 {
			g.prompt(false)
		}
		g.episode()
	}
	return g.s
}

// A Format is a transcript format synth writes.
type Format struct {
	Name  string // retrace's name of the format
	Write func(io.Writer, *Session) error
}

// Formats lists the formats synth writes.
var Formats = []Format{
	{"claude-code", WriteClaude},
	{"codex", WriteCodex},
	{"gemini", WriteGemini},
	{"opencode", WriteOpencode},
}

// Transcripts renders sessions 0, 1, 2, … of the corpus drawn from seed in
// the named format until they add up to size bytes, for benchmarks.
func Transcripts(format string, seed uint64, size int) ([][]byte, error) {
	i := slices.IndexFunc(Formats, func(f Format) bool { return f.Name == format })
	if i < 0 {
		return nil, fmt.Errorf("synth writes no format %q", format)
	}
	var out [][]byte
	for n, total := 0, 0; total < size; n++ {
		var b bytes.Buffer
		if err := Formats[i].Write(&b, Corpus(seed, n)); err != nil {
			return nil, err
		}
		out = append(out, b.Bytes())
		total += b.Len()
	}
	return out, nil
}

// A gen draws one session.
type gen struct {
	r     *rand.Rand
	ids   ids
	s     *Session
	lang  string
	files []string // the project's source files, relative to Cwd
}

var (
	languages = []string{"python", "python", "go", "typescript", "rust"}
	projects  = []string{"inference-bench", "ledger-api", "photo-sync", "queue-worker", "docs-site",
		"cache-proxy", "etl-pipeline", "chat-frontend", "billing-service", "tokenizer-rs",
		"feature-store", "metrics-agent", "search-indexer", "auth-gateway", "mobile-backend"}
	models = []string{"claude-opus-4-5-20251101", "claude-sonnet-4-5-20250929", "claude-haiku-4-5-20251001"}
	words  = strings.Fields(`the a of to and in for on with that this it is be as by from at or an
		request response handler cache config server client batch token model user item value index
		query result error context buffer stream record parser reader writer worker queue job task
		retry timeout limit offset page session file path line test build deploy check update load
		save parse render fetch store merge split sort filter count total mean latency throughput
		memory disk network thread process lock state event message schema table column row field`)
	idents = strings.Fields(`config handler request response cache client server batch token model
		user item value index query result ctx buf stream record parser reader writer worker queue
		job task retries timeout limit offset page session path line count total mean latency
		payload headers params options settings store registry router manager loader encoder
		decoder scheduler metrics logger tracer pool conn db tx rows schema entry entries key keys`)
	packages = []string{"requests", "numpy", "pandas", "flask", "pydantic", "httpx", "rich",
		"uvicorn", "fastapi", "sqlalchemy", "pytest-asyncio", "orjson", "tqdm", "torch", "transformers"}
)

func pick[T any](r *rand.Rand, list []T) T { return list[r.IntN(len(list))] }

// between returns a number in [lo, hi].
func (g *gen) between(lo, hi int) int { return lo + g.r.IntN(hi-lo+1) }

// logSize returns a size between lo and hi, most often near lo: the
// long-tailed sizes of outputs.
func (g *gen) logSize(lo, hi int) int {
	v := float64(lo) * (1 + g.r.ExpFloat64()*1.5)
	return min(int(v), hi)
}

func (g *gen) ext() string {
	switch g.lang {
	case "go":
		return ".go"
	case "typescript":
		return ".ts"
	case "rust":
		return ".rs"
	}
	return ".py"
}

func (g *gen) projectFiles() []string {
	dirs := map[string][]string{
		"python":     {"src/app", "src/app/core", "tests", "scripts"},
		"go":         {"cmd/server", "internal/store", "internal/api", "pkg/util"},
		"typescript": {"src", "src/components", "src/lib", "test"},
		"rust":       {"src", "src/bin", "benches", "tests"},
	}[g.lang]
	var files []string
	for range g.between(8, 30) {
		name := pick(g.r, idents) + "_" + pick(g.r, idents)
		if g.lang == "typescript" || g.lang == "go" {
			name = pick(g.r, idents) + strings.ToUpper(pick(g.r, idents)[:1]) + pick(g.r, idents)[1:]
		}
		files = append(files, pick(g.r, dirs)+"/"+name+g.ext())
	}
	return files
}

func (g *gen) abs(rel string) string { return g.s.Cwd + "/" + rel }

func (g *gen) sentence(n int) string {
	w := make([]string, n)
	for i := range w {
		w[i] = pick(g.r, words)
	}
	s := strings.Join(w, " ")
	return strings.ToUpper(s[:1]) + s[1:] + "."
}

func (g *gen) prose(sentences int) string {
	var b strings.Builder
	for i := range sentences {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(g.sentence(g.between(6, 18)))
	}
	return b.String()
}

func (g *gen) ident() string {
	a, b := pick(g.r, idents), pick(g.r, idents)
	if g.lang == "go" || g.lang == "typescript" {
		return a + strings.ToUpper(b[:1]) + b[1:]
	}
	return a + "_" + b
}

// code returns n lines of source code in the session's language.
func (g *gen) code(n int) string {
	var b strings.Builder
	indent := ""
	for i := 0; i < n; i++ {
		switch g.lang {
		case "go":
			switch g.r.IntN(9) {
			case 0:
				indent = "\t"
				fmt.Fprintf(&b, "func (s *%s) %s(ctx context.Context, %s int) error {\n", strings.ToUpper(pick(g.r, idents)[:1])+"tore", g.ident(), pick(g.r, idents))
			case 1:
				fmt.Fprintf(&b, "%sif err := s.%s.%s(%s); err != nil {\n%s\treturn fmt.Errorf(\"%s %%s: %%w\", %s, err)\n%s}\n", indent, pick(g.r, idents), g.ident(), pick(g.r, idents), indent, pick(g.r, words), pick(g.r, idents), indent)
				i += 2
			case 2:
				fmt.Fprintf(&b, "%s// %s\n", indent, g.sentence(g.between(4, 12)))
			case 3:
				if indent != "" {
					b.WriteString("}\n\n")
					indent = ""
					i++
				} else {
					fmt.Fprintf(&b, "const %s = %d\n", g.ident(), g.between(1, 4096))
				}
			default:
				fmt.Fprintf(&b, "%s%s := %s.%s(%s, %d)\n", indent, g.ident(), pick(g.r, idents), g.ident(), pick(g.r, idents), g.between(0, 512))
			}
		case "typescript":
			switch g.r.IntN(8) {
			case 0:
				indent = "  "
				fmt.Fprintf(&b, "export async function %s(%s: %s): Promise<void> {\n", g.ident(), pick(g.r, idents), "string")
			case 1:
				fmt.Fprintf(&b, "%sconst %s = await %s.%s({ %s: %d });\n", indent, g.ident(), pick(g.r, idents), g.ident(), pick(g.r, idents), g.between(1, 100))
			case 2:
				fmt.Fprintf(&b, "%s// %s\n", indent, g.sentence(g.between(4, 12)))
			case 3:
				if indent != "" {
					b.WriteString("}\n\n")
					indent = ""
					i++
				} else {
					fmt.Fprintf(&b, "import { %s } from \"./%s\";\n", g.ident(), pick(g.r, idents))
				}
			default:
				fmt.Fprintf(&b, "%sif (%s.%s > %d) return %s(`%s ${%s}`);\n", indent, pick(g.r, idents), pick(g.r, idents), g.between(0, 64), g.ident(), pick(g.r, words), pick(g.r, idents))
			}
		case "rust":
			switch g.r.IntN(8) {
			case 0:
				indent = "    "
				fmt.Fprintf(&b, "pub fn %s(%s: &str) -> Result<usize, Error> {\n", g.ident(), pick(g.r, idents))
			case 1:
				fmt.Fprintf(&b, "%slet %s = %s.%s(%d)?;\n", indent, g.ident(), pick(g.r, idents), g.ident(), g.between(0, 99))
			case 2:
				fmt.Fprintf(&b, "%s// %s\n", indent, g.sentence(g.between(4, 12)))
			case 3:
				if indent != "" {
					b.WriteString("}\n\n")
					indent = ""
					i++
				} else {
					fmt.Fprintf(&b, "use crate::%s::%s;\n", pick(g.r, idents), g.ident())
				}
			default:
				fmt.Fprintf(&b, "%sif %s.len() > %d { return Ok(%s.%s()); }\n", indent, pick(g.r, idents), g.between(0, 64), pick(g.r, idents), g.ident())
			}
		default:
			switch g.r.IntN(9) {
			case 0:
				indent = "    "
				fmt.Fprintf(&b, "def %s(%s, %s=%d):\n", g.ident(), pick(g.r, idents), pick(g.r, idents), g.between(1, 100))
			case 1:
				fmt.Fprintf(&b, "%s\"\"\"%s\"\"\"\n", indent, g.sentence(g.between(5, 14)))
			case 2:
				fmt.Fprintf(&b, "%s# %s\n", indent, g.sentence(g.between(4, 12)))
			case 3:
				if indent != "" {
					b.WriteString("\n")
					indent = ""
				} else {
					fmt.Fprintf(&b, "from %s import %s\n", pick(g.r, idents), g.ident())
				}
			case 4:
				fmt.Fprintf(&b, "%sfor %s in %s:\n%s    %s.append(%s.get(\"%s\", %d))\n", indent, pick(g.r, idents), pick(g.r, idents), indent, pick(g.r, idents), pick(g.r, idents), pick(g.r, idents), g.between(0, 9))
				i++
			default:
				fmt.Fprintf(&b, "%s%s = %s.%s(%s, timeout=%d)\n", indent, g.ident(), pick(g.r, idents), g.ident(), pick(g.r, idents), g.between(1, 120))
			}
		}
	}
	return b.String()
}

// numbered writes lines as cat -n does, from line start.
func numbered(text string, start int) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		fmt.Fprintf(&b, "%6d→%s\n", start+i, l)
	}
	return b.String()
}

// prompt appends a user prompt; the first of a session sets its title.
func (g *gen) prompt(first bool) {
	p := pick(g.r, []string{
		"The %s tests fail since yesterday's merge. Find out why and fix them.",
		"Add retries with backoff to the %s client and measure the throughput before and after.",
		"Profile the %s path: it got slow. Benchmark it and make it faster.",
		"Refactor the %s module so that it can be tested without the network.",
		"Set up the dev environment for %s and get the test suite green.",
		"Why does %s use so much memory? Measure it and fix the worst offender.",
	})
	text := fmt.Sprintf(p, g.ident())
	if !first || g.r.IntN(3) == 0 {
		text += "\n\n" + g.prose(g.between(1, 6))
	}
	st := Step{Prompt: text}
	if g.r.IntN(8) == 0 {
		// A pasted screenshot: base64 the size of a small PNG.
		img := make([]byte, g.logSize(20<<10, 400<<10))
		for i := range img {
			img[i] = byte(g.r.Uint32())
		}
		st.Image = base64.StdEncoding.EncodeToString(img)
	}
	if first {
		g.s.Title = strings.SplitN(text, "\n", 2)[0]
	}
	g.s.Steps = append(g.s.Steps, st)
}

// think fills in what the assistant wrote before a call: its reasoning,
// its text, its time and tokens.
func (g *gen) think(st *Step) {
	if g.r.IntN(2) == 0 {
		st.Thinking = g.prose(g.logSize(4, 50))
	}
	if st.Text == "" && g.r.IntN(5) < 2 {
		st.Text = g.prose(g.between(1, 4))
	}
	st.Think = time.Duration(g.between(1500, 30000)) * time.Millisecond
	st.Tokens = g.between(20, 900)
}

func (g *gen) add(st Step) {
	g.think(&st)
	if st.Duration == 0 {
		st.Duration = time.Duration(g.between(40, 3000)) * time.Millisecond
	}
	g.s.Steps = append(g.s.Steps, st)
}

func (g *gen) bash(cmd, out string, exit int, secs float64) {
	g.add(Step{Tool: "bash", Input: []KV{{"command", cmd}, {"description", g.describe(cmd)}},
		Output: out, Exit: exit, Duration: time.Duration(secs * float64(time.Second))})
}

func (g *gen) describe(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "Run command"
	}
	return "Run " + f[0] + " " + pick(g.r, words)
}

// episode appends one episode: a call, or a failure and what fixes it.
func (g *gen) episode() {
	switch n := g.r.IntN(100); {
	case n < 22:
		g.explore()
	case n < 38:
		g.read()
	case n < 50:
		g.edit()
	case n < 54:
		g.write()
	case n < 60:
		g.grep()
	case n < 63:
		g.todo()
	case n < 70:
		g.testsPass()
	case n < 75:
		g.longLog()
	case n < 81:
		g.benchmark()
	case n < 84:
		g.testsFailThenFix()
	case n < 86:
		g.wrongFlag()
	case n < 88:
		g.notFound()
	case n < 90:
		g.missingModule()
	case n < 92:
		g.buildError()
	case n < 94:
		g.missingFile()
	case n < 95:
		g.permission()
	case n < 96:
		g.timeout()
	case n < 97:
		g.editMiss()
	case n < 98:
		g.connection()
	default:
		g.unresolved()
	}
}

func (g *gen) file() string { return pick(g.r, g.files) }

// explore appends a command that looks around and prints a little.
func (g *gen) explore() {
	switch g.r.IntN(8) {
	case 0:
		var b strings.Builder
		fmt.Fprintf(&b, "total %d\n", g.between(8, 200))
		for range g.between(3, 25) {
			fmt.Fprintf(&b, "-rw-r--r--  1 dev dev %6d Jan %2d %02d:%02d %s\n", g.logSize(200, 90000), g.between(1, 28), g.between(0, 23), g.between(0, 59), pick(g.r, g.files))
		}
		g.bash("ls -la "+pick(g.r, []string{".", "src", "tests", "scripts"}), b.String(), 0, 0.1)
	case 1:
		var b strings.Builder
		for range g.between(0, 6) {
			fmt.Fprintf(&b, " M %s\n", g.file())
		}
		g.bash("git status --short", b.String(), 0, 0.1)
	case 2:
		var b strings.Builder
		for range g.between(5, 20) {
			fmt.Fprintf(&b, "%s %s\n", g.ids.next(hexDigits, 7), strings.TrimSuffix(g.sentence(g.between(3, 9)), "."))
		}
		g.bash("git log --oneline -20", b.String(), 0, 0.1)
	case 3:
		var b strings.Builder
		for range g.between(3, 40) {
			fmt.Fprintf(&b, "./%s\n", g.file())
		}
		g.bash("find . -name '*"+g.ext()+"' | head -50", b.String(), 0, 0.2)
	case 4:
		f := g.file()
		text := g.code(g.logSize(20, 700))
		g.bash("cat "+f, text, 0, 0.05)
	case 5:
		var b strings.Builder
		for range g.between(1, 30) {
			fmt.Fprintf(&b, "%s:%d:%s\n", g.file(), g.between(1, 900), strings.TrimRight(g.code(1), "\n"))
		}
		g.bash("grep -rn "+pick(g.r, idents)+" "+pick(g.r, []string{"src", ".", "internal"}), b.String(), 0, 0.3)
	case 6:
		var b strings.Builder
		files := g.between(1, 4)
		for range files {
			f := g.file()
			fmt.Fprintf(&b, "diff --git a/%s b/%s\nindex %s..%s 100644\n--- a/%s\n+++ b/%s\n@@ -%d,7 +%d,8 @@\n", f, f, g.ids.next(hexDigits, 7), g.ids.next(hexDigits, 7), f, f, g.between(1, 300), g.between(1, 300))
			for _, l := range strings.Split(strings.TrimSuffix(g.code(g.between(4, 20)), "\n"), "\n") {
				fmt.Fprintf(&b, "%s%s\n", pick(g.r, []string{" ", " ", " ", "+", "-"}), l)
			}
		}
		g.bash("git diff", b.String(), 0, 0.1)
	default:
		g.bash(pick(g.r, []string{"pwd", "python3 --version", "go version", "node --version", "nproc", "whoami", "mkdir -p build/out", "echo done"}),
			pick(g.r, []string{g.s.Cwd + "\n", "Python 3.12.4\n", "go version go1.26.1 linux/amd64\n", "v22.11.0\n", "16\n", "dev\n", "", "done\n"}), 0, 0.05)
	}
}

func (g *gen) read() {
	f := g.file()
	text := g.code(g.logSize(20, 250))
	g.add(Step{Tool: "read", Input: []KV{{"file_path", g.abs(f)}}, Output: text, Duration: time.Duration(g.between(20, 200)) * time.Millisecond})
}

// editStep returns an edit of file f, whose text before the edit is
// original.
func (g *gen) editStep(f, original string) Step {
	lines := strings.Split(strings.TrimSuffix(original, "\n"), "\n")
	at := g.r.IntN(len(lines))
	n := min(g.between(1, 6), len(lines)-at)
	oldText := strings.Join(lines[at:at+n], "\n")
	newText := strings.TrimSuffix(g.code(g.between(2, 24)), "\n")
	snippet := append(append(append([]string{}, lines[max(at-4, 0):at]...), strings.Split(newText, "\n")...), lines[at+n:min(at+n+4, len(lines))]...)
	return Step{Tool: "edit",
		Input:    []KV{{"file_path", g.abs(f)}, {"old_string", oldText}, {"new_string", newText}},
		Output:   numbered(strings.Join(snippet, "\n"), max(at-4, 0)+1),
		Original: original,
		Duration: time.Duration(g.between(20, 200)) * time.Millisecond,
	}
}

func (g *gen) edit() {
	g.add(g.editStep(g.file(), g.code(g.logSize(60, 900))))
}

func (g *gen) write() {
	f := strings.TrimSuffix(g.file(), g.ext()) + "_" + pick(g.r, idents) + g.ext()
	g.add(Step{Tool: "write", Input: []KV{{"file_path", g.abs(f)}, {"content", g.code(g.logSize(40, 600))}}})
}

func (g *gen) grep() {
	pat := pick(g.r, idents)
	if g.r.IntN(5) == 0 {
		g.add(Step{Tool: "grep", Input: []KV{{"pattern", pat + "_missing"}, {"path", g.s.Cwd}}, NoMatch: true})
		return
	}
	var b strings.Builder
	for range g.between(1, 25) {
		fmt.Fprintf(&b, "%s:%d:%s\n", g.abs(g.file()), g.between(1, 900), strings.TrimRight(g.code(1), "\n"))
	}
	g.add(Step{Tool: "grep", Input: []KV{{"pattern", pat}, {"path", g.s.Cwd}}, Output: b.String()})
}

func (g *gen) todo() {
	var todos []obj
	for i := range g.between(2, 7) {
		status := "pending"
		if i == 0 {
			status = "in_progress"
		}
		s := strings.TrimSuffix(g.sentence(g.between(3, 8)), ".")
		todos = append(todos, obj{{"content", s}, {"status", status}, {"activeForm", s}})
	}
	g.add(Step{Tool: "todo", Input: []KV{{"todos", todos}}})
}

// testCmd returns the project's test command.
func (g *gen) testCmd() string {
	return map[string]string{"python": "python -m pytest -q tests/", "go": "go test ./...", "typescript": "npm test", "rust": "cargo test"}[g.lang]
}

func (g *gen) testOutput(failed string) string {
	var b strings.Builder
	n := g.between(8, 400)
	switch g.lang {
	case "go":
		for _, f := range g.files {
			if !strings.HasSuffix(f, ".go") {
				continue
			}
			dir := "github.com/dev/" + g.s.Cwd[strings.LastIndexByte(g.s.Cwd, '/')+1:] + "/" + f[:strings.LastIndexByte(f, '/')]
			if failed != "" && g.r.IntN(3) == 0 {
				fmt.Fprintf(&b, "--- FAIL: Test%s (0.%02ds)\n    %s_test.go:%d: got %d, want %d\n%s\nFAIL\t%s\t0.%03ds\n", failed, g.between(0, 99), pick(g.r, idents), g.between(10, 300), g.between(0, 9), g.between(10, 99), "FAIL", dir, g.between(10, 999))
				failed = ""
				continue
			}
			fmt.Fprintf(&b, "ok  \t%s\t%d.%03ds\n", dir, g.between(0, 3), g.between(0, 999))
		}
		if failed != "" {
			fmt.Fprintf(&b, "--- FAIL: Test%s (0.01s)\nFAIL\n", failed)
		}
	case "typescript":
		fmt.Fprintf(&b, "\n> %s@1.0.0 test\n> vitest run\n\n", g.s.Cwd[strings.LastIndexByte(g.s.Cwd, '/')+1:])
		for range g.between(2, 30) {
			fmt.Fprintf(&b, " \x1b[32m✓\x1b[39m %s \x1b[2m(%d tests)\x1b[22m \x1b[33m%dms\x1b[39m\n", g.file(), g.between(1, 40), g.between(2, 900))
		}
		if failed != "" {
			fmt.Fprintf(&b, " FAIL  test/%s.test.ts > %s\nAssertionError: expected %d to be %d\n\n Test Files  1 failed | %d passed\n      Tests  1 failed | %d passed (%d)\n", failed, failed, g.between(0, 9), g.between(10, 99), g.between(2, 30), n, n+1)
		} else {
			fmt.Fprintf(&b, "\n Test Files  %d passed (%d)\n      Tests  %d passed (%d)\n   Duration  %d.%02ds\n", g.between(2, 30), g.between(2, 30), n, n, g.between(1, 40), g.between(0, 99))
		}
	case "rust":
		fmt.Fprintf(&b, "   Compiling %s v0.1.0 (%s)\n    Finished `test` profile [unoptimized + debuginfo] target(s) in %d.%02ds\n     Running unittests src/lib.rs (target/debug/deps/x-%s)\n\nrunning %d tests\n", g.s.Cwd[strings.LastIndexByte(g.s.Cwd, '/')+1:], g.s.Cwd, g.between(1, 90), g.between(0, 99), g.ids.next(hexDigits, 16), n)
		for range min(n, 60) {
			fmt.Fprintf(&b, "test %s::tests::%s ... ok\n", pick(g.r, idents), g.ident())
		}
		if failed != "" {
			fmt.Fprintf(&b, "test %s::tests::%s ... FAILED\n\nfailures:\n\n---- %s stdout ----\nthread '%s' panicked at src/%s.rs:%d:%d:\nassertion failed\n\ntest result: FAILED. %d passed; 1 failed; 0 ignored\n", pick(g.r, idents), failed, failed, failed, pick(g.r, idents), g.between(10, 400), g.between(1, 40), n)
		} else {
			fmt.Fprintf(&b, "\ntest result: ok. %d passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in %d.%02ds\n", n, g.between(0, 9), g.between(0, 99))
		}
	default:
		for i := 0; i < n; i += 60 {
			k := min(60, n-i)
			fmt.Fprintf(&b, "%s%s [%3d%%]\n", strings.Repeat(".", k), strings.Repeat(" ", 60-k), (i+k)*100/n)
		}
		if failed != "" {
			fmt.Fprintf(&b, "=================================== FAILURES ===================================\n___________________________ test_%s ___________________________\n\n    def test_%s():\n>       assert %s(%d) == %d\nE       assert %d == %d\n\ntests/test_%s.py:%d: AssertionError\n=========================== short test summary info ============================\nFAILED tests/test_%s.py::test_%s - assert %d == %d\n1 failed, %d passed in %d.%02ds\n",
				failed, failed, g.ident(), g.between(0, 9), g.between(10, 99), g.between(0, 9), g.between(10, 99), pick(g.r, idents), g.between(5, 300), pick(g.r, idents), failed, g.between(0, 9), g.between(10, 99), n-1, g.between(0, 30), g.between(0, 99))
		} else {
			fmt.Fprintf(&b, "%d passed in %d.%02ds\n", n, g.between(0, 30), g.between(0, 99))
		}
	}
	return b.String()
}

func (g *gen) testsPass() {
	g.bash(g.testCmd(), g.testOutput(""), 0, float64(g.between(2, 90)))
}

func (g *gen) testsFailThenFix() {
	name := g.ident()
	g.bash(g.testCmd(), g.testOutput(name), 1, float64(g.between(2, 90)))
	if g.r.IntN(3) == 0 {
		g.read()
	}
	g.edit()
	g.bash(g.testCmd(), g.testOutput(""), 0, float64(g.between(2, 90)))
}

// longLog appends a command that prints a long log: an install or a
// build, now and then longer than retrace keeps of an output.
func (g *gen) longLog() {
	var b strings.Builder
	lines := g.logSize(30, 1200)
	if g.r.IntN(20) == 0 {
		lines = g.between(1500, 6000)
	}
	cmd := ""
	switch g.r.IntN(3) {
	case 0:
		cmd = "pip install -r requirements.txt"
		for i := 0; i < lines; i += 4 {
			p := pick(g.r, packages)
			v := fmt.Sprintf("%d.%d.%d", g.between(0, 4), g.between(0, 30), g.between(0, 12))
			size := g.between(12, 9000)
			fmt.Fprintf(&b, "Collecting %s>=%s\n  Downloading %s-%s-py3-none-any.whl.metadata (%d kB)\n  Downloading %s-%s-py3-none-any.whl (%d kB)\n     ━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━━ %d.%d/%d.%d kB %d.%d MB/s eta 0:00:00\n",
				p, v, p, v, g.between(2, 40), p, v, size, size, g.between(0, 9), size, g.between(0, 9), g.between(1, 60), g.between(0, 9))
		}
		fmt.Fprintf(&b, "Successfully installed %s\n", strings.Join(packages[:g.between(2, len(packages))], " "))
	case 1:
		cmd = map[string]string{"python": "python -m build", "go": "go build -v ./...", "typescript": "npm run build", "rust": "cargo build --release"}[g.lang]
		for i := range lines {
			switch g.lang {
			case "rust":
				fmt.Fprintf(&b, "   Compiling %s v%d.%d.%d\n", pick(g.r, idents)+"-"+pick(g.r, idents), g.between(0, 3), g.between(0, 40), g.between(0, 9))
			case "go":
				fmt.Fprintf(&b, "github.com/%s/%s/%s\n", pick(g.r, idents), pick(g.r, idents), pick(g.r, idents))
			default:
				fmt.Fprintf(&b, "[%d/%d] %s %s\n", i+1, lines, pick(g.r, []string{"Compiling", "Bundling", "Copying", "Transforming"}), g.file())
			}
		}
	default:
		cmd = "tail -n 2000 logs/" + pick(g.r, idents) + ".log"
		t := g.s.Start
		for range lines {
			t = t.Add(time.Duration(g.between(1, 4000)) * time.Millisecond)
			fmt.Fprintf(&b, "%s %s [%s] %s id=%d took=%dms\n", t.Format("2006-01-02T15:04:05.000Z"), pick(g.r, []string{"INFO", "INFO", "INFO", "DEBUG", "WARN"}), pick(g.r, idents), strings.TrimSuffix(g.sentence(g.between(3, 10)), "."), g.between(1, 999999), g.between(0, 900))
		}
	}
	g.bash(cmd, b.String(), 0, float64(g.between(3, 300)))
}

// benchmark appends a run of a benchmark script or tool that prints
// numbers with units.
func (g *gen) benchmark() {
	script := pick(g.r, []string{"bench_throughput.py", "benchmark_serving.py", "load_test.py", "bench_latency.py"})
	conc := pick(g.r, []int{1, 4, 8, 16, 32, 64})
	var b strings.Builder
	switch g.r.IntN(4) {
	case 0:
		fmt.Fprintf(&b, "Benchmarking http://localhost:8000 (concurrency=%d, requests=%d)\nWarmup done.\n", conc, g.between(10, 200))
		for i := range g.between(3, 10) {
			fmt.Fprintf(&b, "Run %d: %d.%02ds, %d.%d tok/s\n", i+1, g.between(2, 20), g.between(0, 99), g.between(20, 900), g.between(0, 9))
		}
		fmt.Fprintf(&b, "Average: %d.%d tok/s\nLatency p50: %d.%d ms\nLatency p99: %d.%d ms\n", g.between(20, 900), g.between(0, 9), g.between(5, 900), g.between(0, 9), g.between(900, 3000), g.between(0, 9))
		g.bash(fmt.Sprintf("python %s --concurrency %d --num-requests %d", script, conc, g.between(10, 200)), b.String(), 0, float64(g.between(10, 400)))
	case 1:
		b.WriteString("Concurrency | Requests | Total tok/s | Per-req tok/s | Mean latency (s)\n------------+----------+-------------+---------------+-----------------\n")
		for c := 1; c <= 64; c *= 2 {
			fmt.Fprintf(&b, "%11d | %8d | %11.1f | %13.1f | %16.2f\n", c, 20, float64(c)*g.r.Float64()*90+50, g.r.Float64()*90+10, g.r.Float64()*15+1)
		}
		g.bash(fmt.Sprintf("python %s --concurrency 1 2 4 8 16 32 64 --requests-per-level 20", script), b.String(), 0, float64(g.between(60, 600)))
	case 2:
		fmt.Fprintf(&b, "goos: linux\ngoarch: amd64\npkg: github.com/dev/%s\ncpu: AMD EPYC 7763 64-Core Processor\n", g.s.Cwd[strings.LastIndexByte(g.s.Cwd, '/')+1:])
		for range g.between(2, 12) {
			fmt.Fprintf(&b, "Benchmark%s-16\t%8d\t%10d ns/op\t%6d B/op\t%4d allocs/op\n", strings.ToUpper(pick(g.r, idents)[:1])+pick(g.r, idents)[1:], g.between(1000, 9000000), g.between(10, 900000), g.between(0, 9000), g.between(0, 90))
		}
		fmt.Fprintf(&b, "PASS\nok  \tgithub.com/dev/x\t%d.%03ds\n", g.between(1, 60), g.between(0, 999))
		g.bash("go test -run '^$' -bench . -benchmem ./...", b.String(), 0, float64(g.between(10, 200)))
	default:
		fmt.Fprintf(&b, "Benchmark 1: ./target/release/%s\n  Time (mean ± σ):     %d.%d ms ±   %d.%d ms    [User: %d.%d ms, System: %d.%d ms]\n  Range (min … max):   %d.%d ms … %d.%d ms    %d runs\n",
			pick(g.r, idents), g.between(1, 900), g.between(0, 9), g.between(0, 9), g.between(0, 9), g.between(1, 900), g.between(0, 9), g.between(1, 90), g.between(0, 9), g.between(1, 400), g.between(0, 9), g.between(400, 999), g.between(0, 9), g.between(10, 100))
		g.bash("hyperfine --warmup 3 './target/release/"+pick(g.r, idents)+" --input data/sample.txt'", b.String(), 0, float64(g.between(5, 60)))
	}
}

// wrongFlag appends a script rejecting a flag with argparse's usage
// error, then the run with the flag its usage named.
func (g *gen) wrongFlag() {
	script := pick(g.r, []string{"train.py", "evaluate.py", "bench_throughput.py", "export_model.py"})
	good, bad := pick(g.r, []string{"--num-runs", "--batch-size", "--max-tokens", "--output-dir"}), pick(g.r, []string{"--num-prompts", "--bs", "--output-len", "--out"})
	usage := fmt.Sprintf("usage: %s [-h] [--server-url SERVER_URL] [%s %s]\n%s[--warmup WARMUP] [--seed SEED]\n", script, good, strings.ToUpper(strings.TrimPrefix(good, "--")), strings.Repeat(" ", len(script)+8))
	g.bash(fmt.Sprintf("python %s %s 5 --seed 1", script, bad), usage+script+": error: unrecognized arguments: "+bad+" 5\n", 2, 1.2)
	if g.r.IntN(3) == 0 {
		g.bash("head -40 "+script, g.code(40), 0, 0.05)
	}
	var out strings.Builder
	for i := range g.between(2, 6) {
		fmt.Fprintf(&out, "Run %d: %d.%02ds, %d.%d tok/s\n", i+1, g.between(2, 20), g.between(0, 99), g.between(20, 900), g.between(0, 9))
	}
	fmt.Fprintf(&out, "Average: %d.%d tok/s\n", g.between(20, 900), g.between(0, 9))
	g.bash(fmt.Sprintf("python %s %s 5 --seed 1", script, good), out.String(), 0, float64(g.between(5, 120)))
}

// notFound appends a program the shell did not find, its install and the
// rerun.
func (g *gen) notFound() {
	i := g.r.IntN(3)
	prog, pkg := []string{"rg", "jq", "fd"}[i], []string{"ripgrep", "jq", "fd-find"}[i]
	cmd := []string{"rg -n TODO src", "jq .version package.json", "fd -e " + strings.TrimPrefix(g.ext(), ".")}[i]
	g.bash(cmd, "/bin/bash: line 1: "+prog+": command not found\n", 127, 0.02)
	var b strings.Builder
	b.WriteString("Reading package lists...\nBuilding dependency tree...\nReading state information...\n")
	fmt.Fprintf(&b, "The following NEW packages will be installed:\n  %s\n0 upgraded, 1 newly installed, 0 to remove and %d not upgraded.\nNeed to get %d kB of archives.\nGet:1 http://archive.ubuntu.com/ubuntu noble/universe amd64 %s amd64 %d.%d [%d kB]\nFetched %d kB in 1s (%d kB/s)\nSetting up %s (%d.%d) ...\n", pkg, g.between(0, 90), g.between(50, 3000), pkg, g.between(1, 14), g.between(0, 9), g.between(50, 3000), g.between(50, 3000), g.between(50, 3000), pkg, g.between(1, 14), g.between(0, 9))
	g.bash("sudo apt-get install -y "+pkg, b.String(), 0, float64(g.between(3, 30)))
	var out strings.Builder
	for range g.between(1, 12) {
		fmt.Fprintf(&out, "%s:%d:    # TODO: %s\n", g.file(), g.between(1, 500), strings.ToLower(g.sentence(g.between(3, 8))))
	}
	g.bash(cmd, out.String(), 0, 0.1)
}

// missingModule appends a traceback for a module not installed, the
// install and the rerun.
func (g *gen) missingModule() {
	mod := pick(g.r, packages)
	script := "scripts/" + pick(g.r, idents) + ".py"
	tb := fmt.Sprintf("Traceback (most recent call last):\n  File \"%s/%s\", line %d, in <module>\n    import %s\nModuleNotFoundError: No module named '%s'\n", g.s.Cwd, script, g.between(1, 30), mod, mod)
	g.bash("python "+script, tb, 1, 0.3)
	g.bash("pip install "+mod, fmt.Sprintf("Collecting %s\n  Using cached %s-1.2.0-py3-none-any.whl (%d kB)\nInstalling collected packages: %s\nSuccessfully installed %s-1.2.0\n", mod, mod, g.between(20, 900), mod, mod), 0, 4)
	g.bash("python "+script, g.prose(2)+"\n", 0, float64(g.between(1, 30)))
}

func (g *gen) buildError() {
	f := g.file()
	var out string
	cmd := map[string]string{"python": "python -m mypy src", "go": "go build ./...", "typescript": "npx tsc --noEmit", "rust": "cargo build"}[g.lang]
	switch g.lang {
	case "go":
		out = fmt.Sprintf("# github.com/dev/x/%s\n./%s:%d:%d: undefined: %s\n", f[:strings.LastIndexByte(f, '/')], f, g.between(5, 400), g.between(2, 40), g.ident())
	case "typescript":
		out = fmt.Sprintf("%s(%d,%d): error TS2304: Cannot find name '%s'.\n\nFound 1 error in %s:%d\n", f, g.between(5, 400), g.between(2, 40), g.ident(), f, g.between(5, 400))
	case "rust":
		out = fmt.Sprintf("   Compiling x v0.1.0\nerror[E0425]: cannot find value `%s` in this scope\n --> %s:%d:%d\n  |\n%d |     let y = %s + 1;\n  |             ^^^ not found in this scope\n\nerror: could not compile `x` (lib) due to 1 previous error\n", g.ident(), f, g.between(5, 400), g.between(2, 40), g.between(5, 400), g.ident())
	default:
		out = fmt.Sprintf("%s:%d: error: Name \"%s\" is not defined  [name-defined]\nFound 1 error in 1 file (checked %d source files)\n", f, g.between(5, 400), g.ident(), g.between(5, 90))
	}
	g.bash(cmd, out, 1, float64(g.between(1, 60)))
	g.edit()
	g.bash(cmd, "", 0, float64(g.between(1, 60)))
}

func (g *gen) missingFile() {
	name := pick(g.r, []string{"config.yaml", "settings.toml", ".env", "data/input.csv"})
	g.bash("cat "+name, "cat: "+name+": No such file or directory\n", 1, 0.01)
	g.bash("ls configs", "config.yaml\nconfig.example.yaml\nlogging.yaml\n", 0, 0.01)
	g.bash("cat configs/"+name, g.code(g.between(5, 40)), 0, 0.01)
}

func (g *gen) permission() {
	g.bash("cat /var/log/syslog | tail -20", "cat: /var/log/syslog: Permission denied\n", 1, 0.01)
	var b strings.Builder
	t := g.s.Start
	for range 20 {
		t = t.Add(time.Duration(g.between(1, 60)) * time.Second)
		fmt.Fprintf(&b, "%s host %s[%d]: %s\n", t.Format("Jan _2 15:04:05"), pick(g.r, idents), g.between(100, 90000), strings.TrimSuffix(g.sentence(g.between(3, 9)), "."))
	}
	g.bash("sudo tail -20 /var/log/syslog", b.String(), 0, 0.05)
}

func (g *gen) timeout() {
	g.bash("./scripts/migrate.sh --all", "Migrating batch 1...\nMigrating batch 2...\nCommand timed out after 2m 0.0s\n", 124, 120)
	g.bash("./scripts/migrate.sh --all --batch-size 500", "Migrating 12 batches...\ndone in 41.2s\n", 0, 42)
}

func (g *gen) editMiss() {
	st := g.editStep(g.file(), g.code(g.logSize(30, 300)))
	st.Error = true
	st.Input[1].Value = "    " + st.Input[1].Value.(string)
	st.Output = ""
	g.add(st)
	g.read()
	g.edit()
}

func (g *gen) connection() {
	g.bash("curl -s localhost:8000/health", "curl: (7) Failed to connect to localhost port 8000 after 0 ms: Couldn't connect to server\n", 7, 0.01)
	g.bash("sleep 20 && curl -s localhost:8000/health", "{\"status\":\"ok\"}\n", 0, 20)
}

// unresolved appends a failure nothing later fixes.
func (g *gen) unresolved() {
	script := pick(g.r, []string{"lint:fix", "e2e", "typecheck:all"})
	g.bash("npm run "+script, "npm error Missing script: \""+script+"\"\nnpm error\nnpm error To see a list of scripts, run:\nnpm error   npm run\n", 1, 0.4)
}
