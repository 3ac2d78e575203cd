package pipeline

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"

	"github.com/retrace-dev/retrace/parser"
)

// decompress reads gzip- and zstd-compressed input transparently, knowing
// them by their magic numbers, and stops reading compressed data that grows
// as only a decompression bomb does (see bombGuard). The returned function
// releases the decoder.
func decompress(r io.Reader, name string) (io.Reader, func(), error) {
	in := &byteCounter{r: r}
	br := bufio.NewReader(in)
	magic, _ := br.Peek(4)
	switch {
	case bytes.HasPrefix(magic, []byte{0x1f, 0x8b}):
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: corrupt gzip data: %v", name, err)
		}
		return &bombGuard{r: corruptReader{zr, "gzip"}, in: in, name: name}, func() {}, nil
	case bytes.Equal(magic, []byte{0x28, 0xb5, 0x2f, 0xfd}):
		zr, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
		if err != nil {
			return nil, nil, fmt.Errorf("%s: corrupt zstd data: %v", name, err)
		}
		return &bombGuard{r: corruptReader{zr, "zstd"}, in: in, name: name}, zr.Close, nil
	}
	return br, func() {}, nil
}

// Compressed data that has grown past bombFloor and past bombRatio times
// the compressed bytes read is not read further. Transcripts compress ten
// to fifty times; gzip cannot pass 1032 times, zstd can pass a million.
const (
	bombRatio = 1000
	bombFloor = 64 << 20
)

// A bombGuard reads decompressed data until it grows as bombRatio and
// bombFloor say transcripts do not, and then fails with a
// parser.LimitError: the input is skipped.
type bombGuard struct {
	r    io.Reader    // the decompressed data
	in   *byteCounter // the compressed data, as read so far
	out  int64        // decompressed bytes read so far
	name string
}

func (g *bombGuard) Read(b []byte) (int, error) {
	n, err := g.r.Read(b)
	g.out += int64(n)
	if g.out > bombFloor && g.out > bombRatio*g.in.n {
		return 0, &parser.LimitError{Name: g.name,
			Msg: fmt.Sprintf("decompressed past %d MiB, over %d times its compressed size", bombFloor>>20, bombRatio)}
	}
	return n, err
}

// A byteCounter counts the bytes read through it.
type byteCounter struct {
	r io.Reader
	n int64
}

func (c *byteCounter) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}

// A corruptReader says that an error reading compressed data is the data's.
type corruptReader struct {
	r    io.Reader
	kind string // "gzip", "zstd"
}

func (c corruptReader) Read(b []byte) (int, error) {
	n, err := c.r.Read(b)
	if err != nil && err != io.EOF {
		err = fmt.Errorf("corrupt %s data: %w", c.kind, err)
	}
	return n, err
}
