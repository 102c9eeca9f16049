// Package binarymod is the Starlark "binary" module: packing and
// unpacking the bytes of binary protocols, for clients written in
// Starlark (client.starlark) over net.
//
//	req = binary.pack(">BI", 1, len(key)) + key      # b"\x01\x00\x00\x00\x03key"
//	op, n = binary.unpack(">BI", hdr)                # (1, 3)
//	binary.size(">BI")                               # 5
//	binary.frame(">I", payload)                      # length-prefixed
//	binary.uvarint(300), binary.varint(-3)           # b"\xac\x02", b"\x05"
//	binary.read_uvarint(data, 0)                     # (value, next offset)
//	binary.hex(b), binary.unhex(s), binary.b64encode(b), binary.b64decode(s)
//	binary.ord(b, i)                                 # b[i] as an int
//
// The format language is Python struct's, without native order
// (internal/binfmt). Reading a frame from a connection is
// net.conn.read_frame. In Starlark b[i] is a one-byte bytes value, not an
// int: use binary.ord(b, i) or b.elem_ords().
package binarymod

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/big"

	"go.starlark.net/starlark"
	"go.starlark.net/starlarkstruct"

	"github.com/faultline/faultline/internal/binfmt"
	"github.com/faultline/faultline/star"
)

func init() { star.Register("binary", Module) }

// Module is the Starlark "binary" module.
var Module = &starlarkstruct.Module{
	Name: "binary",
	Members: starlark.StringDict{
		"pack":         starlark.NewBuiltin("binary.pack", pack),
		"unpack":       starlark.NewBuiltin("binary.unpack", unpack),
		"size":         starlark.NewBuiltin("binary.size", size),
		"frame":        starlark.NewBuiltin("binary.frame", frame),
		"uvarint":      starlark.NewBuiltin("binary.uvarint", uvarint),
		"varint":       starlark.NewBuiltin("binary.varint", varint),
		"read_uvarint": starlark.NewBuiltin("binary.read_uvarint", readUvarint),
		"read_varint":  starlark.NewBuiltin("binary.read_varint", readVarint),
		"hex":          starlark.NewBuiltin("binary.hex", hexEncode),
		"unhex":        starlark.NewBuiltin("binary.unhex", hexDecode),
		"b64encode":    starlark.NewBuiltin("binary.b64encode", b64encode),
		"b64decode":    starlark.NewBuiltin("binary.b64decode", b64decode),
		"ord":          starlark.NewBuiltin("binary.ord", ord),
	},
}

// asBytes accepts bytes or a string (its UTF-8 bytes).
func asBytes(name string, what string, v starlark.Value) ([]byte, error) {
	switch x := v.(type) {
	case starlark.Bytes:
		return []byte(x), nil
	case starlark.String:
		return []byte(x), nil
	}
	return nil, fmt.Errorf("%s: %s must be bytes or a string, got %s", name, what, v.Type())
}

func parse(name, f string) (*binfmt.Format, error) {
	pf, err := binfmt.Parse(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return pf, nil
}

func pack(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	if len(kwargs) > 0 {
		return nil, fmt.Errorf("%s: takes no keyword arguments", b.Name())
	}
	if len(args) == 0 {
		return nil, fmt.Errorf("%s: missing format", b.Name())
	}
	f, ok := starlark.AsString(args[0])
	if !ok {
		return nil, fmt.Errorf("%s: format must be a string, got %s", b.Name(), args[0].Type())
	}
	pf, err := parse(b.Name(), f)
	if err != nil {
		return nil, err
	}
	vals := make([]any, len(args)-1)
	for i, a := range args[1:] {
		switch x := a.(type) {
		case starlark.Int:
			vals[i] = x.BigInt()
		case starlark.Bool:
			vals[i] = bool(x)
		case starlark.Bytes:
			vals[i] = []byte(x)
		case starlark.String:
			vals[i] = []byte(x)
		default:
			return nil, fmt.Errorf("%s: value %d must be an int, bool, bytes or string, got %s", b.Name(), i+1, a.Type())
		}
	}
	out, err := pf.Pack(vals)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", b.Name(), f, err)
	}
	return starlark.Bytes(out), nil
}

func unpack(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f string
	var data starlark.Value
	var off starlark.Value = starlark.None
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "format", &f, "data", &data, "offset?", &off); err != nil {
		return nil, err
	}
	offset := 0
	if off != starlark.None {
		if err := starlark.AsInt(off, &offset); err != nil {
			return nil, fmt.Errorf("%s: offset: %w", b.Name(), err)
		}
	}
	pf, err := parse(b.Name(), f)
	if err != nil {
		return nil, err
	}
	buf, err := asBytes(b.Name(), "data", data)
	if err != nil {
		return nil, err
	}
	if offset < 0 || offset > len(buf) {
		return nil, fmt.Errorf("%s: offset %d outside data of %d bytes", b.Name(), offset, len(buf))
	}
	buf = buf[offset:]
	if off != starlark.None && len(buf) > pf.Size {
		buf = buf[:pf.Size] // with an offset, data may go on past the record
	}
	vals, err := pf.Unpack(buf)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", b.Name(), f, err)
	}
	out := make(starlark.Tuple, len(vals))
	for i, v := range vals {
		switch x := v.(type) {
		case int64:
			out[i] = starlark.MakeInt64(x)
		case *big.Int:
			out[i] = starlark.MakeBigInt(x)
		case bool:
			out[i] = starlark.Bool(x)
		case []byte:
			out[i] = starlark.Bytes(x)
		}
	}
	return out, nil
}

func size(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var f string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &f); err != nil {
		return nil, err
	}
	pf, err := parse(b.Name(), f)
	if err != nil {
		return nil, err
	}
	return starlark.MakeInt(pf.Size), nil
}

func frame(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var prefix string
	var payload starlark.Value
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "prefix", &prefix, "payload", &payload); err != nil {
		return nil, err
	}
	pf, err := binfmt.Prefix(prefix)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	p, err := asBytes(b.Name(), "payload", payload)
	if err != nil {
		return nil, err
	}
	out, err := binfmt.AppendFrame(nil, pf, p)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.Bytes(out), nil
}

func uvarint(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n starlark.Int
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &n); err != nil {
		return nil, err
	}
	u, ok := n.Uint64()
	if !ok {
		return nil, fmt.Errorf("%s: %s is not an unsigned 64-bit int", b.Name(), n)
	}
	return starlark.Bytes(binary.AppendUvarint(nil, u)), nil
}

func varint(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var n starlark.Int
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &n); err != nil {
		return nil, err
	}
	i, ok := n.Int64()
	if !ok {
		return nil, fmt.Errorf("%s: %s is not a signed 64-bit int", b.Name(), n)
	}
	return starlark.Bytes(binary.AppendUvarint(nil, binfmt.Zigzag(i))), nil
}

// readVar decodes an unsigned varint of data at offset.
func readVar(b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (uint64, int, error) {
	var data starlark.Value
	offset := 0
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data, "offset?", &offset); err != nil {
		return 0, 0, err
	}
	buf, err := asBytes(b.Name(), "data", data)
	if err != nil {
		return 0, 0, err
	}
	if offset < 0 || offset > len(buf) {
		return 0, 0, fmt.Errorf("%s: offset %d outside data of %d bytes", b.Name(), offset, len(buf))
	}
	u, n := binary.Uvarint(buf[offset:])
	switch {
	case n == 0:
		return 0, 0, fmt.Errorf("%s: data ends inside the varint at offset %d", b.Name(), offset)
	case n < 0:
		return 0, 0, fmt.Errorf("%s: varint at offset %d overflows 64 bits", b.Name(), offset)
	}
	return u, offset + n, nil
}

func readUvarint(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	u, next, err := readVar(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{starlark.MakeUint64(u), starlark.MakeInt(next)}, nil
}

func readVarint(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	u, next, err := readVar(b, args, kwargs)
	if err != nil {
		return nil, err
	}
	return starlark.Tuple{starlark.MakeInt64(binfmt.Unzigzag(u)), starlark.MakeInt(next)}, nil
}

func hexEncode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Value
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &data); err != nil {
		return nil, err
	}
	buf, err := asBytes(b.Name(), "data", data)
	if err != nil {
		return nil, err
	}
	return starlark.String(hex.EncodeToString(buf)), nil
}

func hexDecode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 1, &s); err != nil {
		return nil, err
	}
	out, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.Bytes(out), nil
}

func encoding(url bool) *base64.Encoding {
	if url {
		return base64.URLEncoding
	}
	return base64.StdEncoding
}

func b64encode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Value
	url := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "data", &data, "url?", &url); err != nil {
		return nil, err
	}
	buf, err := asBytes(b.Name(), "data", data)
	if err != nil {
		return nil, err
	}
	return starlark.String(encoding(url).EncodeToString(buf)), nil
}

func b64decode(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var s string
	url := false
	if err := starlark.UnpackArgs(b.Name(), args, kwargs, "s", &s, "url?", &url); err != nil {
		return nil, err
	}
	out, err := encoding(url).DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", b.Name(), err)
	}
	return starlark.Bytes(out), nil
}

func ord(_ *starlark.Thread, b *starlark.Builtin, args starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
	var data starlark.Bytes
	var i int
	if err := starlark.UnpackPositionalArgs(b.Name(), args, kwargs, 2, &data, &i); err != nil {
		return nil, err
	}
	n := len(data)
	if i < 0 {
		i += n
	}
	if i < 0 || i >= n {
		return nil, fmt.Errorf("%s: index %d out of range for %d bytes", b.Name(), i, n)
	}
	return starlark.MakeInt(int(data[i])), nil
}
