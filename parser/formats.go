package parser

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
)

// A Format is one transcript format: how to recognize it and how to read it.
type Format struct {
	Name     string // used by --input-format and in reports: "claude-code"
	Doc      string // one line, lower case, no final period
	Producer string // what writes it and where it is found
	Sniff    string // how Match recognizes it, for people
	// Match reports whether a transcript starting with head is in this
	// format. head is at most HeadSize bytes, with any byte-order mark
	// removed; it may end in the middle of a record.
	Match func(head []byte) bool
	// Decode reads one transcript. It returns an error only when r cannot be
	// read, together with what was read before; malformed records go to
	// Session.Skipped.
	Decode func(r io.Reader, name string) (*Session, error)
}

// HeadSize is the number of leading bytes formats are recognized from.
const HeadSize = 64 << 10

// formats is the registry. Order matters: the first format whose Match
// accepts a head wins, so more specific formats come first.
var formats = []*Format{
	{
		Name:     "opencode",
		Doc:      "opencode session export",
		Producer: "opencode export <session-id> > file.json",
		Sniff:    `one JSON object whose "info.id" starts with "ses_"`,
		Match:    matchOpencode,
		Decode:   decodeOpencode,
	},
	{
		Name:     "claude-code",
		Doc:      "Claude Code session log",
		Producer: "Claude Code, in ~/.claude/projects/<project>/<session>.jsonl",
		Sniff:    `JSON lines whose "type" is user, assistant, summary, file-history-snapshot or another Claude Code record type, with no "payload"`,
		Match:    matchClaude,
		Decode:   decodeClaude,
	},
}

// Formats returns the supported formats in the order they are tried.
// The slice is a copy; the formats themselves must not be changed.
func Formats() []*Format {
	return append([]*Format(nil), formats...)
}

// Lookup returns the format with the given name, or nil.
func Lookup(name string) *Format {
	for _, f := range formats {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Detect returns the first format that accepts head, or nil.
func Detect(head []byte) *Format {
	head = bytes.TrimPrefix(head, bom)
	for _, f := range formats {
		if f.Match(head) {
			return f
		}
	}
	return nil
}

var bom = []byte("\xef\xbb\xbf")

// Parse reads one transcript from r; name is used in positions and
// messages. When f is nil the format is detected from the first HeadSize
// bytes, and ErrEmpty or ErrUnknownFormat is returned when there is none.
// Other errors come from reading r and arrive with what was read before.
func Parse(r io.Reader, name string, f *Format) (*Session, error) {
	br := bufio.NewReaderSize(r, HeadSize)
	head, err := br.Peek(HeadSize)
	if len(head) == 0 && err != nil && err != io.EOF {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	// Any other error comes again when the decoder reads that far.
	if bytes.HasPrefix(head, bom) {
		br.Discard(len(bom))
		head = head[len(bom):]
	}
	if f == nil {
		if len(bytes.TrimSpace(head)) == 0 {
			return nil, ErrEmpty
		}
		if f = Detect(head); f == nil {
			return nil, ErrUnknownFormat
		}
	}
	return f.Decode(br, name)
}
