package client

import (
	"testing"

	"go.starlark.net/starlark"

	"github.com/faultline/faultline/history"
)

// BenchmarkCompletion measures turning invoke's returned dict into the
// completion, without and with extra fields: without, extra support must
// cost nothing (the same allocations as before it existed).
func BenchmarkCompletion(b *testing.B) {
	op := history.Op{Type: history.Invoke, F: "read", Value: nil, Process: 1}
	plain := starlark.NewDict(2)
	_ = plain.SetKey(starlark.String("type"), starlark.String("ok"))
	_ = plain.SetKey(starlark.String("value"), starlark.MakeInt(3))
	withExtra := starlark.NewDict(3)
	_ = withExtra.SetKey(starlark.String("type"), starlark.String("ok"))
	_ = withExtra.SetKey(starlark.String("value"), starlark.MakeInt(3))
	x := starlark.NewDict(1)
	_ = x.SetKey(starlark.String("zxid"), starlark.MakeInt(12))
	_ = withExtra.SetKey(starlark.String("extra"), x)
	for _, bc := range []struct {
		name string
		d    *starlark.Dict
	}{{"plain", plain}, {"extra", withExtra}} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if c := completion(op, bc.d); c.Type != history.OK {
					b.Fatal(c.Error)
				}
			}
		})
	}
}
