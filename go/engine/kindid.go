package engine

import (
	"encoding/binary"
	"math/bits"
)

// kindID is XLA's id of a memory kind: FarmHash's 32-bit fingerprint of
// the kind name, as a signed int. Only names of at most 24 bytes are
// needed (every kind in MemoryKinds is shorter), so only FarmHash's short
// input cases are written out; a longer name panics.
func kindID(kind string) int32 {
	s := []byte(kind)
	n := len(s)
	switch {
	case n <= 4:
		return int32(farmLen0to4(s))
	case n <= 12:
		return int32(farmLen5to12(s))
	case n <= 24:
		return int32(farmLen13to24(s))
	}
	panic("engine: memory kind name longer than 24 bytes: " + kind)
}

const (
	farmC1 = 0xcc9e2d51
	farmC2 = 0x1b873593
)

func farmFetch(s []byte, i int) uint32 { return binary.LittleEndian.Uint32(s[i:]) }

// farmRot rotates right, as FarmHash's Rotate32 does.
func farmRot(v uint32, k int) uint32 { return bits.RotateLeft32(v, -k) }

func farmMix(h uint32) uint32 {
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func farmMur(a, h uint32) uint32 {
	a *= farmC1
	a = farmRot(a, 17)
	a *= farmC2
	h ^= a
	h = farmRot(h, 19)
	return h*5 + 0xe6546b64
}

func farmLen0to4(s []byte) uint32 {
	b, c := uint32(0), uint32(9)
	for _, ch := range s {
		b = b*farmC1 + uint32(int32(int8(ch)))
		c ^= b
	}
	return farmMix(farmMur(b, farmMur(uint32(len(s)), c)))
}

func farmLen5to12(s []byte) uint32 {
	n := uint32(len(s))
	a, b, c := n, n*5, uint32(9)
	d := b
	a += farmFetch(s, 0)
	b += farmFetch(s, len(s)-4)
	c += farmFetch(s, (len(s)>>1)&4)
	return farmMix(farmMur(c, farmMur(b, farmMur(a, d))))
}

func farmLen13to24(s []byte) uint32 {
	n := len(s)
	a := farmFetch(s, (n>>1)-4)
	b := farmFetch(s, 4)
	c := farmFetch(s, n-8)
	d := farmFetch(s, n>>1)
	e := farmFetch(s, 0)
	f := farmFetch(s, n-4)
	h := d*farmC1 + uint32(n)
	a = farmRot(a, 12) + f
	h = farmMur(c, h) + a
	a = farmRot(a, 3) + c
	h = farmMur(e, h) + a
	a = farmRot(a+f, 12) + d
	h = farmMur(b, h) + a
	return farmMix(h)
}
