package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"runtime"

	"github.com/klauspost/compress/s2"
)

// A rowStore keeps the rows a command prints once every input is read (the
// failures of errors, the chains of pairs, the numbers of bench) as JSON
// Lines, compressed with S2: 130–140 bytes for a failure and 420–450 for
// a chain of the shared corpus (flate took 6–9% less, for twice S2's
// time), which as values take 1.4 and 4.7 KB, so that what the command holds
// while it reads grows little with its input. JSON is the rows' own
// output contract, which keeps every field a report prints (TestRowStore
// holds each report to what it prints from the rows themselves). The rows
// are stored in segments, decoded on every core when read back. The zero
// rowStore is empty.
type rowStore[R any] struct {
	segments []*bytes.Buffer // complete, each an S2 stream
	seg      *bytes.Buffer   // the segment being written, or nil
	zw       *s2.Writer
	enc      *json.Encoder
	written  countingWriter // what encode writes, counted, to zw
	n        int            // rows in seg
	total    int            // rows stored
}

// A segment holds segmentRows rows or segmentBytes of their JSON, whichever
// comes first: the work of one core when the rows are read back, and what
// it holds of them then.
const (
	segmentRows  = 1000
	segmentBytes = 4 << 20
)

// A countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int
}

func (c *countingWriter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n += n
	return n, err
}

func (s *rowStore[R]) add(r *R) error {
	if s.seg == nil {
		s.seg = new(bytes.Buffer)
		if s.zw == nil {
			s.zw = s2.NewWriter(s.seg, s2.WriterConcurrency(1))
			s.written.w = s.zw
			s.enc = json.NewEncoder(&s.written)
		} else {
			s.zw.Reset(s.seg)
		}
		s.written.n = 0
	}
	if err := s.encode(r); err != nil {
		return err
	}
	s.total++
	if s.n++; s.n == segmentRows || s.written.n >= segmentBytes {
		return s.endSegment()
	}
	return nil
}

// encode writes r as one line of JSON. A row that writes its own JSON
// (the output contract's failures, chains and numbers) is written as it
// gives it: json.Encoder would check and compact it again, which took as
// long as writing it.
func (s *rowStore[R]) encode(r *R) error {
	m, ok := any(r).(json.Marshaler)
	if !ok {
		return s.enc.Encode(r)
	}
	b, err := m.MarshalJSON()
	if err == nil {
		_, err = s.written.Write(append(b, '\n'))
	}
	return err
}

func (s *rowStore[R]) len() int { return s.total }

// endSegment completes the segment being written.
func (s *rowStore[R]) endSegment() error {
	if s.seg == nil {
		return nil
	}
	err := s.zw.Close()
	s.segments = append(s.segments, s.seg)
	s.seg, s.n = nil, 0
	return err
}

// all yields the rows stored, each decoded anew. Up to GOMAXPROCS
// segments are decoded ahead of the one being yielded, each let go once
// it is decoded.
func (s *rowStore[R]) all() iter.Seq2[*R, error] {
	return func(yield func(*R, error) bool) {
		if err := s.endSegment(); err != nil {
			yield(nil, err)
			return
		}
		segments := s.segments
		s.segments = nil
		type decoded struct {
			rows []*R
			err  error
		}
		done := make(chan struct{})
		defer close(done)
		ahead := make(chan chan decoded, runtime.GOMAXPROCS(0))
		go func() {
			defer close(ahead)
			for i, seg := range segments {
				segments[i] = nil
				c := make(chan decoded, 1)
				select {
				case <-done: // before ahead, when both are ready
					return
				default:
				}
				select {
				case <-done:
					return
				case ahead <- c:
				}
				go func() {
					rows, err := decodeRows[R](seg)
					c <- decoded{rows, err}
				}()
			}
		}()
		for c := range ahead {
			d := <-c
			for _, r := range d.rows {
				if !yield(r, nil) {
					return
				}
			}
			if d.err != nil {
				yield(nil, d.err)
				return
			}
		}
	}
}

// decodeRows decodes the rows of a segment.
func decodeRows[R any](seg *bytes.Buffer) ([]*R, error) {
	var rows []*R
	dec := json.NewDecoder(s2.NewReader(seg))
	for {
		r := new(R)
		if err := dec.Decode(r); errors.Is(err, io.EOF) {
			return rows, nil
		} else if err != nil {
			return rows, err
		}
		rows = append(rows, r)
	}
}
