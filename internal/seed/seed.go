// Package seed derives independent, reproducible random streams from one root
// seed. Every component of a run (the generator, the virtual latency model, each
// worker) draws from its own stream, so adding draws in one component never
// shifts the numbers another sees, and a recorded root seed replays the run.
package seed

import "math/rand/v2"

// Split derives the seed of the named component from root. It is a pure
// function: the same (root, component) always gives the same value, and nearby
// roots or names give unrelated values. The mapping is part of the replay
// contract, so it must never change (TestSplitGolden pins it).
func Split(root uint64, component string) uint64 {
	// FNV-1a over the name, then two rounds of the splitmix64 finaliser so that
	// a one-bit change in either input flips about half of the output bits.
	h := uint64(14695981039346656037)
	for i := 0; i < len(component); i++ {
		h ^= uint64(component[i])
		h *= 1099511628211
	}
	return mix(mix(root+0x9e3779b97f4a7c15) ^ h)
}

// New returns a PCG generator seeded for the named component of a run rooted
// at root. Streams for different components are independent.
func New(root uint64, component string) *rand.Rand {
	s := Split(root, component)
	// PCG takes 128 bits of state; the second word is derived from the first
	// with a different constant so the two are not trivially related.
	return rand.New(rand.NewPCG(s, mix(s^0xda3e39cb94b95bdb)))
}

// mix is the splitmix64 finaliser (Steele, Lea and Flood), a bijection on
// 64-bit words with full avalanche.
func mix(z uint64) uint64 {
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}
