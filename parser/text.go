package parser

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Text renderings are transcripts that are not JSON but text: a terminal a
// person copied, a terminal recorder's log, a tool's printout. Each known
// rendering is a variant, and Session.Format is "text:<variant>":
//
//   - transcript: "[assistant] text [bash] command" with the command's
//     output on the lines after it, up to the next "[role]" marker, and
//     "[user] prompt". A "msg N" or "[msg N]" before a role marker gives
//     the message's index. Other tools are "[read] path", "[grep] pattern"
//     and the like at the start of a line.
//   - claude-console: Claude Code's terminal. "⏺ Bash(command)",
//     "⏺ Read(path)", "⏺ Update(path)" and other tools, their results in
//     "  ⎿  " blocks, errors as "⎿  Error: …", refusals as "⎿  No (tell
//     Claude what to do differently)", prompts as "> …".
//   - gemini-console: Gemini CLI's terminal. Each call is a panel drawn
//     with ╭─╮ │ ╰─╯ whose first line is "✔  Shell command (description)"
//     ("✖" for an error, "-" when cancelled), then the output. Model text
//     starts with "✦", prompts with ">".
//   - mini-swe-agent-console: mini-swe-agent's terminal log, usually
//     recorded with its colours: "mini-swe-agent (step N, $cost):" replies
//     with one ```bash block, answered by "User:" messages with
//     <returncode>N</returncode> and <output>.
//
// ANSI escape sequences are removed, and a line a carriage return wrote
// over keeps only what was written last, as a terminal shows it. Failures
// come from the text alone: Exit is set where the text states it ("Exit
// code N", <returncode>N</returncode>), IsError where the rendering marks
// an error ("⎿  Error:", "✖"). Without msg markers, messages are counted as
// the rendering shows them: each prompt, each run of assistant text and
// calls, and each call's result is one message. Lines that fit nowhere
// belong to the output or text around them, or are passed over.

// The variants.
const (
	textTranscript = "transcript"
	textClaude     = "claude-console"
	textGemini     = "gemini-console"
	textMini       = "mini-swe-agent-console"
)

var (
	// textRoleRE matches a transcript's role marker at the start of a line,
	// after an optional message marker: "[msg 12] [assistant]".
	textRoleRE = regexp.MustCompile(`^\s*(?:\[msg\s+(\d{1,9})\]\s*|msg\s+(\d{1,9})\s*[:.]?\s*)?\[(assistant|user|system)\]:?`)
	// textMsgRE matches a message marker alone on its line.
	textMsgRE = regexp.MustCompile(`^\s*(?:\[msg\s+(\d{1,9})\]|msg\s+(\d{1,9}))\s*$`)
	// textToolRE matches a transcript's tool marker.
	textToolRE = regexp.MustCompile(`\[([a-z][a-z0-9_.-]+)\]`)

	// textClaudeCallRE matches Claude Code's call header: "⏺ Bash(", with
	// two-word names ("Web Search(") and MCP tools ("ctx:query (MCP)(").
	textClaudeCallRE = regexp.MustCompile(`^(?:⏺|●) ([A-Z][A-Za-z0-9_]*(?: [A-Z][A-Za-z0-9_]*)?|[A-Za-z0-9_.-]+(?::| - )[A-Za-z0-9_.-]+ \(MCP\)|mcp__[A-Za-z0-9_-]+)\((.*)$`)
	// textClaudeTodosRE matches the todo tools, shown without arguments.
	textClaudeTodosRE = regexp.MustCompile(`^(?:⏺|●) ((?:Update|Read) Todos)\s*$`)
	textClaudeCwdRE   = regexp.MustCompile(`cwd: (\S.*?)\s*│?\s*$`)
	textClaudeHookRE  = regexp.MustCompile(`^(?:PreToolUse|PostToolUse|Stop|SubagentStop|UserPromptSubmit)(?::\S+)? \[.*\] (?:completed|failed)`)
	// textProgressRE matches the state the console shows while a call
	// runs: "Waiting…", "Running…", "Initializing…".
	textProgressRE = regexp.MustCompile(`^[A-Z][a-z]+(?: [a-z]+)?…$`)
	// textCollapsedRE matches the line the console puts for the lines of
	// an output it does not show.
	textCollapsedRE = regexp.MustCompile(`^… \+\d+ lines? \(`)
	// textPytestRE matches the failing line pytest marks with "> ", which a
	// copy can put at the start of a line inside an output.
	textPytestRE = regexp.MustCompile(`^>\s{3,}`)

	// textGeminiHeadRE matches the first line inside a Gemini CLI panel,
	// its border removed: status icon, tool name, what the tool does.
	textGeminiHeadRE  = regexp.MustCompile(`^\s?([✔✓✖✗✘x?⊷o-])\s+([A-Z][A-Za-z0-9_]*)(?:\s+(.*))?$`)
	textGeminiAboutRE = regexp.MustCompile(`^\s*(CLI Version|Model)\s{2,}(\S+)`)

	textMiniStepRE  = regexp.MustCompile(`^mini-swe-agent \(step \d+, \$[0-9.,]+\):$`)
	textMiniHelloRE = regexp.MustCompile(`This is mini-swe-agent version (\d[\w.+-]*?)\.?$`)
	textReturnRE    = regexp.MustCompile(`^<returncode>(-?\d{1,9})</returncode>`)

	// textExitRE matches an exit status the text states on a line of its
	// own: "Exit code 2", "Error: Exit code 2".
	textExitRE = regexp.MustCompile(`^(?:Error: )?Exit code:? (-?\d{1,9})$`)
)

// The things a line can belong to.
type textMode int

const (
	textNone   textMode = iota
	textPrompt          // a user prompt
	textSays            // assistant text
	textHeader          // a call header not yet closed
	textOutput          // a call's output
	textCode            // mini-swe-agent: the command block of a reply
	textUser            // mini-swe-agent: a user message
	textBox             // a box that is not a call: a banner, /about
	textSkip            // lines that belong to nothing: thinking, refused calls
)

// matchText accepts a head that is not JSON and holds several markers of
// one rendering, or the start of a Terminal-Bench agent recording.
func matchText(head []byte) bool {
	if textLooksJSON(head) {
		return false
	}
	_, ok := textSniff(head)
	return ok
}

// textLooksJSON reports that head starts like a JSON value or JSON lines.
func textLooksJSON(head []byte) bool {
	b := bytes.TrimLeft(head, " \t\r\n")
	if len(b) == 0 {
		return false
	}
	switch b[0] {
	case '{':
		return true
	case '[':
		b = bytes.TrimLeft(b[1:], " \t\r\n")
		return len(b) == 0 || bytes.IndexByte([]byte(`{["]-0123456789`), b[0]) >= 0
	}
	return false
}

// textSniff returns the variant of the rendering head holds, and whether
// head is a rendering at all. The variant is empty when head is a
// recording whose agent is not known yet: the agent's output comes after
// its installation, past the head.
func textSniff(head []byte) (variant string, ok bool) {
	var (
		n     = map[string]int{} // markers counted
		first = map[string]int{} // line of each variant's first strong marker
		box   bool               // the previous line opened a box
		i     int
	)
	strong := func(v string) {
		if _, seen := first[v]; !seen {
			first[v] = i
		}
	}
	for raw := range bytes.Lines(head) {
		i++
		line := textClean(trimEOL(raw))
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		opens := strings.HasPrefix(t, "╭") && len(line)-len(strings.TrimLeft(line, " ")) <= 1
		switch {
		case strings.HasPrefix(line, "⏺") || strings.HasPrefix(line, "●"):
			dot := "⏺"
			if strings.HasPrefix(line, "●") {
				dot = "●"
			}
			n[dot]++
			if textClaudeCallRE.MatchString(line) || textClaudeTodosRE.MatchString(line) {
				n[dot+"call"]++
				strong(textClaude + dot)
			}
		case strings.HasPrefix(t, "⎿"):
			n["⎿"]++
		case box && textGeminiHeadRE.MatchString(strings.TrimPrefix(t, "│")) && strings.HasPrefix(t, "│"):
			n["panel"]++
			strong(textGemini)
		case strings.HasPrefix(line, "✦"):
			n["✦"]++
		case strings.HasPrefix(line, "> "):
			n[">"]++
		case textMiniStepRE.MatchString(t):
			n["step"]++
			strong(textMini)
		case textMiniHelloRE.MatchString(t):
			n["hello"]++
			strong(textMini)
		case textReturnRE.MatchString(t):
			n["returncode"]++
		case t == "System:":
			n["system"]++
		}
		if loc := textRoleRE.FindStringSubmatchIndex(line); loc != nil {
			n["role"]++
			strong(textTranscript)
			rest := line[loc[1]:]
			if line[loc[6]:loc[7]] == "assistant" && len(textKnownTools(rest)) > 0 {
				n["tool"]++
			}
		} else if name, _, ok := textLineTool(line); ok && textKnownTool(name) {
			n["tool"]++
		}
		box = opens
	}
	ok1 := map[string]bool{
		textClaude + "⏺": n["⏺call"] >= 1 && n["⏺"] >= 2 && n["⎿"] >= 1,
		textClaude + "●": n["●call"] >= 1 && n["●"] >= 2 && n["⎿"] >= 1,
		textGemini:       n["panel"] >= 2 || n["panel"] >= 1 && n["✦"]+n[">"] >= 1,
		textTranscript:   n["role"] >= 2 && n["tool"] >= 1,
		textMini:         n["step"] >= 1 && n["returncode"]+n["hello"] >= 1 || n["hello"] >= 1 && n["system"] >= 1,
	}
	best := 0
	for v, good := range ok1 {
		if good && (variant == "" || first[v] < best || first[v] == best && v < variant) {
			variant, best = v, first[v]
		}
	}
	if variant != "" {
		return strings.TrimRight(variant, "⏺●"), true
	}
	return "", bytes.Contains(head, []byte("asciinema rec")) &&
		bytes.Contains(head, []byte("/installed-agent/")) &&
		bytes.Contains(head, []byte("tmux wait -S done"))
}

// textLineMarker returns the variant a single line shows beyond doubt, for
// a recording whose head did not tell.
func textLineMarker(line string) string {
	t := strings.TrimSpace(line)
	switch {
	case textMiniStepRE.MatchString(t) || textMiniHelloRE.MatchString(t):
		return textMini
	case strings.HasPrefix(line, "⏺") && textClaudeCallRE.MatchString(line):
		return textClaude
	case strings.HasPrefix(t, "│") && strings.ContainsAny(t, "✔✖") && textGeminiHeadRE.MatchString(strings.TrimPrefix(t, "│")):
		return textGemini
	case textRoleRE.MatchString(line):
		return textTranscript
	}
	return ""
}

// textClean returns a line as a terminal shows it: without escape
// sequences or other control characters, and when carriage returns wrote
// over it, only the last text written. Invalid UTF-8 becomes U+FFFD and a
// no-break space a space.
func textClean(line []byte) string {
	plain := true
	for _, c := range line {
		if c < 0x20 && c != '\t' || c == 0x7f || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(line)
	}
	b := textStripEscapes(line)
	if bytes.IndexByte(b, '\r') >= 0 {
		segs := bytes.Split(b, []byte("\r"))
		b = nil
		for i := len(segs) - 1; i >= 0; i-- {
			if len(bytes.TrimSpace(segs[i])) > 0 {
				b = segs[i]
				break
			}
		}
	}
	out := string(b)
	if !utf8.Valid(b) {
		out = strings.ToValidUTF8(out, "\uFFFD")
	}
	// Copies from a terminal put no-break spaces where it drew spaces.
	return strings.ReplaceAll(out, "\u00a0", " ")
}

// textStripEscapes removes CSI, OSC and other escape sequences and the
// control characters but tab and carriage return.
func textStripEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != 0x1b {
			if c >= 0x20 && c != 0x7f || c == '\t' || c == '\r' {
				out = append(out, c)
			}
			continue
		}
		j := i + 1
		if j >= len(b) {
			break
		}
		switch b[j] {
		case '[': // CSI: parameters, intermediates, a final byte
			j++
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x3f {
				j++
			}
			if j < len(b) && b[j] >= 0x40 && b[j] <= 0x7e {
				j++
			}
		case ']', 'P', 'X', '^', '_': // OSC and other strings, ended by BEL or ST
			j++
			for j < len(b) && b[j] != 0x07 && !(b[j] == 0x1b && j+1 < len(b) && b[j+1] == '\\') {
				j++
			}
			switch {
			case j < len(b) && b[j] == 0x07:
				j++
			case j < len(b):
				j += 2
			}
		default: // ESC, intermediates, a final byte: "ESC ( B", "ESC ="
			for j < len(b) && b[j] >= 0x20 && b[j] <= 0x2f {
				j++
			}
			if j < len(b) {
				j++
			}
		}
		i = j - 1
	}
	return out
}

// A textBuf collects the lines of an output or a text.
type textBuf struct{ lines []string }

// add appends s after the given number of blank lines, which are dropped
// at the start. A run of more than MaxOutput blank lines keeps MaxOutput of
// them, as many as an abridged output can show: a run of millions would
// otherwise cost a string each.
func (b *textBuf) add(s string, blanks int) {
	if len(b.lines) > 0 {
		for blanks = min(blanks, MaxOutput); blanks > 0; blanks-- {
			b.lines = append(b.lines, "")
		}
	}
	b.lines = append(b.lines, s)
}

// String returns the lines without trailing blank lines.
func (b *textBuf) String() string {
	l := b.lines
	for len(l) > 0 && strings.TrimSpace(l[len(l)-1]) == "" {
		l = l[:len(l)-1]
	}
	return strings.Join(l, "\n")
}

func (b *textBuf) reset()      { b.lines = b.lines[:0] }
func (b *textBuf) empty() bool { return len(b.lines) == 0 }

// A textBoxLine is a line inside a Gemini CLI panel, its border removed.
type textBoxLine struct {
	s      string
	n      int // line number
	blanks int // blank lines before it
}

// textHeld is a message marker alone on its line, held until the next line
// shows whether it names a message.
type textHeld struct {
	line      string
	n, blanks int
	msg       int
}

// A textDecoder reads one text rendering line by line. The fields after
// the first group hold what a variant has begun and not yet finished.
type textDecoder struct {
	s       *Session
	variant string
	dot     string // claude-console: the bullet, ⏺ or ●
	msg     int    // index of the current message; -1 before the first
	turn    bool   // the current message is the assistant's
	titled  bool   // the first prompt was seen
	prev    int    // number of the last line read
	blanks  int    // blank lines since the last line handled
	mode    textMode

	call   *Call   // the call whose output is being read
	result bool    // its result has begun
	out    textBuf // its output
	text   textBuf // assistant text not yet attached to a call

	head     textBuf // claude-console: the call header being read
	headTool string
	headLine int
	cont     []int // the lines of out that continue a block, not start one

	box   []textBoxLine // gemini-console: the lines of the open panel
	inBox bool

	code     textBuf // mini-swe-agent-console: the command block being read
	codeLine int
	pending  []*Call // calls of the last reply without a result
	first    bool    // the next line is the first of a user message

	held      *textHeld // transcript: a message marker on its own line
	collapsed int       // outputs the console collapsed to a few lines
}

// decodeText reads a text rendering. The variant comes from the markers in
// the head, or, in a recording whose agent starts later, from the first
// line that shows one; lines before it are passed over.
func decodeText(r io.Reader, name string) (*Session, error) {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < HeadSize {
		br = bufio.NewReaderSize(r, HeadSize)
	}
	head, _ := br.Peek(HeadSize) // an error comes again when reading
	d := &textDecoder{
		s:   &Session{Path: name, Format: "text", Calls: []*Call{}},
		msg: -1,
	}
	if !textLooksJSON(head) {
		v, _ := textSniff(head)
		if v == "" {
			// Too few markers to recognize the text, but it was given
			// as text: the first marker decides.
			for line := range bytes.Lines(head) {
				if v = textLineMarker(textClean(trimEOL(line))); v != "" {
					break
				}
			}
		}
		if v != "" {
			d.setVariant(v, head)
		}
	}
	err := forEachLine(br, d.s, d.line)
	d.finish()
	return d.s, err
}

// setVariant fixes the rendering the decoder reads; head tells the bullet
// Claude Code used.
func (d *textDecoder) setVariant(v string, head []byte) {
	d.variant = v
	d.s.Format = "text:" + v
	d.dot = "⏺"
	if v == textClaude && !bytes.Contains(head, []byte("⏺")) && bytes.Contains(head, []byte("●")) {
		d.dot = "●"
	}
}

// line reads line n, which forEachLine found not blank.
func (d *textDecoder) line(raw []byte, n int) {
	d.blanks += n - d.prev - 1
	d.prev = n
	line := textClean(raw)
	if strings.TrimSpace(line) == "" {
		d.blanks++
		return
	}
	if d.variant == "" {
		v := textLineMarker(line)
		if v == "" {
			d.blanks = 0
			return
		}
		d.setVariant(v, []byte(line))
		if v == textGemini {
			d.inBox = true // the panel's top border went by before the variant was known
		}
	}
	switch d.variant {
	case textTranscript:
		d.transcriptLine(line, n)
	case textClaude:
		d.claudeLine(line, n)
	case textGemini:
		d.geminiLine(line, n)
	case textMini:
		d.miniLine(line, n)
	}
	d.blanks = 0
}

// finish ends what the input left open and notes the limits of the text.
func (d *textDecoder) finish() {
	switch d.variant {
	case textTranscript:
		if h := d.held; h != nil {
			d.held = nil
			d.transcriptBody(h.line, h.n, h.blanks)
		}
		d.endCall()
	case textClaude:
		d.claudeEnd()
	case textGemini:
		if d.inBox {
			d.geminiPanel()
		}
	case textMini:
		d.miniEnd()
	}
	if d.variant == "" {
		d.s.Notes = append(d.s.Notes, "no known rendering of an agent's turns was found in the text, so no calls were read")
		return
	}
	if d.collapsed > 0 {
		d.s.Notes = append(d.s.Notes, strconv.Itoa(d.collapsed)+" outputs were shortened by the console (ctrl+r to expand); the lines it hid are not in the text")
	}
}

// assistant starts an item of the assistant's: a new message unless the
// assistant's turn goes on.
func (d *textDecoder) assistant() {
	if !d.turn {
		d.msg++
		d.turn = true
	}
}

// user starts a message of the user's: a prompt or a call's result.
func (d *textDecoder) user() {
	d.msg++
	d.turn = false
	d.text.reset()
}

// prompt starts a user prompt, whose first line may title the session.
func (d *textDecoder) prompt(s string) {
	d.user()
	if !d.titled {
		d.titled = true
		d.s.Title = promptTitle(s)
	}
}

// newCall returns a call of the current assistant message, made at line n,
// with the assistant's text before it.
func (d *textDecoder) newCall(tool string, n int) *Call {
	d.assistant()
	c := &Call{
		Msg:  d.msg,
		Tool: tool,
		Kind: textKindOf(tool),
		Text: abridgeText(d.text.String()),
		Pos:  Pos{File: d.s.Path, Line: n},
	}
	d.text.reset()
	return c
}

// textKinds are the kinds of tool names Claude Code's console shows that
// are too common a word to mean the same for every agent.
var textKinds = map[string]Kind{"search": KindSearch, "fetch": KindWeb}

// textKindOf returns the kind of a tool as a rendering names it.
func textKindOf(tool string) Kind {
	if k, ok := textKinds[strings.ToLower(tool)]; ok {
		return k
	}
	return KindOf(tool)
}

// endCall settles the output of the call being read.
func (d *textDecoder) endCall() {
	c := d.call
	if c == nil {
		return
	}
	d.call = nil
	d.result = false
	if d.variant == textClaude {
		d.claudeDedent()
	}
	out := d.out.String()
	d.out.reset()
	if d.variant == textClaude {
		out = d.claudeOutcome(c, out)
	}
	c.Output = abridge(textExit(c, out))
}

// textExit sets c.Exit from a first or last line that states the exit
// code, and returns out without that line.
func textExit(c *Call, out string) string {
	first, rest, _ := strings.Cut(out, "\n")
	if code, ok := textExitCode(first); ok {
		c.Exit = &code
		return rest
	}
	i := strings.LastIndexByte(out, '\n')
	if i < 0 {
		return out
	}
	if code, ok := textExitCode(out[i+1:]); ok {
		c.Exit = &code
		return out[:i]
	}
	return out
}

// textExitCode returns the exit code a line states, if it does.
func textExitCode(line string) (int, bool) {
	m := textExitRE.FindStringSubmatch(strings.TrimSpace(line))
	if m == nil {
		return 0, false
	}
	code, err := strconv.Atoi(m[1])
	return code, err == nil
}

// textSetArgs fills in a call's command, file or arguments from the text a
// rendering shows between its parentheses or after its marker.
func textSetArgs(c *Call, args string) {
	args = strings.TrimSpace(args)
	if args == "" {
		return
	}
	if c.Kind == KindShell {
		c.Command = args
		return
	}
	if kv, ok := textKeyValues(args); ok {
		for _, p := range kv {
			if c.File == "" && isFileKey(p[0]) {
				c.File = p[1]
				continue
			}
			if c.Args == nil {
				c.Args = make(map[string]string)
			}
			c.Args[p[0]] = cut(p[1], maxArg)
		}
		return
	}
	key := "input"
	switch c.Kind {
	case KindRead, KindEdit, KindWrite:
		c.File = args
		return
	case KindSearch:
		if strings.ContainsAny(args[:1], "/.~") {
			c.File = args
			return
		}
		key = "pattern"
	case KindWeb:
		key = "query"
		if strings.HasPrefix(args, "http://") || strings.HasPrefix(args, "https://") {
			key = "url"
		}
	case KindTask:
		key = "description"
	}
	c.Args = map[string]string{key: cut(args, maxArg)}
}

// textKeyValues parses `key: "value", key: 12`, the way Claude Code shows
// a tool's input, into its pairs in order. Keys start with a lower-case
// letter, as input keys do, so "Task(Fix: the bug)" is no pair.
func textKeyValues(s string) (pairs [][2]string, ok bool) {
	for s != "" {
		i := 0
		for i < len(s) && (s[i] >= 'a' && s[i] <= 'z' || i > 0 && (s[i] == '_' || s[i] >= 'A' && s[i] <= 'Z' || s[i] >= '0' && s[i] <= '9')) {
			i++
		}
		if i == 0 || !strings.HasPrefix(s[i:], ": ") {
			return nil, false
		}
		key := s[:i]
		s = s[i+2:]
		var val string
		if strings.HasPrefix(s, `"`) {
			j := 1
			for j < len(s) && s[j] != '"' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, false
			}
			val = s[1:j]
			if u, err := strconv.Unquote(s[:j+1]); err == nil {
				val = u
			}
			s = s[j+1:]
		} else {
			j := strings.Index(s, ", ")
			if j < 0 {
				j = len(s)
			}
			val, s = s[:j], s[j:]
		}
		pairs = append(pairs, [2]string{key, val})
		if s == "" {
			break
		}
		if !strings.HasPrefix(s, ", ") {
			return nil, false
		}
		s = s[2:]
	}
	return pairs, len(pairs) > 0
}

// Transcripts.

// transcriptLine reads a line of a transcript: a role marker, a message
// marker held until the next line, or a line of the current message.
func (d *textDecoder) transcriptLine(line string, n int) {
	held := d.held
	d.held = nil
	if loc := textRoleRE.FindStringSubmatchIndex(line); loc != nil {
		msg := -1
		if held != nil {
			msg = held.msg
		}
		for _, k := range []int{2, 4} {
			if loc[k] >= 0 {
				msg, _ = strconv.Atoi(line[loc[k]:loc[k+1]])
			}
		}
		d.transcriptRole(line[loc[6]:loc[7]], strings.TrimSpace(line[loc[1]:]), msg, n)
		return
	}
	if held != nil {
		d.transcriptBody(held.line, held.n, held.blanks)
	}
	if m := textMsgRE.FindStringSubmatch(line); m != nil {
		msg, _ := strconv.Atoi(m[1] + m[2])
		d.held = &textHeld{line: line, n: n, blanks: d.blanks, msg: msg}
		return
	}
	d.transcriptBody(line, n, d.blanks)
}

// transcriptRole starts a message; msg is its index, or -1 to count it.
func (d *textDecoder) transcriptRole(role, rest string, msg, n int) {
	d.endCall()
	if msg >= 0 {
		d.msg = msg
	} else {
		d.msg++
	}
	d.text.reset()
	switch role {
	case "assistant":
		d.turn = true
		d.mode = textSays
		d.transcriptSays(rest, n)
	case "user":
		d.turn = false
		d.mode = textPrompt
		d.first = true
		if rest != "" {
			d.transcriptBody(rest, n, 0)
		}
	default:
		d.turn = false
		d.mode = textNone
	}
}

// transcriptSays reads the rest of an assistant's marker line: text, then
// any calls, each up to the next tool marker.
func (d *textDecoder) transcriptSays(s string, n int) {
	marks := textKnownTools(s)
	if len(marks) == 0 {
		if s != "" {
			d.text.add(s, 0)
		}
		return
	}
	if t := strings.TrimSpace(s[:marks[0][0]]); t != "" {
		d.text.add(t, 0)
	}
	for i, m := range marks {
		end := len(s)
		if i+1 < len(marks) {
			end = marks[i+1][0]
		}
		d.endCall()
		d.transcriptCall(s[m[2]:m[3]], s[m[1]:end], n)
	}
}

// transcriptBody reads a line inside a message: a user's prompt, an
// assistant's text, a tool marker, or a call's output.
func (d *textDecoder) transcriptBody(line string, n, blanks int) {
	switch d.mode {
	case textPrompt:
		if d.first {
			d.first = false
			if !d.titled {
				d.titled = true
				d.s.Title = promptTitle(line)
			}
		}
	case textSays, textOutput:
		if name, rest, ok := textLineTool(line); ok {
			switch name {
			case "output", "result", "tool_result", "stdout", "stderr":
				if d.call != nil {
					if rest = strings.TrimSpace(rest); rest != "" {
						d.out.add(rest, blanks)
					}
					return
				}
			default:
				d.endCall()
				d.transcriptCall(name, rest, n)
				return
			}
		}
		if d.call != nil {
			d.out.add(line, blanks)
		} else {
			d.text.add(line, blanks)
		}
	}
}

// transcriptCall starts the call a tool marker made at line n.
func (d *textDecoder) transcriptCall(name, args string, n int) {
	c := d.newCall(name, n)
	textSetArgs(c, args)
	d.s.add(c)
	d.call = c
	d.mode = textOutput
}

// textLineTool returns the tool marker a line starts with, "[bash] ls",
// and the rest of the line.
func textLineTool(line string) (name, rest string, ok bool) {
	t := strings.TrimLeft(line, " \t")
	if !strings.HasPrefix(t, "[") {
		return "", "", false
	}
	m := textToolRE.FindStringSubmatchIndex(t)
	if m == nil || m[0] != 0 {
		return "", "", false
	}
	rest = t[m[1]:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return "", "", false
	}
	return t[m[2]:m[3]], rest, true
}

// textKnownTools returns the positions of the tool markers in s that name
// a tool some agent has, as regexp submatch indexes.
func textKnownTools(s string) [][]int {
	var marks [][]int
	for _, m := range textToolRE.FindAllStringSubmatchIndex(s, -1) {
		if textKnownTool(s[m[2]:m[3]]) {
			marks = append(marks, m)
		}
	}
	return marks
}

// textKnownTool reports that some agent has a tool of that lower-case name.
func textKnownTool(name string) bool {
	_, ok := toolKinds[name]
	return ok
}

// Claude Code's console.

// claudeLine reads a line of Claude Code's console. Items start at the
// left edge: "⏺" for the assistant's text and calls, ">" for prompts,
// "✻" for thinking, "╭" for the welcome box; "⎿" starts a block of a
// call's result, and other lines go on with what was started.
func (d *textDecoder) claudeLine(line string, n int) {
	t := strings.TrimLeft(line, " ")
	switch {
	case strings.HasPrefix(line, d.dot):
		d.claudeEnd()
		d.assistant()
		if m := textClaudeCallRE.FindStringSubmatch(line); m != nil {
			d.claudeHeader(strings.TrimSuffix(m[1], " (MCP)"), m[2], n)
		} else if m := textClaudeTodosRE.FindStringSubmatch(line); m != nil {
			d.claudeHeader(m[1], "", n)
		} else {
			d.text.reset()
			d.text.add(strings.TrimSpace(strings.TrimPrefix(line, d.dot)), 0)
			d.mode = textSays
		}
	case (line == ">" || strings.HasPrefix(line, "> ")) && !(d.mode == textOutput && textPytestRE.MatchString(line)):
		d.claudeEnd()
		d.prompt(strings.TrimPrefix(line[1:], " "))
		d.mode = textPrompt
	case strings.HasPrefix(line, "✻"):
		d.claudeEnd()
		d.assistant()
		d.mode = textSkip
	case strings.HasPrefix(line, "╭"):
		d.claudeEnd()
		d.mode = textBox
	case d.mode == textBox:
		if strings.HasPrefix(line, "╰") {
			d.mode = textSkip
		} else if m := textClaudeCwdRE.FindStringSubmatch(line); m != nil {
			setOnce(&d.s.Cwd, m[1])
		}
	case strings.HasPrefix(t, "⎿"):
		d.claudeResult(t, n)
	case textClaudeHookRE.MatchString(line):
		// A hook's report, not the tool's output.
	default:
		switch d.mode {
		case textHeader:
			d.head.add(line, d.blanks)
		case textOutput:
			d.out.add(line, d.blanks)
			d.cont = append(d.cont, len(d.out.lines)-1)
		case textSays:
			d.text.add(strings.TrimPrefix(line, "  "), d.blanks)
		}
	}
}

// claudeHeader starts a call header, which goes on until its result.
func (d *textDecoder) claudeHeader(tool, args string, n int) {
	d.headTool = tool
	d.headLine = n
	d.head.reset()
	d.head.add(args, 0)
	d.mode = textHeader
}

// claudeCall makes the call whose header has been read.
func (d *textDecoder) claudeCall() {
	lines := d.head.lines
	// Continuation lines are indented to the header; the command's own
	// indentation is what is left.
	indent := 6
	for _, l := range lines[min(1, len(lines)):] {
		if strings.TrimSpace(l) != "" {
			indent = min(indent, len(l)-len(strings.TrimLeft(l, " ")))
		}
	}
	for i := 1; i < len(lines); i++ {
		if len(lines[i]) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	args := strings.TrimRight(d.head.String(), " \t")
	args = strings.TrimSuffix(args, ")")
	d.head.reset()
	c := d.newCall(d.headTool, d.headLine)
	textSetArgs(c, args)
	d.s.add(c)
	d.call = c
	d.mode = textOutput
}

// claudeResult reads a "⎿" line: a block of the current call's result.
func (d *textDecoder) claudeResult(t string, n int) {
	content := strings.TrimPrefix(t, "⎿")
	for i := 0; i < 2 && strings.HasPrefix(content, " "); i++ {
		content = content[1:]
	}
	content = strings.TrimRight(content, " ")
	if d.mode == textHeader {
		d.claudeCall()
	}
	if d.call == nil || d.mode != textOutput {
		d.mode = textSkip
		return
	}
	switch {
	case textProgressRE.MatchString(content):
		return
	case strings.HasPrefix(content, "No (tell Claude what to do differently)"):
		// A refusal can follow a subagent's progress.
		d.call.Status = StatusRejected
	case strings.HasPrefix(content, "Interrupted by user"):
		if !d.result {
			d.user()
			d.call.Status = StatusInterrupted
			d.out.add(content, 0)
		}
		d.claudeEnd()
		d.mode = textSkip
		return
	}
	if !d.result {
		d.result = true
		d.user()
	}
	d.out.add(content, d.blanks)
}

// claudeEnd ends what the console was showing: a call header or output.
func (d *textDecoder) claudeEnd() {
	if d.mode == textHeader {
		d.claudeCall()
	}
	d.endCall()
	d.mode = textNone
}

// claudeDedent removes the indentation the console puts before the lines
// of an output after the first, which copies keep or lose: the most all
// those lines share, up to five spaces. The console's "… +N lines" marks
// lose theirs whole.
func (d *textDecoder) claudeDedent() {
	lines := d.out.lines
	indent := 5
	for _, i := range d.cont {
		l := lines[i]
		t := strings.TrimLeft(l, " ")
		if t != "" && !textCollapsedRE.MatchString(t) {
			indent = min(indent, len(l)-len(t))
		}
	}
	for _, i := range d.cont {
		if t := strings.TrimLeft(lines[i], " "); textCollapsedRE.MatchString(t) {
			lines[i] = t
		} else if len(lines[i])-len(t) >= indent {
			lines[i] = lines[i][indent:]
		}
	}
	d.cont = d.cont[:0]
}

// claudeOutcome reads the console's marks on a call's output: "Error: "
// before a failed call's output, the words of a refusal.
func (d *textDecoder) claudeOutcome(c *Call, out string) string {
	if rest, ok := strings.CutPrefix(out, "Error: "); ok || out == "Error" {
		c.IsError = true
		out = rest
	}
	if strings.HasPrefix(out, "No (tell Claude what to do differently)") ||
		strings.HasPrefix(out, "User rejected ") ||
		c.IsError && strings.HasPrefix(out, "The user doesn't want to ") {
		c.Status = StatusRejected
	}
	if strings.Contains(out, " lines (ctrl+r to expand)") || strings.Contains(out, " line (ctrl+r to expand)") {
		d.collapsed++
	}
	if out == "(No content)" {
		out = "" // the console's word for no output
	}
	return out
}

// Gemini CLI's console.

// geminiLine reads a line of Gemini CLI's console: a panel's line, or
// model text ("✦"), a prompt (">"), a notice ("ℹ", "✕").
func (d *textDecoder) geminiLine(line string, n int) {
	t := strings.TrimLeft(line, " ")
	if d.inBox {
		switch {
		case strings.HasPrefix(t, "╰"):
			d.geminiPanel()
			return
		case strings.HasPrefix(t, "│"):
			d.box = append(d.box, textBoxLine{s: textBoxInner(t), n: n, blanks: d.blanks})
			return
		}
		d.geminiPanel() // a panel the copy did not close
	}
	switch {
	case strings.HasPrefix(t, "╭") && len(line)-len(t) <= 1:
		d.inBox = true
		d.box = d.box[:0]
	case strings.HasPrefix(line, "✦"):
		d.assistant()
		d.text.reset()
		d.text.add(strings.TrimSpace(strings.TrimPrefix(line, "✦")), 0)
		d.mode = textSays
	case line == ">" || strings.HasPrefix(line, "> "):
		d.prompt(strings.TrimPrefix(line[1:], " "))
		d.mode = textPrompt
	case strings.HasPrefix(line, "ℹ") || strings.HasPrefix(line, "✕"):
		d.mode = textNone
	case d.mode == textSays:
		d.text.add(strings.TrimPrefix(line, "  "), d.blanks)
	}
}

// textBoxInner returns a line of a panel without its borders, or what a
// copy that cut the line left of the right border.
func textBoxInner(t string) string {
	s := strings.TrimPrefix(t, "│")
	for {
		u := strings.TrimRight(s, " ")
		u = strings.TrimSuffix(u, "│")
		u = strings.TrimSuffix(u, "\uFFFD")
		if u == s {
			return s
		}
		s = u
	}
}

// geminiPanel reads the panel just closed: a call, or a box of another
// kind such as /about.
func (d *textDecoder) geminiPanel() {
	d.inBox = false
	lines := d.box
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i].s) == "" {
		i++
	}
	if i == len(lines) {
		return
	}
	m := textGeminiHeadRE.FindStringSubmatch(lines[i].s)
	if m == nil {
		for _, l := range lines {
			if a := textGeminiAboutRE.FindStringSubmatch(l.s); a != nil {
				if a[1] == "Model" {
					setOnce(&d.s.Model, a[2])
				} else {
					setOnce(&d.s.Agent, a[2])
				}
			}
		}
		return
	}
	icon, tool, rest := m[1], m[2], strings.TrimSpace(m[3])
	if tool == "Save" && strings.HasPrefix(rest, "Memory") {
		tool, rest = "Save Memory", strings.TrimSpace(strings.TrimPrefix(rest, "Memory"))
	}
	c := d.newCall(tool, lines[i].n)
	body := lines[i+1:]
	if c.Kind == KindShell {
		cmd, desc, used := textGeminiCommand(rest, body)
		body = body[used:]
		c.Command = cmd
		if desc != "" {
			c.Args = map[string]string{"description": cut(desc, maxArg)}
		}
	} else {
		textGeminiTarget(c, rest)
	}
	var out textBuf
	for _, l := range body {
		s := textDedent(l.s, 4)
		if out.empty() && strings.TrimSpace(s) == "" {
			continue
		}
		out.add(s, l.blanks)
	}
	switch icon {
	case "✖", "✗", "✘", "x":
		c.IsError = true
	case "-":
		c.Status = StatusRejected
	case "?", "⊷", "o":
		c.Status = StatusNoResult
	}
	c.Output = abridge(textExit(c, out.String()))
	d.s.add(c)
	if c.Status != StatusNoResult {
		d.user()
	}
	d.mode = textNone
}

// textGeminiCommand returns a shell panel's command and description. A
// command with a quote still open goes on over the panel's next lines;
// used says how many.
func textGeminiCommand(first string, body []textBoxLine) (cmd, desc string, used int) {
	cmd, desc = textSplitDescription(first)
	if strings.HasSuffix(first, "…") || textQuotesClosed(cmd) {
		return cmd, desc, 0
	}
	all := first
	for i, l := range body[:min(len(body), 100)] {
		if len(all) > 64<<10 {
			break // no command is that long
		}
		all += "\n" + textDedent(l.s, 4)
		if c, dsc := textSplitDescription(all); textQuotesClosed(c) {
			return c, dsc, i + 1
		}
	}
	return cmd, desc, 0
}

// textSplitDescription splits "command (Description.)" at the opening
// parenthesis of a group that ends the text and follows a complete
// command. The panel cuts a long first line with "…", which can fall in the
// description: then the group is the last one opened and not closed.
func textSplitDescription(s string) (cmd, desc string) {
	open := -1 // the parenthesis that opens the description
	switch {
	case strings.HasSuffix(s, ")"):
		depth := 0
		for i := len(s) - 1; i >= 0; i-- {
			switch s[i] {
			case ')':
				depth++
			case '(':
				depth--
			}
			if depth == 0 {
				open = i
				break
			}
		}
	case strings.HasSuffix(s, "…"):
		last := strings.LastIndexByte(s, ')')
		if i := strings.Index(s[last+1:], " ("); i >= 0 {
			open = last + 1 + i + 1
		}
	}
	if open < 1 || s[open-1] != ' ' {
		return s, ""
	}
	r, _ := utf8.DecodeRuneInString(s[open+1:])
	if !unicode.IsUpper(r) || !textQuotesClosed(s[:open-1]) {
		return s, ""
	}
	desc = s[open+1:]
	if !strings.HasSuffix(s, "…") {
		desc = desc[:len(desc)-1]
	}
	return strings.TrimRight(s[:open-1], " "), desc
}

// textQuotesClosed reports that a shell command leaves no quote open and
// no parenthesis or brace unclosed.
func textQuotesClosed(s string) bool {
	var quote byte
	depth := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '(':
			depth++
		case c == ')':
			depth--
		}
	}
	return quote == 0 && depth == 0
}

// textGeminiTarget sets the file or input of a panel's call other than the
// shell from what the panel's first line says.
func textGeminiTarget(c *Call, rest string) {
	switch c.Tool {
	case "WriteFile":
		if p, ok := strings.CutPrefix(rest, "Writing to "); ok {
			c.File = p
			return
		}
	case "Edit":
		if p, _, ok := strings.Cut(rest, ": "); ok {
			c.File = p
			return
		}
	case "ReadFile", "ReadFolder":
		if rest != "" {
			c.File = rest
			return
		}
	}
	if rest != "" {
		c.Args = map[string]string{"input": cut(rest, maxArg)}
	}
}

// textDedent removes up to n leading spaces.
func textDedent(s string, n int) string {
	for i := 0; i < n && strings.HasPrefix(s, " "); i++ {
		s = s[1:]
	}
	return s
}

// mini-swe-agent's console.

// miniLine reads a line of mini-swe-agent's log: the headers of the
// system, user and assistant messages ("mini-swe-agent (step N, $x):"),
// a reply's command block, an observation, and the rule after it.
func (d *textDecoder) miniLine(line string, n int) {
	t := strings.TrimSpace(line)
	if d.mode == textCode {
		if t == "```" {
			d.miniAction()
		} else {
			d.code.add(line, d.blanks)
		}
		return
	}
	switch {
	case textMiniStepRE.MatchString(t):
		d.miniEnd()
		d.turn = false
		d.assistant()
		d.text.reset()
		d.pending = nil
		d.mode = textSays
	case t == "System:":
		d.miniEnd()
		d.msg++
		d.turn = false
		d.mode = textNone
	case t == "User:":
		d.miniEnd()
		d.user()
		d.first = true
		d.mode = textUser
	case textMiniHelloRE.MatchString(t):
		setOnce(&d.s.Agent, textMiniHelloRE.FindStringSubmatch(t)[1])
	case textIsRule(t):
		d.miniEnd()
		d.mode = textNone
	case textIsSpinner(t):
		// The wait for the model, redrawn in place.
	case d.mode == textSays:
		if strings.HasPrefix(t, "```bash") || strings.HasPrefix(t, "```mswea_bash_command") {
			d.mode = textCode
			d.codeLine = n
			d.code.reset()
			return
		}
		d.text.add(line, d.blanks)
	case d.mode == textUser && len(d.pending) == 1:
		// The result of the reply's command. What the agent's process
		// logs meanwhile (litellm's warnings) can come first.
		c := d.pending[0]
		if m := textReturnRE.FindStringSubmatch(t); m != nil {
			if code, err := strconv.Atoi(m[1]); err == nil {
				c.Exit = &code
			}
			c.Status = ""
			d.pending = nil
			d.call = c
			d.mode = textOutput
			if rest := strings.TrimSpace(t[len(m[0]):]); rest != "" {
				d.out.add(rest, 0)
			}
		} else if strings.HasPrefix(t, "The last command") && strings.Contains(t, "timed out") {
			c.Status = StatusInterrupted
			d.pending = nil
			d.call = c
			d.mode = textOutput
			d.out.add(line, 0)
		}
	case d.mode == textUser:
		if d.first && !d.titled {
			d.titled = true
			d.s.Title = promptTitle(line)
		}
		d.first = false
	case d.mode == textOutput:
		d.out.add(line, d.blanks)
	}
}

// miniAction makes the call of the command block just closed. It has no
// result until a user message brings one.
func (d *textDecoder) miniAction() {
	c := d.newCall("bash", d.codeLine)
	c.Command = d.code.String()
	c.Status = StatusNoResult
	d.code.reset()
	d.s.add(c)
	d.pending = append(d.pending, c)
	d.mode = textSays
}

// miniEnd ends a message: a command block cut short, or an observation.
func (d *textDecoder) miniEnd() {
	if d.mode == textCode {
		d.miniAction()
	}
	c := d.call
	if c == nil {
		return
	}
	d.call = nil
	out := d.out.String()
	d.out.reset()
	if rest, ok := strings.CutPrefix(out, "<output>"); ok {
		out = strings.TrimPrefix(rest, "\n")
	}
	out = strings.TrimSuffix(strings.TrimSuffix(out, "</output>"), "\n")
	c.Output = abridge(out)
}

// textIsRule reports a horizontal rule drawn with box characters, which
// mini-swe-agent prints after each observation.
func textIsRule(t string) bool {
	return utf8.RuneCountInString(t) >= 20 && strings.Trim(t, "─\uFFFD") == ""
}

// textIsSpinner reports a spinner's line: a Braille pattern and a word.
func textIsSpinner(t string) bool {
	r, size := utf8.DecodeRuneInString(t)
	return r >= 0x2800 && r <= 0x28ff && strings.HasPrefix(t[size:], " ")
}
