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

// maxEnvgymItem bounds the text of one item, as MaxRecord bounds a line
// of JSON: an item that does not close before it is handed over as it is,
// and reported as malformed, and the rest of its lines are not held.
var maxEnvgymItem = MaxRecord

// An envgymReader reads an EnvGym log as the lines of a legacy rollout.
type envgymReader struct {
	in    *bufio.Reader
	out   []byte // read, not yet handed over
	item  []byte // the item being gathered, from its opening brace
	lines int    // the lines of item
	prev  []byte // the last item handed over, compacted
	long  bool   // the item passed maxEnvgymItem: the rest of its lines are dropped
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
		line, err := e.readLine()
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

// readLine returns the next line of the log with its newline; of a line
// that would take the item, or itself, past maxEnvgymItem, only the
// newline, and the item is marked long.
func (e *envgymReader) readLine() ([]byte, error) {
	var line []byte
	cut := false
	for {
		part, err := e.in.ReadSlice('\n')
		if cut || len(e.item)+len(line)+len(part) > maxEnvgymItem {
			cut, line = true, line[:0]
		} else {
			line = append(line, part...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if cut {
			e.long = e.item != nil
			if err == nil {
				line = append(line, '\n')
			}
		}
		return line, err
	}
}

// line takes one line of the log. A line that starts an item ends the one
// being gathered, which did not close.
func (e *envgymReader) line(line []byte) {
	start := envgymItemRE.Match(line)
	if start && e.item != nil {
		e.handOver(false)
	}
	switch {
	case start:
		e.item = append(e.item[:0:0], '{', '\n')
		e.lines = 1
	case e.item != nil:
		e.lines++
		if !e.long {
			e.item = append(e.item, line...)
		}
		if string(bytes.TrimRight(line, "\r\n")) == "}" {
			e.handOver(!e.long)
		}
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
		// Its lines joined (white space inside a JSON value is only
		// between tokens), for the decoder to find where it breaks.
		joined := bytes.ReplaceAll(bytes.TrimRight(e.item, "\r\n"), []byte("\n"), []byte(" "))
		e.out = append(e.out, bytes.ReplaceAll(joined, []byte("\r"), nil)...)
		e.prev = nil
	}
	e.out = append(e.out, bytes.Repeat([]byte("\n"), e.lines)...)
	e.item, e.lines, e.long = nil, 0, false
}
