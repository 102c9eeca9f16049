// Package binfmt packs and unpacks fixed-width binary records described by
// a format string in the style of Python's struct module, and reads
// varints and length-prefixed frames: the encoding side of the Starlark
// "binary" module and of net.conn.read_frame.
//
// A format is an optional byte order, ">" or "!" (big-endian, network
// order, the default) or "<" (little-endian), then codes, each optionally
// preceded by a decimal count:
//
//	b B  int8 uint8        h H  int16 uint16
//	i I  int32 uint32      q Q  int64 uint64
//	?    bool (one byte)   x    a pad byte (no value)
//	Ns   N bytes as one value (bytes)
//
// "3i" is three int32s; "16s" is one 16-byte value.
package binfmt

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
)

// Field is one code of a format after counts are expanded, except for
// "s", whose count is its width.
type Field struct {
	Code  byte
	Width int // bytes it takes
}

// Format is a parsed format string.
type Format struct {
	Order  binary.ByteOrder
	Fields []Field
	Size   int // bytes a record takes
}

var widths = map[byte]int{'b': 1, 'B': 1, 'h': 2, 'H': 2, 'i': 4, 'I': 4, 'q': 8, 'Q': 8, '?': 1, 'x': 1}

// Parse parses a format string.
func Parse(s string) (*Format, error) {
	f := &Format{Order: binary.BigEndian}
	rest := s
	if rest != "" {
		switch rest[0] {
		case '>', '!':
			rest = rest[1:]
		case '<':
			f.Order, rest = binary.LittleEndian, rest[1:]
		case '=', '@':
			return nil, fmt.Errorf("format %q: native byte order (%c) is not portable; use > or <", s, rest[0])
		}
	}
	for i := 0; i < len(rest); {
		count, hasCount := 0, false
		for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
			count = count*10 + int(rest[i]-'0')
			hasCount = true
			i++
			if count > 1<<24 {
				return nil, fmt.Errorf("format %q: count too large", s)
			}
		}
		if i == len(rest) {
			return nil, fmt.Errorf("format %q: count %d names no code", s, count)
		}
		c := rest[i]
		i++
		if c == ' ' && !hasCount {
			continue
		}
		if !hasCount {
			count = 1
		}
		if c == 's' {
			f.Fields = append(f.Fields, Field{Code: 's', Width: count})
			f.Size += count
			continue
		}
		w, ok := widths[c]
		if !ok {
			return nil, fmt.Errorf("format %q: unknown code %q (want b B h H i I q Q ? x s)", s, c)
		}
		for range count {
			f.Fields = append(f.Fields, Field{Code: c, Width: w})
			f.Size += w
		}
	}
	return f, nil
}

// Values is how many values a record of f holds (pad bytes hold none).
func (f *Format) Values() int {
	n := 0
	for _, fd := range f.Fields {
		if fd.Code != 'x' {
			n++
		}
	}
	return n
}

// Pack encodes vals (ints as *big.Int or int64, bools, and []byte for
// "s") in f's layout. Ints must fit their field.
func (f *Format) Pack(vals []any) ([]byte, error) {
	if len(vals) != f.Values() {
		return nil, fmt.Errorf("format wants %d values, got %d", f.Values(), len(vals))
	}
	out := make([]byte, 0, f.Size)
	vi := 0
	for _, fd := range f.Fields {
		if fd.Code == 'x' {
			out = append(out, 0)
			continue
		}
		v := vals[vi]
		vi++
		switch fd.Code {
		case 's':
			b, ok := v.([]byte)
			if !ok {
				return nil, fmt.Errorf("value %d: %ds wants bytes or a string, got %T", vi, fd.Width, v)
			}
			if len(b) > fd.Width {
				return nil, fmt.Errorf("value %d: %d bytes do not fit %ds", vi, len(b), fd.Width)
			}
			out = append(out, b...)
			out = append(out, make([]byte, fd.Width-len(b))...) // zero padded, as Python's struct does
		case '?':
			b, ok := v.(bool)
			if !ok {
				return nil, fmt.Errorf("value %d: ? wants a bool, got %T", vi, v)
			}
			if b {
				out = append(out, 1)
			} else {
				out = append(out, 0)
			}
		default:
			n, err := fitInt(v, fd.Code)
			if err != nil {
				return nil, fmt.Errorf("value %d: %w", vi, err)
			}
			out = f.appendUint(out, uint64(n), fd.Width)
		}
	}
	return out, nil
}

func (f *Format) appendUint(out []byte, u uint64, width int) []byte {
	switch width {
	case 1:
		return append(out, byte(u))
	case 2:
		return f.Order.(binary.AppendByteOrder).AppendUint16(out, uint16(u))
	case 4:
		return f.Order.(binary.AppendByteOrder).AppendUint32(out, uint32(u))
	}
	return f.Order.(binary.AppendByteOrder).AppendUint64(out, u)
}

// bounds are each integer code's range.
var bounds = map[byte][2]*big.Int{
	'b': {big.NewInt(math.MinInt8), big.NewInt(math.MaxInt8)},
	'B': {big.NewInt(0), big.NewInt(math.MaxUint8)},
	'h': {big.NewInt(math.MinInt16), big.NewInt(math.MaxInt16)},
	'H': {big.NewInt(0), big.NewInt(math.MaxUint16)},
	'i': {big.NewInt(math.MinInt32), big.NewInt(math.MaxInt32)},
	'I': {big.NewInt(0), big.NewInt(math.MaxUint32)},
	'q': {big.NewInt(math.MinInt64), big.NewInt(math.MaxInt64)},
	'Q': {big.NewInt(0), new(big.Int).SetUint64(math.MaxUint64)},
}

// fitInt checks v fits code and returns its two's-complement bits.
func fitInt(v any, code byte) (uint64, error) {
	var n *big.Int
	switch x := v.(type) {
	case int64:
		n = big.NewInt(x)
	case *big.Int:
		n = x
	default:
		return 0, fmt.Errorf("%c wants an int, got %T", code, v)
	}
	b := bounds[code]
	if n.Cmp(b[0]) < 0 || n.Cmp(b[1]) > 0 {
		return 0, fmt.Errorf("%s does not fit %c (%s to %s)", n, code, b[0], b[1])
	}
	if n.Sign() < 0 {
		return uint64(n.Int64()), nil
	}
	return n.Uint64(), nil
}

// Unpack decodes one record of f from data, which must be exactly f.Size
// bytes. Ints come back as int64, except Q values above MaxInt64 as
// *big.Int; "s" fields as []byte; "?" as bool.
func (f *Format) Unpack(data []byte) ([]any, error) {
	if len(data) != f.Size {
		return nil, fmt.Errorf("format takes %d bytes, got %d", f.Size, len(data))
	}
	out := make([]any, 0, f.Values())
	off := 0
	for _, fd := range f.Fields {
		p := data[off : off+fd.Width]
		off += fd.Width
		switch fd.Code {
		case 'x':
		case 's':
			out = append(out, append([]byte(nil), p...))
		case '?':
			out = append(out, p[0] != 0)
		case 'b':
			out = append(out, int64(int8(p[0])))
		case 'B':
			out = append(out, int64(p[0]))
		case 'h':
			out = append(out, int64(int16(f.Order.Uint16(p))))
		case 'H':
			out = append(out, int64(f.Order.Uint16(p)))
		case 'i':
			out = append(out, int64(int32(f.Order.Uint32(p))))
		case 'I':
			out = append(out, int64(f.Order.Uint32(p)))
		case 'q':
			out = append(out, int64(f.Order.Uint64(p)))
		case 'Q':
			u := f.Order.Uint64(p)
			if u > math.MaxInt64 {
				out = append(out, new(big.Int).SetUint64(u))
			} else {
				out = append(out, int64(u))
			}
		}
	}
	return out, nil
}

// Prefix parses a length-prefix format: one unsigned or signed integer
// code (">I", "<H", "b"), or "uvarint".
func Prefix(s string) (*Format, error) {
	if s == "uvarint" {
		return nil, nil
	}
	f, err := Parse(s)
	if err != nil {
		return nil, err
	}
	if len(f.Fields) != 1 || f.Fields[0].Code == 's' || f.Fields[0].Code == 'x' || f.Fields[0].Code == '?' {
		return nil, fmt.Errorf("length prefix %q must be one integer code (>I, <H, B, ...) or \"uvarint\"", s)
	}
	return f, nil
}

// ByteReader is what ReadFrame reads from.
type ByteReader interface {
	ReadByte() (byte, error)
	Read(p []byte) (int, error)
}

// ErrFrameTooLarge is a frame whose declared length exceeds the limit.
var ErrFrameTooLarge = errors.New("frame too large")

// ReadFrame reads one frame: a length in prefix's layout (nil: an unsigned
// varint), then that many bytes. It reports how many bytes it consumed,
// so a caller can tell a clean end (0) from a torn frame.
func ReadFrame(r ByteReader, prefix *Format, max int) ([]byte, int, error) {
	var n uint64
	got := 0
	if prefix == nil {
		var err error
		n, err = binary.ReadUvarint(countingReader{r, &got})
		if err != nil {
			return nil, got, fmt.Errorf("frame length: %w", err)
		}
	} else {
		hdr := make([]byte, prefix.Size)
		k, err := readFull(r, hdr)
		got += k
		if err != nil {
			return nil, got, fmt.Errorf("frame length: %w", err)
		}
		vals, _ := prefix.Unpack(hdr)
		switch v := vals[0].(type) {
		case int64:
			if v < 0 {
				return nil, got, fmt.Errorf("frame length %d is negative", v)
			}
			n = uint64(v)
		default:
			return nil, got, fmt.Errorf("%w: %v bytes", ErrFrameTooLarge, v)
		}
	}
	if n > uint64(max) {
		return nil, got, fmt.Errorf("%w: %d bytes, over the limit of %d", ErrFrameTooLarge, n, max)
	}
	body := make([]byte, n)
	k, err := readFull(r, body)
	got += k
	if err != nil {
		return nil, got, fmt.Errorf("frame body (%d bytes): %w", n, err)
	}
	return body, got, nil
}

func readFull(r ByteReader, p []byte) (int, error) {
	n := 0
	for n < len(p) {
		k, err := r.Read(p[n:])
		n += k
		if err != nil {
			if n == len(p) {
				return n, nil
			}
			if n > 0 && errors.Is(err, io.EOF) {
				return n, io.ErrUnexpectedEOF
			}
			return n, err
		}
	}
	return n, nil
}

type countingReader struct {
	r ByteReader
	n *int
}

func (c countingReader) ReadByte() (byte, error) {
	b, err := c.r.ReadByte()
	if err == nil {
		*c.n++
	}
	return b, err
}

// AppendFrame appends payload with its length in prefix's layout (nil: an
// unsigned varint).
func AppendFrame(out []byte, prefix *Format, payload []byte) ([]byte, error) {
	if prefix == nil {
		return append(binary.AppendUvarint(out, uint64(len(payload))), payload...), nil
	}
	hdr, err := prefix.Pack([]any{int64(len(payload))})
	if err != nil {
		return nil, fmt.Errorf("frame of %d bytes: %w", len(payload), err)
	}
	return append(append(out, hdr...), payload...), nil
}

// Zigzag maps a signed int to the unsigned one protobuf's sint encodings
// write: 0, -1, 1, -2 ... become 0, 1, 2, 3 ...
func Zigzag(n int64) uint64 { return uint64(n<<1) ^ uint64(n>>63) }

// Unzigzag inverts Zigzag.
func Unzigzag(u uint64) int64 { return int64(u>>1) ^ -int64(u&1) }
