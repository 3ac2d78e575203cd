package parser

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// ErrUnknownFormat is returned by Parse when the input matches no format.
var ErrUnknownFormat = errors.New("unknown transcript format")

// ErrEmpty is returned by Parse when the input holds nothing but white space.
var ErrEmpty = errors.New("empty input")

// ErrBinary is returned by Parse when the input matches no format and its
// first bytes hold a NUL byte, as binary files do and transcripts never do.
var ErrBinary = errors.New("binary data")

// ErrDatabase is returned by Parse when the input is an SQLite database,
// which is read from its file, as opencode's is (IsOpencodeDB and
// ReadOpencodeData), and never as a stream.
var ErrDatabase = errors.New("SQLite database")

// A SyntaxError describes one malformed record that a decoder skipped.
type SyntaxError struct {
	Pos Pos
	Msg string
}

func (e *SyntaxError) Error() string { return e.Pos.String() + ": " + e.Msg }

// MarshalText makes a SyntaxError print as "file:line: message" in JSON.
func (e *SyntaxError) MarshalText() ([]byte, error) { return []byte(e.Error()), nil }

// jsonError explains why data is not valid JSON, in the words of
// encoding/json, for a record the validators have found invalid. It
// returns the byte offset of the error too, or -1 when encoding/json cannot
// tell.
func jsonError(data []byte) (msg string, offset int64) {
	var v struct{}
	err := json.NewDecoder(bytes.NewReader(data)).Decode(&v)
	var se *json.SyntaxError
	switch {
	case err == nil:
		// Valid for encoding/json but not for gjson: content follows the value.
		return "invalid JSON: extra data after the record", -1
	case errors.As(err, &se) && strings.HasSuffix(se.Error(), "exceeded max depth"):
		// encoding/json blames the character at which it gave up.
		return "invalid JSON: nested more than 10000 levels deep", se.Offset
	case errors.As(err, &se):
		return "invalid JSON: " + strings.TrimPrefix(se.Error(), "json: "), se.Offset
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "invalid JSON: record ends early", int64(len(data))
	}
	return "invalid JSON: " + strings.TrimPrefix(err.Error(), "json: "), -1
}

// A LimitError reports an input that passed one of the limits on what is
// read (the size of a document, the growth of compressed data): the input
// is skipped, and not read further.
type LimitError struct {
	Name string // the input's name
	Msg  string // which limit it passed
}

func (e *LimitError) Error() string { return e.Name + ": " + e.Msg + "; skipped" }
