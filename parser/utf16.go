package parser

import (
	"bufio"
	"encoding/binary"
	"io"
	"unicode/utf16"
	"unicode/utf8"
)

// UTF8 returns a reader of the text r holds, in UTF-8. Text that starts
// with a UTF-16 byte-order mark, as Windows PowerShell 5.1 writes what a
// command prints into a file (opencode export > session.json), is decoded
// as it is read, the mark left out; other text is read as it is. The
// reader is r when r is a bufio.Reader of at least HeadSize bytes that does
// not hold UTF-16.
func UTF8(r io.Reader) *bufio.Reader {
	br := bufio.NewReaderSize(r, HeadSize)
	mark, _ := br.Peek(2)
	order := utf16Order(mark)
	if order == nil {
		return br
	}
	br.Discard(2)
	return bufio.NewReaderSize(&utf16Reader{r: br, order: order}, HeadSize)
}

// utf16Order returns the byte order that a UTF-16 byte-order mark at the
// start of b gives, or nil.
func utf16Order(b []byte) binary.ByteOrder {
	switch {
	case len(b) < 2:
	case b[0] == 0xFF && b[1] == 0xFE:
		return binary.LittleEndian
	case b[0] == 0xFE && b[1] == 0xFF:
		return binary.BigEndian
	}
	return nil
}

// utf16Head returns head decoded into UTF-8 when it starts with a UTF-16
// byte-order mark, and head as it is otherwise; a head cut inside a
// surrogate pair or a code unit loses what was cut.
func utf16Head(head []byte) []byte {
	order := utf16Order(head)
	if order == nil {
		return head
	}
	out, _ := decodeUTF16(nil, head[2:], order, false)
	return out
}

// decodeUTF16 appends to out the UTF-8 of the UTF-16 code units in in,
// and returns the bytes of in it could not decode yet: an odd last byte,
// or a high surrogate that may pair with the next unit. With last, there
// is no more input, and those become U+FFFD too. A lone surrogate is
// U+FFFD, as unicode/utf16 reads it.
func decodeUTF16(out, in []byte, order binary.ByteOrder, last bool) ([]byte, []byte) {
	for len(in) >= 2 {
		u := order.Uint16(in)
		r := rune(u)
		switch {
		case utf16.IsSurrogate(r) && u < 0xDC00 && len(in) < 4 && !last:
			return out, in // the pair may be cut
		case utf16.IsSurrogate(r) && u < 0xDC00:
			if len(in) < 4 {
				r = utf8.RuneError
				break
			}
			if pair := utf16.DecodeRune(r, rune(order.Uint16(in[2:]))); pair != utf8.RuneError {
				out = utf8.AppendRune(out, pair)
				in = in[4:]
				continue
			}
			r = utf8.RuneError
		case utf16.IsSurrogate(r):
			r = utf8.RuneError
		}
		out = utf8.AppendRune(out, r)
		in = in[2:]
	}
	if last && len(in) > 0 {
		return utf8.AppendRune(out, utf8.RuneError), nil
	}
	return out, in
}

// A utf16Reader reads UTF-16 text, past its byte-order mark, as UTF-8.
type utf16Reader struct {
	r     io.Reader
	order binary.ByteOrder
	buf   [32 << 10]byte
	in    []byte // bytes read and not decoded yet: at most 3
	out   []byte // decoded text not yet returned
	err   error
}

func (u *utf16Reader) Read(p []byte) (int, error) {
	for len(u.out) == 0 {
		if u.err != nil {
			return 0, u.err
		}
		k := copy(u.buf[:], u.in)
		n, err := u.r.Read(u.buf[k:])
		u.err = err
		last := err != nil
		var rest []byte
		u.out, rest = decodeUTF16(u.out[:0], u.buf[:k+n], u.order, last)
		u.in = append(u.in[:0], rest...)
	}
	n := copy(p, u.out)
	u.out = u.out[n:]
	return n, nil
}
