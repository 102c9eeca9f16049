package binarymod

import (
	"strings"
	"testing"

	"go.starlark.net/starlark"
)

func run(src string) (starlark.StringDict, error) {
	return starlark.ExecFile(&starlark.Thread{Name: "test"}, "t.star", src, starlark.StringDict{"binary": Module})
}

func TestBinary(t *testing.T) {
	g, err := run(`
be = binary.pack(">BhIq", 1, -2, 3, -4)
le = binary.pack("<HI", 1, 2)
u = binary.unpack(">BhIq", be)
at = binary.unpack(">I", b"xx\x00\x00\x01\x00yy", 2)
big = binary.unpack(">Q", b"\xff\xff\xff\xff\xff\xff\xff\xff")[0]
s = binary.pack(">4s?x", "ab", True)
su = binary.unpack(">4s?x", s)
n = binary.size(">BhIq3s")
f = binary.frame(">H", b"abc")
fv = binary.frame("uvarint", "hi")
uv = binary.uvarint(300)
zz = [binary.varint(x) for x in (0, -1, 1, -2, -65)]
ruv = binary.read_uvarint(b"x\xac\x02", 1)
rv = binary.read_varint(binary.varint(-65))
h = binary.hex(b"\x00\xff")
uh = binary.unhex("00ff")
b64 = binary.b64encode(b"\xfb\xff")
b64u = binary.b64encode(b"\xfb\xff", url = True)
ub64 = binary.b64decode("+/8=")
o = binary.ord(b"\x05\x06", -1)
idx = b"\x05\x06"[0]
`)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]string{
		"be":   `b"\x01\xff\xfe\x00\x00\x00\x03\xff\xff\xff\xff\xff\xff\xff\xfc"`,
		"le":   `b"\x01\x00\x02\x00\x00\x00"`,
		"u":    "(1, -2, 3, -4)",
		"at":   "(256,)",
		"big":  "18446744073709551615",
		"s":    `b"ab\x00\x00\x01\x00"`,
		"su":   `(b"ab\x00\x00", True)`,
		"n":    "18",
		"f":    `b"\x00\x03abc"`,
		"fv":   `b"\x02hi"`,
		"uv":   `b"\xac\x02"`,
		"zz":   `[b"\x00", b"\x01", b"\x02", b"\x03", b"\x81\x01"]`,
		"ruv":  "(300, 3)",
		"rv":   "(-65, 2)",
		"h":    `"00ff"`,
		"uh":   `b"\x00\xff"`,
		"b64":  `"+/8="`,
		"b64u": `"-_8="`,
		"ub64": `b"\xfb\xff"`,
		"o":    "6",
		"idx":  `b"\x05"`, // bytes[i] is bytes in Starlark: why binary.ord exists
	} {
		if got := g[k].String(); got != want {
			t.Errorf("%s = %s, want %s", k, got, want)
		}
	}
}

func TestBinaryErrors(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`binary.pack(">B", 256)`, "does not fit B"},
		{`binary.pack(">b", -129)`, "does not fit b"},
		{`binary.pack(">I", -1)`, "does not fit I"},
		{`binary.pack(">II", 1)`, "wants 2 values, got 1"},
		{`binary.pack(">2s", "abc")`, "do not fit 2s"},
		{`binary.pack("=I", 1)`, "native byte order"},
		{`binary.pack(">z", 1)`, "unknown code"},
		{`binary.pack(">I", "x")`, "wants an int"},
		{`binary.unpack(">I", b"abc")`, "takes 4 bytes, got 3"},
		{`binary.unpack(">I", b"abcd", 2)`, "takes 4 bytes, got 2"},
		{`binary.frame(">B", "x" * 256)`, "does not fit B"},
		{`binary.frame(">2s", "x")`, "one integer code"},
		{`binary.read_uvarint(b"\x80")`, "ends inside the varint"},
		{`binary.unhex("zz")`, "invalid byte"},
		{`binary.b64decode("!!")`, "illegal base64"},
		{`binary.ord(b"", 0)`, "out of range"},
	} {
		_, err := run(tc.src)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.src, err, tc.want)
		}
	}
}
