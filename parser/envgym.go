package parser

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"regexp"
)

// EnvGym, a benchmark of agents that set up repositories, logs the OpenAI
// Codex CLI of its TypeScript era as the CLI printed it: a rule of '='
// signs, a header object, then each response item pretty-printed after
// "[repo][STDOUT]: ", each item printed twice in a row, and a closing
// object and rule. The items are those of the legacy bare era, so the log
// is read as a rollout of that era: each item is handed to the decoder as
// one line, on the line where it starts, and its other lines, the
// repeats and the rest are handed over blank, so that positions stay
// those of the log.

// envgymItemRE matches the line that starts an item.
var envgymItemRE = regexp.MustCompile(`^\[[^\]\n]*\]\[STDOUT\]: \{\s*$`)

// envgymRule starts an EnvGym log.
var envgymRule = []byte("==========")

// isEnvgym reports whether head is the start of an EnvGym log: the rule,
// and an item within head.
func isEnvgym(head []byte) bool {
	if !bytes.HasPrefix(head, envgymRule) {
		return false
	}
	for line := range bytes.Lines(head) {
		if envgymItemRE.Match(line) {
			return true
		}
	}
	return false
}

// maxEnvgymItem bounds the text of one item: an item that does not close
// before it is handed over as it is, and reported as malformed.
const maxEnvgymItem = 64 << 20

// An envgymReader reads an EnvGym log as the lines of a legacy rollout.
type envgymReader struct {
	in    *bufio.Reader
	out   []byte // read, not yet handed over
	item  []byte // the item being gathered, from its opening brace
	lines int    // the lines of item
	prev  []byte // the last item handed over, compacted
	err   error
}

func newEnvgymReader(r io.Reader) *envgymReader {
	return &envgymReader{in: bufio.NewReaderSize(r, 64<<10)}
}

func (e *envgymReader) Read(p []byte) (int, error) {
	for len(e.out) == 0 {
		if e.err != nil {
			return 0, e.err
		}
		line, err := e.in.ReadBytes('\n')
		if len(line) > 0 {
			e.line(line)
		}
		if err != nil {
			e.handOver(false)
			e.err = err
		}
	}
	n := copy(p, e.out)
	e.out = e.out[n:]
	return n, nil
}

// line takes one line of the log.
func (e *envgymReader) line(line []byte) {
	switch {
	case e.item != nil:
		e.item = append(e.item, line...)
		e.lines++
		if string(bytes.TrimRight(line, "\r\n")) == "}" {
			e.handOver(true)
		} else if len(e.item) > maxEnvgymItem {
			e.handOver(false)
		}
	case envgymItemRE.Match(line):
		e.item = append(e.item[:0:0], '{', '\n')
		e.lines = 1
	default:
		e.out = append(e.out, '\n')
	}
}

// handOver hands over the item gathered, if any: compacted on one line,
// or, when it is not valid JSON (cut off, or not closed), its lines joined
// for the decoder to report; then a blank line for each other line of it.
// A repeat of the item before is handed over blank.
func (e *envgymReader) handOver(closed bool) {
	if e.item == nil {
		return
	}
	var b bytes.Buffer
	switch {
	case closed && json.Compact(&b, e.item) == nil:
		if !bytes.Equal(b.Bytes(), e.prev) {
			e.out = append(e.out, b.Bytes()...)
			e.prev = bytes.Clone(b.Bytes())
		}
	default:
		e.out = append(e.out, bytes.ReplaceAll(bytes.TrimRight(e.item, "\r\n"), []byte("\n"), []byte(" "))...)
		e.prev = nil
	}
	e.out = append(e.out, bytes.Repeat([]byte("\n"), e.lines)...)
	e.item, e.lines = nil, 0
}
