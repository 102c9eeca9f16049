package check

import (
	"hash/maphash"
	"math"

	"github.com/faultline/faultline/history"
)

// hashSeed is fixed for the process so state hashes are stable within a check.
var hashSeed = maphash.MakeSeed()

// hashValue hashes a generic value consistently with history.Equal: equal
// values (1 and 1.0, :x and "x", maps in any order) hash alike.
func hashValue(v any) uint64 {
	switch x := v.(type) {
	case nil:
		return 0x9e3779b97f4a7c15
	case bool:
		if x {
			return 0x51afd7ed558ccd
		}
		return 0xc4ceb9fe1a85ec53
	case int64:
		return mix(uint64(x))
	case int:
		return mix(uint64(int64(x)))
	case float64:
		// Integral floats must hash like the int64 they equal.
		if x == math.Trunc(x) && x >= math.MinInt64 && x < math.MaxInt64 {
			return mix(uint64(int64(x)))
		}
		return mix(math.Float64bits(x))
	case string:
		return maphash.String(hashSeed, x)
	case history.Keyword:
		return maphash.String(hashSeed, string(x))
	case []any:
		h := uint64(len(x))
		for _, e := range x {
			h = mix(h ^ hashValue(e))
		}
		return h
	case history.Set:
		// Set equality ignores order and multiplicity; only the length is
		// guaranteed to agree between equal sets.
		return mix(uint64(len(x)) ^ 0x5e7)
	case map[string]any:
		// Sum of per-entry hashes: independent of iteration order.
		var h uint64
		for k, e := range x {
			h += mix(maphash.String(hashSeed, k) ^ hashValue(e))
		}
		return h
	}
	return 0
}

// mix is a 64-bit finaliser (splitmix64) spreading integers over the hash space.
func mix(z uint64) uint64 {
	z ^= z >> 30
	z *= 0xbf58476d1ce4e5b9
	z ^= z >> 27
	z *= 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// formatValue renders a generic value in EDN notation for explanations.
func formatValue(v any) string { return history.FormatEDN(v) }
