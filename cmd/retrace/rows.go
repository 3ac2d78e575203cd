package main

import (
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"runtime"
)

// A rowStore holds the rows a command prints once every input is read (the
// failures of errors, the chains of pairs, the numbers of bench) as JSON
// Lines, compressed: a few hundred bytes of memory for a row that itself
// takes kilobytes, so that what the command holds while it reads grows
// little with its input. JSON is the rows' own output contract, which
// keeps every field a report prints (TestRowStore holds each report to
// what it prints from the rows themselves). The rows are stored in
// segments, read back in parallel. The zero rowStore is empty.
type rowStore[R any] struct {
	segments []*bytes.Buffer // complete, each a flate stream of segmentRows rows
	seg      *bytes.Buffer   // the segment being written
	zw       *flate.Writer
	enc      *json.Encoder
	n        int // rows in seg
	total    int // rows stored
}

// segmentRows is the number of rows in a segment: a unit of work for a
// core when the rows are read back, and the most read back at a time, for
// each core.
const segmentRows = 1000

// add stores a copy of r.
func (s *rowStore[R]) add(r *R) error {
	if s.seg == nil {
		s.seg = new(bytes.Buffer)
		if s.zw == nil {
			zw, err := flate.NewWriter(s.seg, flate.BestSpeed)
			if err != nil {
				return err
			}
			s.zw, s.enc = zw, json.NewEncoder(zw)
		} else {
			s.zw.Reset(s.seg)
		}
	}
	if err := s.enc.Encode(r); err != nil {
		return err
	}
	s.total++
	if s.n++; s.n == segmentRows {
		return s.endSegment()
	}
	return nil
}

// len returns the number of rows stored.
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

// all yields the rows stored, each decoded anew, in the order they were
// added; it reads the segments ahead on every core. It is called once,
// when no more rows are added.
func (s *rowStore[R]) all() iter.Seq2[*R, error] {
	return func(yield func(*R, error) bool) {
		if err := s.endSegment(); err != nil {
			yield(nil, err)
			return
		}
		type decoded struct {
			rows []*R
			err  error
		}
		done := make(chan struct{})
		defer close(done)
		ahead := make(chan chan decoded, runtime.GOMAXPROCS(0))
		go func() {
			defer close(ahead)
			for i, seg := range s.segments {
				s.segments[i] = nil // let it go once read
				c := make(chan decoded, 1)
				select {
				case ahead <- c:
				case <-done:
					return
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
	dec := json.NewDecoder(flate.NewReader(seg))
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
