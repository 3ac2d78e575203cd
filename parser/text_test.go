package parser

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrace-dev/retrace/internal/termtext"
)

// TestMatchText states which heads the text format takes: several markers
// of one rendering, never JSON, never a note that merely mentions one.
func TestMatchText(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want bool
	}{
		{"transcript", "[user] run it\n[assistant] Running: [bash] make test\nok\n", true},
		{"transcript with msg markers", "[msg 4] [user] go\n\nmsg 5 [assistant] ok\n[bash] ls\na\n", true},
		{"claude console", "> fix it\n\n⏺ I'll look.\n\n⏺ Bash(ls)\n  ⎿  a.txt\n", true},
		{"claude console, ● bullets", "> fix it\n● Checking.\n● Read(go.mod)\n  ⎿  Read 3 lines\n", true},
		{"gemini console", "> hi\n ╭──────╮\n │ ✔  Shell ls (List files.) │\n │    a │\n ╰──────╯\n", true},
		{"gemini console, two panels", " ╭──╮\n │ ✔  ReadFile a.go │\n ╰──╯\n ╭──╮\n │ ✖  Shell make │\n ╰──╯\n", true},
		{"mini-swe-agent console", "\x1b[1;31mmini-swe-agent\x1b[0m (step 1, $0.00):\n```bash\nls\n```\nUser:\n<returncode>0</returncode>\n", true},
		{"mini-swe-agent banner", "👋 This is mini-swe-agent version 1.7.0.\n\nSystem:\nYou are a helpful assistant.\n", true},
		{"terminal-bench recording", "\x1b[?2004hroot@x:/app# asciinema rec --stdin /logs/agent.cast\r\nroot@x:/app# source /installed-agent/install-agent.sh; tmux wait -S done\r\n", true},

		{"readme mentioning [bash]", "# retrace\n\nTranscripts look like `[assistant] text [bash] command`.\nThe [bash] marker starts a call.\n", false},
		{"one role line", "Here is the message:\n\n[assistant] Let me run the benchmark: [bash] python b.py --num-prompts 5 usage: b.py\n\nIt failed.\n", false},
		{"roles without a tool", "[user] hello\n[assistant] hi there\n[user] bye\n", false},
		{"a bullet list with ⏺", "Notes\n⏺ first point\n⏺ second point (see below)\n", false},
		{"one claude call without a result", "⏺ Bash(ls)\n⏺ done\n", false},
		{"a box that is no tool panel", "╭────╮\n│ About Gemini CLI │\n│ Model  gemini │\n╰────╯\n> hi\n", false},
		{"json object", `{"role":"user","content":"[user] x\n[assistant] [bash] ls"}`, false},
		{"json array", "[\n  {\"type\": \"message\"}\n]", false},
		{"json lines", "{\"a\":1}\n{\"b\":2}\n", false},
		{"json array of strings", `["[user] x", "[assistant] [bash] ls", "[user] y"]`, false},
		{"a plain log", "2026-03-09 INFO start\n2026-03-09 ERROR disk full\n> retry\n", false},
		{"a python traceback", "Traceback (most recent call last):\n  File \"a.py\", line 1\nValueError: x\n", false},
		{"a recording of something else", "asciinema rec demo.cast\n$ ls\n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := matchText([]byte(tt.in)); got != tt.want {
				t.Errorf("matchText(%q) = %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// callLines summarizes the calls of a session, one line each.
func callLines(s *Session) []string {
	var out []string
	for _, c := range s.Calls {
		l := fmt.Sprintf("msg %d line %d %s/%s", c.Msg, c.Pos.Line, c.Tool, c.Kind)
		if c.Command != "" {
			l += fmt.Sprintf(" cmd=%q", c.Command)
		}
		if c.File != "" {
			l += " file=" + c.File
		}
		if len(c.Args) > 0 {
			l += fmt.Sprintf(" args=%v", c.Args)
		}
		if c.Exit != nil {
			l += fmt.Sprintf(" exit=%d", *c.Exit)
		}
		if c.IsError {
			l += " error"
		}
		if c.Unrecorded {
			l += " unrecorded"
		}
		if c.Status != "" {
			l += " status=" + string(c.Status)
		}
		l += fmt.Sprintf(" out=%q", c.Output)
		out = append(out, l)
	}
	return out
}

// TestTextMarkers reads one marker of a rendering per case.
func TestTextMarkers(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		format string
		want   []string
	}{
		{"transcript: exit code on the last line",
			"[user] go\n[assistant] [bash] make\nmake: *** [all] Error 1\nExit code 2\n",
			"text:transcript",
			[]string{`msg 1 line 2 bash/shell cmd="make" exit=2 out="make: *** [all] Error 1"`}},
		{"transcript: Error: Exit code on the first line",
			"[user] go\n[assistant] [bash] false\nError: Exit code 1\n[user] ok\n",
			"text:transcript",
			[]string{`msg 1 line 2 bash/shell cmd="false" exit=1 out=""`}},
		{"transcript: no exit code stated",
			"[user] go\n[assistant] [bash] python b.py --runs 3\nusage: b.py [-h] [--num-runs N]\nb.py: error: unrecognized arguments: --runs 3\n",
			"text:transcript",
			[]string{`msg 1 line 2 bash/shell cmd="python b.py --runs 3" out="usage: b.py [-h] [--num-runs N]\nb.py: error: unrecognized arguments: --runs 3"`}},
		{"transcript: msg marker on the line before",
			"[user] go\n\n[msg 17]\n[assistant] [bash] ls\na\n[msg 18]\nb\n",
			"text:transcript",
			[]string{`msg 17 line 4 bash/shell cmd="ls" out="a\n[msg 18]\nb"`}},
		{"transcript: a line-start marker ends the output",
			"[user] go\n[assistant] Two calls.\n[bash] ls\na\n[read] go.mod\nmodule x\n",
			"text:transcript",
			[]string{`msg 1 line 3 bash/shell cmd="ls" out="a"`, `msg 1 line 5 read/read file=go.mod out="module x"`}},
		{"transcript: a marker mid-line in the output is output",
			"[user] go\n[assistant] [bash] cat notes.md\nuse the [bash] marker\n[user] ok\n",
			"text:transcript",
			[]string{`msg 1 line 2 bash/shell cmd="cat notes.md" out="use the [bash] marker"`}},

		{"claude: Error: Exit code",
			"> go\n⏺ Bash(tree)\n  ⎿  Error: Exit code 127\n     bash: tree: command not found\n⏺ Done.\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Bash/shell cmd="tree" exit=127 error out="bash: tree: command not found"`}},
		{"claude: error without exit code",
			"> go\n⏺ Bash(which hi)\n  ⎿  Waiting…\n\n  ⎿  Error: hi not found\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Bash/shell cmd="which hi" error out="hi not found"`}},
		{"claude: command with parentheses over several lines",
			"> go\n⏺ Bash(python3 -c \"\n      print(len((1, 2)))\n      \")\n  ⎿  2\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Bash/shell cmd="python3 -c \"\nprint(len((1, 2)))\n\"" out="2"`}},
		{"claude: key-value input",
			"> go\n⏺ Read(file_path: \"/a/b.py\", offset: 10, limit: 5)\n  ⎿  Read 5 lines (ctrl+r to expand)\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Read/read file=/a/b.py args=map[limit:5 offset:10] out="Read 5 lines (ctrl+r to expand)"`}},
		{"claude: MCP tool and web fetch",
			"> go\n⏺ docs:search (MCP)(query: \"tokio\")\n  ⎿  3 results\n⏺ Fetch(https://example.com)\n  ⎿  Received 1KB (200 OK)\n",
			"text:claude-console",
			[]string{`msg 1 line 2 docs:search/other args=map[query:tokio] out="3 results"`, `msg 3 line 4 Fetch/web args=map[url:https://example.com] out="Received 1KB (200 OK)"`}},
		{"claude: task and no content",
			"> go\n⏺ Task(Find the config)\n  ⎿  Done (2 tool uses · 3.1k tokens · 9.8s)\n⏺ Bash(touch a)\n  ⎿  (No content)\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Task/task args=map[description:Find the config] out="Done (2 tool uses · 3.1k tokens · 9.8s)"`, `msg 3 line 4 Bash/shell cmd="touch a" out=""`}},
		{"claude: an older console's ellipsis after each header",
			"> go\n⏺ Bash(cd /app && pytest specs -v)…\n  ⎿  Error: (eval):1: command not found: pytest\n⏺ Read(TODO.md)…\n  ⎿  Read 12 lines\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Bash/shell cmd="cd /app && pytest specs -v" error out="(eval):1: command not found: pytest"`, `msg 3 line 4 Read/read file=TODO.md out="Read 12 lines"`}},
		{"claude: call without result at the end",
			"> go\n⏺ Bash(sleep 600)",
			"text:claude-console",
			[]string{`msg 1 line 2 Bash/shell cmd="sleep 600" out=""`}},
		{"claude: a refusal after a subagent's progress",
			"> go\n⏺ Task(Search logs)\n  ⎿  Bash(grep -r x .)\n     Waiting…\n     +3 more tool uses\n  ⎿  No (tell Claude what to do differently)\n",
			"text:claude-console",
			[]string{`msg 1 line 2 Task/task args=map[description:Search logs] status=rejected out="Bash(grep -r x .)\nWaiting…\n+3 more tool uses\nNo (tell Claude what to do differently)"`}},

		{"gemini: a tool's error under ✔, a command's outcome unrecorded",
			"> go\n ╭───╮\n │ ✔  Edit docs/a.md: x => y │\n │ │\n │    Error: Failed to edit, could not find the string to replace. │\n ╰───╯\n ╭───╮\n │ ✔  Shell pytest --spec │\n │ │\n │    bash: pytest: command not found │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Edit/edit file=docs/a.md error out="Error: Failed to edit, could not find the string to replace."`,
				`msg 3 line 8 Shell/shell cmd="pytest --spec" unrecorded out="bash: pytest: command not found"`}},
		{"gemini: a panel of several calls, read as its first",
			"> go\n ╭───╮\n │ ✔  Shell git status --short │\n │ │\n │     M cli.py │\n │ │\n │ ✔  Shell python -m pytest -q │\n │ │\n │    1 failed │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Shell/shell cmd="git status --short" out=" M cli.py\n\n✔  Shell python -m pytest -q\n\n1 failed"`}},
		{"gemini: error panel",
			"> go\n ╭───╮\n │ ✖  Shell make (Build.) │\n │ │\n │    make: *** No rule │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Shell/shell cmd="make" args=map[description:Build.] error out="make: *** No rule"`}},
		{"gemini: description with parentheses",
			"> go\n ╭───╮\n │ ✔  Shell git log --since=\"1 day ago\" (Show commits (since yesterday).) │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Shell/shell cmd="git log --since=\"1 day ago\"" args=map[description:Show commits (since yesterday).] unrecorded out=""`}},
		{"gemini: subshell is no description",
			"> go\n ╭───╮\n │ ✔  Shell make && (cd docs; make) │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Shell/shell cmd="make && (cd docs; make)" unrecorded out=""`}},
		{"gemini: an apostrophe in the description",
			"> go\n ╭───╮\n │ ✔  Shell git status (Check the repo's state.) │\n │ │\n │    it's clean │\n ╰───╯\n",
			"text:gemini-console",
			[]string{`msg 1 line 3 Shell/shell cmd="git status" args=map[description:Check the repo's state.] unrecorded out="it's clean"`}},
		{"gemini: panel left open at the end",
			"> go\n ╭───╮\n │ ✔  WriteFile Writing to a.txt │\n │    1 hello │",
			"text:gemini-console",
			[]string{`msg 1 line 3 WriteFile/write file=a.txt out="1 hello"`}},

		{"mini: timeout",
			"mini-swe-agent (step 1, $0.00):\n```bash\nsleep 999\n```\nUser:\nThe last command <command>sleep 999</command> timed out and has been killed.\n",
			"text:mini-swe-agent-console",
			[]string{`msg 0 line 2 bash/shell cmd="sleep 999" status=interrupted out="The last command <command>sleep 999</command> timed out and has been killed."`}},
		{"mini: two blocks are not run",
			"mini-swe-agent (step 1, $0.00):\n```bash\nls\n```\n```bash\npwd\n```\nUser:\nPlease always provide EXACTLY ONE action in triple backticks.\n<returncode>0</returncode>\n",
			"text:mini-swe-agent-console",
			[]string{`msg 0 line 2 bash/shell cmd="ls" status=no-result out=""`, `msg 0 line 5 bash/shell cmd="pwd" status=no-result out=""`}},
		{"mini: long output",
			"mini-swe-agent (step 1, $0.00):\n```bash\nseq 100000\n```\nUser:\n<returncode>0</returncode>\n<warning>long</warning><output_head>\n1\n</output_head>\n",
			"text:mini-swe-agent-console",
			[]string{`msg 0 line 2 bash/shell cmd="seq 100000" exit=0 out="<warning>long</warning><output_head>\n1\n</output_head>"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := decodeText(strings.NewReader(tt.in), "f")
			if err != nil {
				t.Fatal(err)
			}
			if s.Format != tt.format {
				t.Errorf("format = %s, want %s", s.Format, tt.format)
			}
			if diff := cmp.Diff(tt.want, callLines(s)); diff != "" {
				t.Errorf("calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestTextRecording reads a Terminal-Bench recording whose agent starts
// after the head: the variant is found in the stream.
func TestTextRecording(t *testing.T) {
	var b strings.Builder
	b.WriteString("\x1b[?2004hroot@x:/app# asciinema rec --stdin /logs/agent.cast\r\n")
	b.WriteString("root@x:/app# source /installed-agent/install-agent.sh && echo 'INSTALL_SUCCESS'; tmux wait -S done\r\n")
	for i := 0; b.Len() < 2*HeadSize; i++ {
		fmt.Fprintf(&b, "\r%d%% [Working]\rGet:%d http://deb.debian.org/debian bookworm/main amd64 pkg%d [%d kB]\r\n", i%100, i, i, i)
	}
	b.WriteString("> [user] pasted into the shell, not a transcript\r\n")
	b.WriteString("👋 This is mini-swe-agent version 1.7.0.\r\nSystem:\r\nYou help.\r\nUser:\r\nPlease solve this issue: count files\r\n")
	b.WriteString("\x1b[1;31mmini-swe-agent\x1b[0m\x1b[31m (step \x1b[0m\x1b[1;31m1\x1b[0m\x1b[31m, \x1b[0m\x1b[1;31m$0.00\x1b[0m\x1b[31m):\x1b[0m\r\n")
	b.WriteString("\x1b[32m⠋\x1b[0m Waiting for the LM to respond...\r\x1b[2KTHOUGHT: count them.\r\n```bash\r\nls | wc -l\r\n```\r\nUser:\r\n<returncode>0</returncode>\r\n<output>\r\n3\r\n</output>\r\n")
	in := b.String()
	if f := Detect([]byte(in[:HeadSize])); f == nil || f.Name != "text" {
		t.Fatalf("Detect = %v, want text", f)
	}
	s, err := Parse(strings.NewReader(in), "f", nil)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Count(in[:strings.Index(in, "```bash")], "\n") + 1
	want := []string{fmt.Sprintf(`msg 2 line %d bash/shell cmd="ls | wc -l" exit=0 out="3"`, line)}
	if s.Format != "text:mini-swe-agent-console" || s.Title != "Please solve this issue: count files" || s.Agent != "1.7.0" {
		t.Errorf("format %s, title %q, agent %q", s.Format, s.Title, s.Agent)
	}
	if diff := cmp.Diff(want, callLines(s)); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

func TestTextUnknownRendering(t *testing.T) {
	s, err := Parse(strings.NewReader("just\nsome text\n"), "f", Lookup("text"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Format != "text" || len(s.Calls) != 0 || len(s.Notes) != 1 {
		t.Errorf("got format %s, %d calls, notes %q", s.Format, len(s.Calls), s.Notes)
	}
}

func TestTextClean(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"plain", "plain"},
		{"\x1b[1;31mred\x1b[0m and \x1b[38;5;208mmore\x1b[m", "red and more"},
		{"\x1b[?2004hroot@x:/app# ls\x1b[?2004l", "root@x:/app# ls"},
		{"\x1b]0;title\x07after BEL", "after BEL"},
		{"\x1b]8;;https://x.dev\x1b\\link\x1b]8;;\x1b\\ text", "link text"},
		{"\x1b(Bcharset", "charset"},
		{"0% [Working]\r50% [Working]\rdone      ", "done      "},
		{"⠋ Waiting...\r\x1b[2K⠙ Waiting...\r\x1b[2KTHOUGHT: go", "THOUGHT: go"},
		{"kept\r\x1b[2K", "kept"},
		{"⎿ \u00a0Waiting…", "⎿  Waiting…"},
		{"bell\x07 and back\x08space", "bell and backspace"},
		{"cut \xe2\x94", "cut \uFFFD"},
		{"unterminated \x1b[", "unterminated ["},
		{"\x1b", ""},
	} {
		if got := textClean([]byte(tt.in)); got != tt.want {
			t.Errorf("textClean(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestTextSplitDescription(t *testing.T) {
	for _, tt := range []struct{ in, cmd, desc string }{
		{"ls -la (List files.)", "ls -la", "List files."},
		{"ls", "ls", ""},
		{"echo $(date)", "echo $(date)", ""},
		{"(cd a && ls) (List a.)", "(cd a && ls)", "List a."},
		{"make && (cd docs; make)", "make && (cd docs; make)", ""},
		{`echo "a (B)"`, `echo "a (B)"`, ""},
		{`echo "x" (Say it (twice).)`, `echo "x"`, "Say it (twice)."},
		{"python3 b.py --runs 3 (Run t…", "python3 b.py --runs 3", "Run t…"},
		{`git commit -m "fix (Bug…`, `git commit -m "fix (Bug…`, ""},
	} {
		cmd, desc := textSplitDescription(tt.in)
		if cmd != tt.cmd || desc != tt.desc {
			t.Errorf("textSplitDescription(%q) = %q, %q; want %q, %q", tt.in, cmd, desc, tt.cmd, tt.desc)
		}
	}
}

// TestTextOdd feeds the decoder input that fits no rendering well: it
// must neither fail nor lose the calls it can place.
func TestTextOdd(t *testing.T) {
	for _, tt := range []struct {
		in    string
		calls int
	}{
		{"[user] x\n[assistant] [bash]", 1},
		{"[user] x\n[assistant] [bash] a [bash] b [bash]", 3},
		{"msg 3\n", 0},
		{"⏺ Bash(\n\n\n", 1},
		{"> x\n⏺ Bash(\n  ⎿", 1},
		{"> x\n  ⎿  Error: nothing ran\n⏺ Read(\n", 1},
		{"> x\n ╭\n │ ✔  Shell\n", 1},
		{"> x\n ╭\n ╰\n ╭\n │ ?  Edit a.go: x => y\n ╰\n", 1},
		{"mini-swe-agent (step 1, $0.00):\n```bash\nls", 1},
		{"User:\n<returncode>1</returncode>\n", 0},
		{"[user] x\n[assistant] [read] file_path: \"unterminated\n", 1},
	} {
		s, err := Parse(strings.NewReader(tt.in), "f", Lookup("text"))
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if len(s.Calls) != tt.calls {
			t.Errorf("Parse(%q): %d calls, want %d\n%s", tt.in, len(s.Calls), tt.calls, strings.Join(callLines(s), "\n"))
		}
	}
}

// FuzzText drives the text decoder alone, faster than FuzzParse drives all
// formats, with the same invariants.
func FuzzText(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "text", "*"))
	for _, file := range files {
		if !strings.HasSuffix(file, ".golden") {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Add([]byte("[user] x\n[msg 3]\n[assistant] a [bash] ls [read] f\nout\n[output] more\n"))
	f.Add([]byte("> x\n⏺ Bash(echo \"(\n      x\")\n  ⎿  Error: Exit code 1\n     y\n  ⎿  Interrupted by user\n"))
	f.Add([]byte(" ╭─╮\n │ ✔  Shell git commit -m \"a\n │\n │    b\" (Commit (it).)\n │    out\n ╰─╯\n"))
	f.Add([]byte("mini-swe-agent (step 1, $0.00):\n```bash\nls\n```\nUser:\nnoise\n<returncode>2</returncode>\n<output>\nx</output>\n────────────────────\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParse(t, data, func() (*Session, error) { return Parse(bytes.NewReader(data), "fuzz", Lookup("text")) })
	})
}

// FuzzTextStripEscapes holds textStripEscapes, which copies runs of plain
// bytes whole, to the plain reading of its doc: at each byte, an escape
// sequence as termtext reads it is dropped, and so is a control character
// but tab and carriage return. Plain lines and the wrong guard on
// termtext.EscapeLen's first bytes are what it would get wrong.
func FuzzTextStripEscapes(f *testing.F) {
	for _, s := range []string{
		"plain text", "\x1b[31mred\x1b[0m", "a\u009b31mb", "\xc2", "caf\u00e9 \u00a0x",
		"\x1b]0;title\x07after", "tab\tand\rcr\x00nul\x7fdel", "\x1b", "\x1b(Bx", "\xc2\x9b",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []byte
		for i := 0; i < len(b); i++ {
			if n := termtext.EscapeLen(b[i:]); n > 0 {
				i += n - 1
				continue
			}
			if c := b[i]; c >= 0x20 && c != 0x7f || c == '\t' || c == '\r' {
				want = append(want, c)
			}
		}
		if got := textStripEscapes(b); !bytes.Equal(got, want) {
			t.Errorf("textStripEscapes(%q) = %q, want %q", b, got, want)
		}
	})
}
