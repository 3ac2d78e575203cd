package redact

import "strings"

// This file holds what the rules know of cut text. retrace shortens long
// texts to fit (a title to a line, an argument to 200 characters, an output
// to its head and tail), and a secret cut short no longer has its full
// shape: "sk-ant-api03-Q9w8E7…" is too short for an Anthropic key and
// "PASSWORD=hunt…" reads as a placeholder. So what runs into a cut is
// masked however short it is, as long as anything of the secret's own
// part is left.

// ellipsis ends a text retrace cut short: a value, a line, an argument.
const ellipsis = "…"

// omitted starts the line that stands for the middle of a long output,
// "[… N bytes omitted …]".
const omitted = "\n[… "

// cutAt reports whether a cut follows at i: an ellipsis, or the line that
// stands for the left-out middle of an output.
func cutAt(s string, i int) bool {
	return i < len(s) && (strings.HasPrefix(s[i:], ellipsis) || strings.HasPrefix(s[i:], omitted))
}

// cutToken reports whether s[b:e], the part of a token that follows its
// prefix, runs into a cut and holds something of the secret: then it is
// masked, however short. A token with nothing after its prefix ("ghp_…")
// or only filler ("sk-xxx…") is a placeholder.
func cutToken(s string, b, e int) bool {
	if e <= b || !cutAt(s, e) {
		return false
	}
	for j := b; j < e; j++ {
		if c := s[j]; c != 'x' && c != 'X' && c != '*' && c != '.' && c != '-' && c != '_' {
			return true
		}
	}
	return false
}

// cutValue returns the end of the value s[start:end] without the ellipsis
// that ends it, and whether the value runs into a cut.
func cutValue(s string, start, end int) (int, bool) {
	if strings.HasSuffix(s[start:end], ellipsis) {
		return end - len(ellipsis), true
	}
	return end, cutAt(s, end)
}
