package parser

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/retrace-dev/retrace/internal/termtext"
	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// MaxOutput bounds the output text kept per call. Longer outputs keep their
// first and last MaxOutput/2 bytes or a little less, which hold the
// command's echo and its final error or result, around a line saying how
// much was left out. The cuts fall between lines (see cutWindow).
const MaxOutput = 64 << 10

// cutWindow is how far an output's cut moves back, for its head, or on,
// for its tail, to fall at a line break, or else after a space or a
// punctuation mark: a line cut in two would leave the start or the end of
// what it holds, a secret included, where its shape no longer shows.
const cutWindow = 4 << 10

// maxArg bounds the length of an argument value kept in Call.Args.
const maxArg = 200

// Input keys that name the file a tool works on, in every supported agent.
var fileKeys = []string{"file_path", "filePath", "path", "notebook_path", "absolute_path"}

// setInput fills in c's command, file and other arguments from a tool's
// input object, in one walk of it. What it takes goes through keep, and
// argument names through name; nil takes them as they are. Parse makes
// the command and the file valid UTF-8.
func setInput(c *Call, in rawjson.Value, keep, name func(string) string) {
	if in.Kind() != rawjson.Object {
		return
	}
	if keep == nil {
		keep = asIs
	}
	if name == nil {
		name = keep
	}
	type member struct {
		key string
		v   rawjson.Value
	}
	var buf [8]member
	members := buf[:0]
	for k, v := range in.Members() {
		members = append(members, member{k, v})
	}
	// first reads the first member named key, as Value.Get does.
	first := func(key string) rawjson.Value {
		for _, m := range members {
			if m.key == key {
				return m.v
			}
		}
		return rawjson.Value{}
	}
	if cmd := first("command"); cmd.Kind() == rawjson.String && c.Kind == KindShell {
		c.Command = keep(cmd.Text())
	}
	for _, k := range fileKeys {
		if v := first(k); v.Kind() == rawjson.String && v.Text() != "" {
			c.File = keep(v.Text())
			break
		}
	}
	for _, m := range members {
		if (m.key == "command" && c.Command != "") || (c.File != "" && isFileKey(m.key)) {
			continue
		}
		var arg string
		switch m.v.Kind() {
		case rawjson.String:
			arg = argString(m.v)
		case rawjson.Number, rawjson.Bool:
			arg = termtext.Cut(validUTF8(m.v.Text()), maxArg)
		default:
			continue
		}
		if c.Args == nil {
			c.Args = make(map[string]string)
		}
		c.Args[name(validUTF8(m.key))] = keep(arg)
	}
}

// asIs returns s: for strings cut from text that is not reused.
func asIs(s string) string { return s }

// argString returns termtext.Cut(validUTF8(v.Text()), maxArg) for the string v,
// without decoding all of a long one. Of the text of a prefix of v, only
// the last rune can differ from the whole text's once made valid UTF-8:
// when it holds more than maxArg runes, it decides the cut. A rune takes
// at most 12 bytes of JSON (a surrogate pair).
func argString(v rawjson.Value) string {
	if n := 12 * (maxArg + 1); len(v.Raw()) > n+2 {
		if s := validUTF8(v.TextHead(n)); utf8.RuneCountInString(s) > maxArg {
			return termtext.Cut(s, maxArg)
		}
	}
	return termtext.Cut(validUTF8(v.Text()), maxArg)
}

func isFileKey(k string) bool {
	for _, f := range fileKeys {
		if k == f {
			return true
		}
	}
	return false
}

// abridge bounds an output to MaxOutput bytes, keeping its head and tail,
// and makes it valid UTF-8.
func abridge(s string) string {
	return validUTF8(abridgeBytes(s))
}

// abridgeBytes is abridge without the repair of invalid UTF-8, which Parse
// does on every session.
func abridgeBytes(s string) string {
	return abridgeAt(s, MaxOutput/2)
}

// longString is the length of a JSON string past which abridgeString
// decodes only its ends.
const longString = 8 * MaxOutput

// abridgeString returns abridgeBytes of the text of v, a string, less its
// first drop(text) bytes, where drop looks no further than the start of
// the text (an exit code line). A string longer than longString is decoded
// at its ends only: a 250 MiB output no longer takes a copy of 250 MiB to
// keep 64 KiB.
func abridgeString(v rawjson.Value, drop func(text string) int) string {
	return abridgeStringAt(v, drop, MaxOutput/2, longString)
}

// abridgeStringAt is abridgeString keeping half bytes at each end,
// decoding only the ends of strings longer than long.
func abridgeStringAt(v rawjson.Value, drop func(text string) int, half, long int) string {
	whole := func() string {
		text := v.Text()
		return abridgeAt(text[drop(text):], half)
	}
	if len(v.Raw())-2 <= long {
		return whole()
	}
	// An escape decodes to at least a sixth of its length: the head holds
	// half bytes past a drop of up to half, and the tail half bytes.
	head := v.TextHead(12 * half)
	k := drop(head)
	n := v.TextLen()
	if k > half || len(head) < k+half || n-k <= 2*half {
		return whole()
	}
	tail := v.TextTail(6 * half)
	// Cut where abridgeAt cuts: between lines, else between clauses.
	hs, ts := head[k:k+half], tail[len(tail)-half:]
	h := validPrefix(hs[:headEnd(hs, half)])
	t := validSuffix(ts[tailStart(ts, 0):])
	return h + "\n[… " + strconv.Itoa(n-k-len(h)-len(t)) + " bytes omitted …]\n" + t
}

// blockText returns the text of a tool result's content, which is either a
// string or a list of blocks.
func blockText(content rawjson.Value) string {
	if content.Kind() != rawjson.Array {
		return content.Text()
	}
	var b strings.Builder
	for blk := range content.Elements() {
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		switch typ := blk.Get("type").Text(); typ {
		case "text":
			b.WriteString(blk.Get("text").Text())
		case "image":
			b.WriteString("[image]")
		default:
			b.WriteString("[" + typ + "]")
		}
	}
	return b.String()
}

// abridgeAt is abridgeBytes keeping half bytes at each end.
func abridgeAt(s string, half int) string {
	if len(s) <= 2*half {
		return s
	}
	head := validPrefix(s[:headEnd(s, half)])
	tail := validSuffix(s[tailStart(s, len(s)-half):])
	omitted := len(s) - len(head) - len(tail)
	return head + "\n[… " + strconv.Itoa(omitted) + " bytes omitted …]\n" + tail
}

// headEnd returns where the head of s that abridge keeps ends, at most n:
// after the last line break in the cutWindow bytes before n, else after the
// last space or punctuation there, else n.
func headEnd(s string, n int) int {
	from := max(0, n-cutWindow)
	w := s[from:n]
	if i := strings.LastIndexByte(w, '\n'); i >= 0 {
		return from + i + 1
	}
	if i := strings.LastIndexAny(w, wordEnds); i >= 0 {
		return from + i + 1
	}
	return n
}

// tailStart returns where the tail of s that abridge keeps starts, at
// least n: after the first line break in the cutWindow bytes from n, else
// where the next clause starts there (after , ; | & or a bracket, or at a
// word that starts with a dash, a flag), else after the first space or
// punctuation, else n. A value whose flag or name was cut off before it
// ("--password| hunter2") would show without what says it is a secret.
func tailStart(s string, n int) int {
	w := s[n:min(len(s), n+cutWindow)]
	if i := strings.IndexByte(w, '\n'); i >= 0 {
		return n + i + 1
	}
	for i := 0; i+1 < len(w); i++ {
		if strings.IndexByte(",;|&()[]{}", w[i]) >= 0 || (w[i] == ' ' || w[i] == '\t') && w[i+1] == '-' {
			return n + i + 1
		}
	}
	if i := strings.IndexAny(w, wordEnds); i >= 0 {
		return n + i + 1
	}
	return n
}

// wordEnds are the bytes after which abridge may cut a line it must cut:
// they end a word, a value or a token.
const wordEnds = " \t\"'`,;()[]{}<>|&"

// validUTF8 replaces the bytes of s that are not UTF-8, as transcripts
// written by a tool that copies raw program output can hold, with U+FFFD.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// abridgeText keeps the first lines of an assistant's text, for context.
func abridgeText(s string) string {
	s = strings.TrimSpace(s)
	end := 0
	for range 3 {
		i := strings.IndexByte(s[end:], '\n')
		if i < 0 {
			return termtext.Cut(s, 300)
		}
		end += i + 1
	}
	return termtext.Cut(s[:end]+"…", 300)
}

// firstLine returns the first line of s, cut to n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return termtext.Cut(strings.TrimSpace(s), n)
}

// validPrefix drops a UTF-8 sequence cut in two at the end of s.
func validPrefix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0; i++ {
		r, size := utf8.DecodeLastRuneInString(s)
		if r != utf8.RuneError || size > 1 {
			return s
		}
		s = s[:len(s)-1]
	}
	return s
}

// validSuffix drops a UTF-8 sequence cut in two at the start of s.
func validSuffix(s string) string {
	for i := 0; i < utf8.UTFMax && len(s) > 0 && !utf8.RuneStart(s[0]); i++ {
		s = s[1:]
	}
	return s
}
