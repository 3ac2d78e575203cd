// Package shparse parses shell command lines with mvdan.cc/sh within
// bounds that keep its stack small.
//
// The parser recurses at every level of nesting, through a dozen calls for
// each parenthesis of an arithmetic expression: a line of 300 000 "(" (read
// as "((", arithmetic) needs more than the 1 GB a goroutine's stack may
// take, and Go cannot recover from a stack overflow. A line longer than
// MaxLen, or nested deeper than MaxNesting as Nesting counts it, is not
// parsed: callers take it as words, as they take a line the parser
// rejects. Real commands are far inside both bounds: the longest are
// here-documents that write a file, and their nesting is that of the code
// they hold.
package shparse

import (
	"errors"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// MaxLen is the length of the longest command line Parse parses.
const MaxLen = 64 << 10

// MaxNesting is the deepest nesting, as Nesting counts it, of a command
// line Parse parses.
const MaxNesting = 100

var (
	// ErrTooLong is the error of Parse for a line longer than MaxLen.
	ErrTooLong = errors.New("command line longer than 64 KiB")
	// ErrTooDeep is the error of Parse for a line nested deeper than
	// MaxNesting.
	ErrTooDeep = errors.New("command line nested more than 100 levels deep")
)

// Parse parses line with p, after checking it is within MaxLen and
// MaxNesting.
func Parse(p *syntax.Parser, line string) (*syntax.File, error) {
	if err := Check(line); err != nil {
		return nil, err
	}
	return p.Parse(strings.NewReader(line), "")
}

// Check returns ErrTooLong or ErrTooDeep when line is out of Parse's
// bounds, and nil when it is within them.
func Check(line string) error {
	switch {
	case len(line) > MaxLen:
		return ErrTooLong
	case Nesting(line) > MaxNesting:
		return ErrTooDeep
	}
	return nil
}

// Nesting returns how deep the constructs of line that the parser reads
// by recursion nest, counted from the bytes alone, without regard for
// quotes: brackets of any kind (subshells, substitutions, expansions,
// arithmetic, tests, blocks), compound commands (if, case, for, while,
// until, select), and within one pipeline, the prefixes that apply to the
// rest of it ("!", "?", time, coproc, function, "()"). A closing bracket
// or keyword ends the innermost construct of its kind. The bodies of
// here-documents, which agents fill with code in other languages, hold no
// compound commands.
//
// It is not the parser's depth but grows as fast with every nesting that
// takes one or two bytes a level, the ones a line of MaxLen bytes could
// nest deep enough to matter; the others, compound commands included, are
// bounded by the length.
func Nesting(line string) int {
	brackets, blocks, prefixes, deepest := 0, 0, 0, 0
	var docs []heredoc // started on the current line
	bodyEnd := 0       // the end of the here-document bodies being read
	for i := 0; i < len(line); i++ {
		switch c := line[i]; c {
		case '(', '[', '{':
			brackets++
			if c == '(' && i+1 < len(line) && line[i+1] == ')' {
				prefixes++ // a function's name: its body follows
			}
		case ')', ']', '}':
			brackets = max(0, brackets-1)
		case '!', '?':
			prefixes++
		case '\n':
			if len(docs) > 0 && i >= bodyEnd {
				bodyEnd = bodiesEnd(line, i+1, docs)
				docs = docs[:0]
			}
			prefixes = 0
		case ';', '&', '|':
			prefixes = 0
		case '<':
			if i+2 < len(line) && line[i+1] == '<' && line[i+2] != '<' && i >= bodyEnd {
				var d heredoc
				d, i = readHeredoc(line, i+2)
				docs = append(docs, d)
				i--
			}
		default:
			if !isLower(c) || i > 0 && isWordByte(line[i-1]) {
				continue
			}
			j := i + 1
			for j < len(line) && isWordByte(line[j]) {
				j++
			}
			switch word := line[i:j]; {
			case i < bodyEnd:
			case word == "if" || word == "case" || word == "for" || word == "while" || word == "until" || word == "select":
				blocks++
			case word == "fi" || word == "esac" || word == "done":
				blocks = max(0, blocks-1)
			}
			switch line[i:j] {
			case "time", "coproc", "function":
				prefixes++
			}
			i = j - 1
		}
		deepest = max(deepest, brackets+blocks+prefixes)
	}
	return deepest
}

// A heredoc is a here-document's delimiter, and whether leading tabs are
// stripped from its lines ("<<-").
type heredoc struct {
	delim string
	tabs  bool
}

// readHeredoc reads the delimiter of the here-document whose "<<" ends at
// line[i], quotes removed, and returns the index after it.
func readHeredoc(line string, i int) (heredoc, int) {
	var d heredoc
	if i < len(line) && line[i] == '-' {
		d.tabs = true
		i++
	}
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	var b strings.Builder
	for ; i < len(line) && !strings.ContainsRune(" \t\n;&|<>()", rune(line[i])); i++ {
		if c := line[i]; c != '\'' && c != '"' && c != '\\' {
			b.WriteByte(c)
		}
	}
	d.delim = b.String()
	return d, i
}

// bodiesEnd returns the index after the bodies of docs, one after the
// other, which start at line[i]: after the line that ends the last, or
// len(line).
func bodiesEnd(line string, i int, docs []heredoc) int {
	for _, d := range docs {
		for i < len(line) {
			end := strings.IndexByte(line[i:], '\n')
			next := i + end + 1
			if end < 0 {
				end, next = len(line)-i, len(line)
			}
			text := line[i : i+end]
			if d.tabs {
				text = strings.TrimLeft(text, "\t")
			}
			i = next
			if text == d.delim {
				break
			}
		}
	}
	return i
}

func isLower(c byte) bool { return 'a' <= c && c <= 'z' }

// isWordByte reports whether c may be part of a keyword or a name next to
// one.
func isWordByte(c byte) bool {
	return isLower(c) || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/'
}
