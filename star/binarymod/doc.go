package binarymod

import "github.com/faultline/faultline/star"

// The reference of the "binary" module (docs/starlark.md); parameter
// names and defaults follow UnpackArgs.

// moduleDoc is the format language and a worked framing example.
const moduleDoc = "A format is an optional byte order — `>` or `!` big-endian (network order, the default), `<` little-endian — " +
	"then codes, each optionally preceded by a count: `b`/`B` int8/uint8, `h`/`H` int16/uint16, `i`/`I` int32/uint32, " +
	"`q`/`Q` int64/uint64, `?` bool, `x` a pad byte, `Ns` N bytes as one value (zero-padded when packing). `\">3i\"` is three " +
	"big-endian int32s. Values that do not fit their code are an error, not truncated.\n\n" +
	"In Starlark `b[i]` of a bytes value is a one-byte bytes value, not an int: use `binary.ord(b, i)`, or `b.elem_ords()` " +
	"for all of them. Bytes concatenate with `+` and slice with `b[i:j]`; `str(b)` decodes them as UTF-8 (invalid bytes become U+FFFD) " +
	"and `bytes(s)` encodes a string. Wherever this module takes bytes it also takes a string, as its UTF-8 bytes.\n\n" +
	"**Worked example: a length-prefixed request/response protocol.** Each message is a 4-byte big-endian length, then the " +
	"payload. A request's payload is an opcode byte, a 2-byte key length, the key, then the value; a response's is a status " +
	"byte (0 ok, 1 not found, anything else a refusal) and a body (examples/binkv has a server speaking a protocol of this shape and its whole suite):\n\n" +
	"```python\n" +
	"OP_GET, OP_PUT, OP_CAS = 1, 2, 3\n\n" +
	"def request(c, opcode, key, value = b\"\"):\n" +
	"    payload = binary.pack(\">BH\", opcode, len(key)) + key + value\n" +
	"    sent = c.send(binary.frame(\">I\", payload), raise_errors = False)\n" +
	"    if net.is_error(sent):\n" +
	"        return sent                                   # not-sent: the op failed\n" +
	"    return c.read_frame(\">I\", raise_errors = False)   # bytes, or unknown: info\n\n" +
	"def get(c, key):\n" +
	"    r = request(c, OP_GET, key)\n" +
	"    if net.is_error(r):\n" +
	"        return {\"type\": r.op_type, \"error\": r.error}\n" +
	"    status = binary.ord(r, 0)\n" +
	"    if status == 1:\n" +
	"        return {\"type\": \"ok\", \"value\": None}\n" +
	"    if status != 0:\n" +
	"        return {\"type\": \"fail\", \"error\": str(r[1:])}   # the server said no\n" +
	"    return {\"type\": \"ok\", \"value\": binary.unpack(\">q\", r[1:])[0]}\n" +
	"```"

func init() {
	star.Describe("binary", "Packing and unpacking the bytes of binary protocols: fixed-width ints, varints, length-prefixed frames, hex and base64.", moduleDoc)
	format := star.Param{Name: "format", Doc: `a format such as ">BhI" (see above)`}
	data := star.Param{Name: "data", Doc: "bytes (a string is taken as its UTF-8 bytes)"}
	prefix := star.Param{Name: "prefix", Doc: `one integer code (">I", "<H", "B", ...) or "uvarint": the length's layout`}
	offset := star.Param{Name: "offset", Default: "0", Doc: "where in data to start"}
	star.Document("binary",
		star.FuncDoc{Name: "pack", Summary: "Encodes values in format's layout.",
			Params:  []star.Param{{Name: "format", Positional: true, Doc: format.Doc}, {Name: "*values", Doc: "one per code: ints, bools for ?, bytes or strings for s"}},
			Returns: "bytes; an error when a value does not fit its code or the count is wrong"},
		star.FuncDoc{Name: "unpack", Summary: "Decodes one record of format.",
			Params:  []star.Param{format, data, {Name: "offset", Default: "None", Doc: "None: data must be exactly one record; an int: the record starting there (data may go on)"}},
			Returns: "a tuple of the values (ints, bools, bytes for s)"},
		star.FuncDoc{Name: "size", Summary: "The number of bytes a record of format takes.", Params: []star.Param{{Name: "format", Positional: true, Doc: format.Doc}}, Returns: "an int"},
		star.FuncDoc{Name: "frame", Summary: "A length-prefixed frame: payload's length in prefix's layout, then payload.",
			Params: []star.Param{prefix, {Name: "payload", Doc: "bytes or a string"}}, Returns: "bytes (read one back with net.conn.read_frame)"},
		star.FuncDoc{Name: "uvarint", Summary: "An unsigned varint (protobuf's, Go's encoding/binary).", Params: []star.Param{{Name: "n", Positional: true, Doc: "0 to 2**64-1"}}, Returns: "bytes"},
		star.FuncDoc{Name: "varint", Summary: "A signed zigzag varint (protobuf's sint64).", Params: []star.Param{{Name: "n", Positional: true, Doc: "a signed 64-bit int"}}, Returns: "bytes"},
		star.FuncDoc{Name: "read_uvarint", Summary: "Decodes an unsigned varint.", Params: []star.Param{data, offset}, Returns: "(value, offset after it)"},
		star.FuncDoc{Name: "read_varint", Summary: "Decodes a signed zigzag varint.", Params: []star.Param{data, offset}, Returns: "(value, offset after it)"},
		star.FuncDoc{Name: "hex", Summary: "Lower-case hex of data.", Params: []star.Param{{Name: "data", Positional: true, Doc: data.Doc}}, Returns: "a string"},
		star.FuncDoc{Name: "unhex", Summary: "Decodes hex.", Params: []star.Param{{Name: "s", Positional: true, Doc: "an even number of hex digits"}}, Returns: "bytes"},
		star.FuncDoc{Name: "b64encode", Summary: "Base64 of data, padded.", Params: []star.Param{data, {Name: "url", Default: "False", Doc: "the URL-safe alphabet"}}, Returns: "a string"},
		star.FuncDoc{Name: "b64decode", Summary: "Decodes padded base64.", Params: []star.Param{{Name: "s", Doc: "the text"}, {Name: "url", Default: "False", Doc: "the URL-safe alphabet"}}, Returns: "bytes"},
		star.FuncDoc{Name: "ord", Summary: "The byte at index i as an int (b[i] is bytes in Starlark).",
			Params: []star.Param{{Name: "b", Positional: true, Doc: "bytes"}, {Name: "i", Positional: true, Doc: "an index; negative counts from the end"}}, Returns: "an int 0..255"},
	)
}
