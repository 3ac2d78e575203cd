package parser

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"unsafe"

	"github.com/retrace-dev/retrace/parser/internal/rawjson"
)

// MaxRecord is the size of the largest record a decoder reads: a JSONL
// line, or a whole JSON document. A longer line is skipped and reported,
// its memory let go as soon as it passes the limit and the rest of it
// passed over; a longer document is skipped whole, with a LimitError.
// Transcript lines of tens of megabytes (file contents, images) are normal.
const MaxRecord = 256 << 20

// A record longer than bigRecord, a JSONL line or a JSON document, is read
// only while its reader holds the one token of bigRecords: however many
// files are read at once, one such record is in memory at a time, so that
// the memory of the whole run, not only of one record, is bounded. The
// token is taken as the record grows past bigRecord and given back once
// the decoder is done with the record, before any call goes to the
// caller: a holder waits for nothing but its input.
//
// The token carries the buffer big lines are read into, which the next
// holder reuses rather than grow one anew; it is let go when past
// maxKeptBig. A line past maxKeptBig grows it at once to MaxRecord rather
// than through copies that double: memory is taken only as it is written.
const (
	bigRecord  = 16 << 20
	maxKeptBig = 64 << 20
)

var bigRecords = func() chan []byte {
	c := make(chan []byte, 1)
	c <- nil
	return c
}()

// errTooLong reports a line longer than MaxRecord.
var errTooLong = errors.New("line too long")

// A lineReader reads lines of any length from a JSONL stream and counts them.
// Unlike bufio.Scanner it has no small limit on line length.
type lineReader struct {
	r    *bufio.Reader
	buf  []byte // for lines up to bigRecord
	line int    // 1-based number of the line last returned
	max  int
	big  []byte // the buffer the token of bigRecords carries, while held
	held bool   // the line being read holds the token
}

func newLineReader(r io.Reader) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{r: br, max: MaxRecord}
}

// next returns the next line without its line ending. The slice is valid
// until the following call. At the end of the input it returns io.EOF, with
// the last line if that had no newline. A line longer than the limit is
// consumed and reported as errTooLong, with a nil slice; reading may go on.
func (lr *lineReader) next() ([]byte, error) {
	lr.skipBlank()
	lr.line++
	buf := lr.buf[:0]
	tooLong := false
	for {
		frag, err := lr.r.ReadSlice('\n')
		if !tooLong {
			need := len(buf) + len(frag)
			switch {
			case need > lr.max:
				// Let the line go at once; the rest of it only passes
				// through the reader's buffer.
				tooLong = true
				buf = lr.buf[:0]
				lr.letGo()
			case err == nil && len(buf) == 0:
				// The whole line fits in the reader's buffer: no copy.
				return trimEOL(frag), nil
			default:
				if need > bigRecord && !lr.held {
					lr.big = <-bigRecords
					lr.held = true
					buf = append(lr.big[:0], buf...)
				}
				buf = lr.grow(buf, need)
				buf = append(buf, frag...)
			}
		}
		if lr.held {
			lr.big = buf
		} else {
			lr.buf = buf
		}
		switch {
		case err == nil:
			if tooLong {
				return nil, errTooLong
			}
			return trimEOL(buf), nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			if tooLong {
				return nil, errTooLong
			}
			if len(buf) == 0 {
				lr.line--
			}
			return trimEOL(buf), io.EOF
		default:
			return nil, err
		}
	}
}

// grow returns buf with room for need bytes. It doubles, rather than
// append's quarter past 256 kB (a 50 MB line would otherwise leave a dozen
// copies), up to bigRecord for a line's own buffer and maxKeptBig for the
// big one; past that, it takes room for the longest line at once, which
// the system gives only as it is written.
func (lr *lineReader) grow(buf []byte, need int) []byte {
	if need <= cap(buf) {
		return buf
	}
	n := max(need, 2*cap(buf))
	switch {
	case need > maxKeptBig:
		n = max(need, lr.max)
	case need > bigRecord:
		n = min(n, maxKeptBig)
	default:
		n = min(n, bigRecord)
	}
	return slices.Grow(buf, n-len(buf))
}

// skipBlank passes over the blank lines (of spaces, tabs and carriage
// returns) at the reader's position a buffer at a time, counting them:
// one at a time, 10 GiB of them took minutes. A blank line the buffer
// cuts is left to next.
func (lr *lineReader) skipBlank() {
	for {
		if _, err := lr.r.Peek(1); err != nil {
			return // next meets the error
		}
		b, _ := lr.r.Peek(lr.r.Buffered())
		i, end, lines := 0, 0, 0
		for i < len(b) {
			// Eight newlines at a time, the common run.
			if i+8 <= len(b) && binary.LittleEndian.Uint64(b[i:]) == 0x0a0a0a0a0a0a0a0a {
				i += 8
				lines += 8
				end = i
				continue
			}
			switch b[i] {
			case '\n':
				lines++
				end = i + 1
			case ' ', '\t', '\r', '\v', '\f':
			default:
				lr.r.Discard(end)
				lr.line += lines
				return
			}
			i++
		}
		lr.r.Discard(end)
		lr.line += lines
		if end == 0 {
			return // the buffer holds only a blank line's start
		}
	}
}

// letGo gives back the token of bigRecords, if the line held it, with its
// buffer unless that is past maxKeptBig.
func (lr *lineReader) letGo() {
	if !lr.held {
		return
	}
	big := lr.big[:0]
	lr.big, lr.held = nil, false
	if cap(big) > maxKeptBig {
		big = nil
		freeBig() // before the next holder takes more
	}
	bigRecords <- big
}

// freeBig gives the memory of a record past maxKeptBig back to the system
// at once, rather than when the collector comes to it: the next worker's
// big record would otherwise add to it. Such records are rare, and a
// collection costs little beside reading one.
func freeBig() { debug.FreeOSMemory() }

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// forEachLine calls fn with every non-blank line of r and its 1-based number.
// A line longer than MaxRecord becomes a SyntaxError in s.Skipped. Only an
// error reading r stops it early; that error is returned, wrapped with name.
func forEachLine(r io.Reader, s *Session, fn func(line []byte, n int)) error {
	return forEachLineThen(r, s, fn, nil)
}

// forEachLineThen is forEachLine calling then, when it is not nil, after
// each line, once the line's memory is let go (see bigRecord): a decoder
// hands out the calls that line finished there.
func forEachLineThen(r io.Reader, s *Session, fn func(line []byte, n int), then func()) error {
	lr := newLineReader(r)
	if b, ok := lineBufs.Get().(*[]byte); ok {
		lr.buf = *b
	}
	defer func() {
		if cap(lr.buf) <= maxPooledLine {
			b := lr.buf[:0]
			lineBufs.Put(&b)
		}
	}()
	defer lr.letGo()
	for {
		line, err := lr.next()
		if errors.Is(err, errTooLong) {
			s.skip(lr.line, "line longer than "+sizeText(int64(lr.max))+" skipped")
			continue
		}
		if len(bytes.TrimSpace(line)) > 0 {
			fn(line, lr.line)
		}
		lr.letGo()
		if then != nil {
			then()
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("read %s: %w", s.Path, err)
		}
	}
}

// EachLine calls fn with every line of r that is not blank and its 1-based
// number, as the decoders of JSON Lines formats read them: a line may be as
// long as MaxRecord, and a longer one is skipped without being held. fn
// returns why it skips its line, or "". The lines skipped come back as a
// session's do: the first MaxSkipped listed, the others counted. Only an
// error reading r stops it early; that error is returned, wrapped with
// name.
func EachLine(r io.Reader, name string, fn func(line []byte, n int) string) (skipped []*SyntaxError, more int, err error) {
	s := &Session{Path: name}
	err = forEachLine(r, s, func(line []byte, n int) {
		if msg := fn(line, n); msg != "" {
			s.skip(n, msg)
		}
	})
	return s.Skipped, s.MoreSkipped, err
}

// lineBufs hold the buffers of lines longer than a reader's buffer, for the
// next file: each file would otherwise grow one anew to its longest line.
// Buffers past maxPooledLine are let go.
var lineBufs sync.Pool

const maxPooledLine = 8 << 20

// skip records a malformed record at line n of the session's input.
func (s *Session) skip(n int, msg string) {
	s.skipAt(Pos{File: s.Path, Line: n}, func() string { return msg })
}

// skipInvalid records that line n, line, is not valid JSON, saying why
// only when the record is listed: what encoding/json says costs as much as
// reading the record again.
func (s *Session) skipInvalid(n int, line []byte) {
	s.skipAt(Pos{File: s.Path, Line: n}, func() string {
		msg, _ := jsonError(line)
		return msg
	})
}

// objectRecord reports whether line n, line, read as root, is a record a
// decoder reads: valid JSON (ok, as rawjson.Doc.Record says) and an
// object. A line that is not is recorded as skipped.
func (s *Session) objectRecord(n int, line []byte, root rawjson.Value, ok bool) bool {
	if !ok {
		s.skipInvalid(n, line)
		return false
	}
	if root.Kind() != rawjson.Object {
		s.skip(n, "record is not a JSON object")
		return false
	}
	return true
}

// listsSkipped reports whether the next record skipped is listed, rather
// than only counted.
func (s *Session) listsSkipped() bool { return len(s.Skipped) < MaxSkipped }

// skipAt records a malformed record at pos, listing it with the message
// msg gives while fewer than MaxSkipped are listed, and counting it only
// after that.
func (s *Session) skipAt(pos Pos, msg func() string) {
	if !s.listsSkipped() {
		s.MoreSkipped++
		return
	}
	s.Skipped = append(s.Skipped, &SyntaxError{Pos: pos, Msg: msg()})
}

// readWhole reads all of r, for a format that is one JSON document, into a
// buffer from wholeBufs; release gives the buffer back, after which
// nothing may use data or any string cut from it. Clearing a new buffer of
// a few megabytes for each document, as io.ReadAll does, costs as much as
// validating it. A document longer than maxDocument is read no further: it
// gives no data and a LimitError.
func readWhole(r io.Reader) (data []byte, release func(), err error) {
	b, _ := wholeBufs.Get().(*bytes.Buffer)
	if b == nil {
		b = new(bytes.Buffer)
	}
	b.Reset()
	held, err := readDocument(b, r)
	release = func() {
		if b.Cap() <= maxPooledWhole {
			wholeBufs.Put(b)
		} else {
			b = nil
			freeBig() // before the next holder takes more
		}
		held()
	}
	if errors.As(err, new(*LimitError)) {
		return nil, release, err // not worth reading what came before
	}
	return b.Bytes(), release, err
}

// readDocument reads all of r into b, up to maxDocument bytes: a longer
// document gives a LimitError. Past bigRecord bytes, it waits for the token
// of bigRecords; held gives it back, once the decoder is done with the
// document.
func readDocument(b *bytes.Buffer, r io.Reader) (held func(), err error) {
	held = func() {}
	limit := int64(maxDocument) + 1
	_, err = b.ReadFrom(io.LimitReader(r, min(limit, bigRecord)))
	if err == nil && b.Len() == bigRecord && limit > bigRecord {
		big := <-bigRecords
		held = func() { bigRecords <- big }
		_, err = b.ReadFrom(io.LimitReader(r, limit-bigRecord))
	}
	if err == nil && b.Len() > maxDocument {
		err = errDocumentTooLarge()
	}
	return held, err
}

// errDocumentTooLarge reports a document longer than maxDocument; parse
// names the input.
func errDocumentTooLarge() error {
	return &LimitError{Msg: "a JSON document larger than " + sizeText(int64(maxDocument)) + ", the limit on one record"}
}

// sizeText writes a size in bytes in GiB, MiB or KiB: as a whole number
// when it is one, as limits are, else to a tenth.
func sizeText(n int64) string {
	for _, u := range []struct {
		unit string
		size int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		switch {
		case n < u.size:
		case n%u.size == 0:
			return strconv.FormatInt(n/u.size, 10) + " " + u.unit
		default:
			return strconv.FormatFloat(float64(n)/float64(u.size), 'f', 1, 64) + " " + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// wholeBufs hold the buffers documents were read into, for the next
// document. Buffers past maxPooledWhole are let go.
var wholeBufs sync.Pool

const maxPooledWhole = 64 << 20

// maxDocument is the size of the largest JSON document a decoder of a
// format that is one document reads: MaxRecord, as it is one record.
var maxDocument = MaxRecord

// bytesString returns the bytes of b as a string, without copying them: b
// must not change while the string, or any part of it, is in use.
func bytesString(b []byte) string {
	return unsafe.String(unsafe.SliceData(b), len(b))
}
