package parser

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/internal/termtext"
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

// The variants, each read by a textVariant of its own file: a
// transcriptReader (text_transcript.go), a claudeConsole
// (text_claude.go), a geminiConsole (text_gemini.go) and a miniConsole
// (text_mini.go).
const (
	textTranscript = "transcript"
	textClaude     = "claude-console"
	textGemini     = "gemini-console"
	textMini       = "mini-swe-agent-console"
)

// A textVariant reads the lines of one rendering into the session of its
// textReader.
type textVariant interface {
	// line reads line n, cleaned and not blank.
	line(line string, n int)
	// finish ends what the input left open.
	finish()
}

// newTextVariant returns the reader of variant v, whose head is given;
// late says that a line in the middle of the input showed the variant,
// past the lines that began what it shows.
func newTextVariant(v string, r *textReader, head []byte, late bool) textVariant {
	switch v {
	case textTranscript:
		return &transcriptReader{textReader: r}
	case textClaude:
		return newClaudeConsole(r, head)
	case textGemini:
		// The top border of the panel whose first line showed the
		// variant went by before it.
		return &geminiConsole{textReader: r, inBox: late}
	case textMini:
		return &miniConsole{textReader: r}
	}
	return nil
}

// textExitRE matches an exit status the text states on a line of its
// own: "Exit code 2", "Error: Exit code 2".
var textExitRE = regexp.MustCompile(`^(?:Error: )?Exit code:? (-?\d{1,9})$`)

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

// textStripEscapes removes the escape sequences (as termtext reads them)
// and the control characters but tab and carriage return. Runs of other
// bytes are copied whole.
func textStripEscapes(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); {
		j := i
		for j < len(b) && b[j] >= 0x20 && b[j] != 0x7f && b[j] != 0xc2 {
			j++
		}
		out = append(out, b[i:j]...)
		if j == len(b) {
			break
		}
		c := b[j]
		if c == '\x1b' || c == 0xc2 { // where escapes start (see termtext.EscapeLen)
			if n := termtext.EscapeLen(b[j:]); n > 0 {
				i = j + n
				continue
			}
		}
		if c >= 0x20 && c != 0x7f || c == '\t' || c == '\r' {
			out = append(out, c)
		}
		i = j + 1
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

// A textReader holds what every rendering's reader keeps: the session and
// the message, call and text being read.
type textReader struct {
	s      *Session
	msg    int  // index of the current message; -1 before the first
	turn   bool // the current message is the assistant's
	titled bool // the first prompt was seen
	prev   int  // number of the last line read
	blanks int  // blank lines since the last line handled
	mode   textMode

	call *Call   // the call whose output is being read
	out  textBuf // its output
	text textBuf // assistant text not yet attached to a call
}

// A textDecoder reads one text rendering line by line, and hands each line
// to the reader of its variant once it is known.
type textDecoder struct {
	textReader
	variant string
	v       textVariant
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
	d := &textDecoder{textReader: textReader{
		s:   &Session{Path: name, Format: "text", Calls: []*Call{}},
		msg: -1,
	}}
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
			d.setVariant(v, head, false)
		}
	}
	err := forEachLine(br, d.s, d.line)
	d.finish()
	return d.s, err
}

// setVariant fixes the rendering the decoder reads, shown from head or,
// when late, from a line in the middle of the input.
func (d *textDecoder) setVariant(v string, head []byte, late bool) {
	d.variant = v
	d.s.Format = "text:" + v
	d.v = newTextVariant(v, &d.textReader, head, late)
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
		d.setVariant(v, []byte(line), true)
	}
	d.v.line(line, n)
	d.blanks = 0
}

// finish ends what the input left open and notes the limits of the text.
func (d *textDecoder) finish() {
	if d.variant == "" {
		d.s.Notes = append(d.s.Notes, "no known rendering of an agent's turns was found in the text, so no calls were read")
		return
	}
	d.v.finish()
}

// assistant starts an item of the assistant's: a new message unless the
// assistant's turn goes on.
func (d *textReader) assistant() {
	if !d.turn {
		d.msg++
		d.turn = true
	}
}

// user starts a message of the user's: a prompt or a call's result.
func (d *textReader) user() {
	d.msg++
	d.turn = false
	d.text.reset()
}

// prompt starts a user prompt, whose first line may title the session.
func (d *textReader) prompt(s string) {
	d.user()
	if !d.titled {
		d.titled = true
		d.s.Title = promptTitle(s)
	}
}

// newCall returns a call of the current assistant message, made at line n,
// with the assistant's text before it.
func (d *textReader) newCall(tool string, n int) *Call {
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

// takeCall returns the call being read, or nil, and its output, and
// reads no more of either.
func (d *textReader) takeCall() (*Call, string) {
	c := d.call
	if c == nil {
		return nil, ""
	}
	d.call = nil
	out := d.out.String()
	d.out.reset()
	return c, out
}

// endCall settles the output of the call being read; outcome, when not
// nil, reads the rendering's marks on the output first.
func (d *textReader) endCall(outcome func(c *Call, out string) string) {
	c, out := d.takeCall()
	if c == nil {
		return
	}
	if outcome != nil {
		out = outcome(c, out)
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
			c.Args[p[0]] = termtext.Cut(p[1], maxArg)
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
	c.Args = map[string]string{key: termtext.Cut(args, maxArg)}
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
