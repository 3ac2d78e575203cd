package parser

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/tidwall/gjson"
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
// input object.
func setInput(c *Call, in gjson.Result) {
	if !in.IsObject() {
		return
	}
	if cmd := in.Get("command"); cmd.Type == gjson.String && c.Kind == Shell {
		c.Command = validUTF8(cmd.String())
	}
	for _, k := range fileKeys {
		if v := in.Get(k); v.Type == gjson.String && v.String() != "" {
			c.File = validUTF8(v.String())
			break
		}
	}
	in.ForEach(func(k, v gjson.Result) bool {
		key := k.String()
		if (key == "command" && c.Command != "") || (c.File != "" && isFileKey(key)) {
			return true
		}
		switch v.Type {
		case gjson.String, gjson.Number, gjson.True, gjson.False:
			if c.Args == nil {
				c.Args = make(map[string]string)
			}
			c.Args[validUTF8(key)] = cut(validUTF8(v.String()), maxArg)
		}
		return true
	})
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
			return cut(s, 300)
		}
		end += i + 1
	}
	return cut(s[:end]+"…", 300)
}

// firstLine returns the first line of s, cut to n runes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return cut(strings.TrimSpace(s), n)
}

// cut shortens s to at most n runes, marking the cut with an ellipsis.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for j := range s {
		if i == n-1 {
			return s[:j] + "…"
		}
		i++
	}
	return s
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
