//go:build amd64 && !purego

package cpufeat

func hasAVX2FMA() bool

// cpuid executes CPUID with the given leaf and subleaf.
func cpuid(leaf, sub uint32) (eax, ebx, ecx, edx uint32)

// xgetbv0 reads XCR0, the register state the OS saves (call only when
// CPUID reports OSXSAVE).
func xgetbv0() uint32

func detectAVX2FMA() bool { return hasAVX2FMA() }

func detectAVX512() bool {
	// hasAVX2FMA already checked OSXSAVE, so XGETBV is allowed here.
	// XCR0: 1 SSE, 2 AVX, 5 opmask, 6 ZMM0-15 upper halves, 7 ZMM16-31.
	if xgetbv0()&0xe6 != 0xe6 {
		return false
	}
	_, ebx, _, _ := cpuid(7, 0)
	// Leaf 7.0 EBX: bit 16 AVX512F, 17 AVX512DQ, 30 AVX512BW, 31 AVX512VL.
	const want = 1<<16 | 1<<17 | 1<<30 | 1<<31
	return ebx&want == want
}

func detectF16C() bool {
	// Leaf 1 ECX bit 29: F16C (VCVTPH2PS/VCVTPS2PH on XMM/YMM registers).
	_, _, ecx, _ := cpuid(1, 0)
	return ecx&(1<<29) != 0
}

func detectAVX512BF16() bool {
	max7, _, _, _ := cpuid(7, 0)
	if max7 < 1 {
		return false
	}
	// Leaf 7.1 EAX bit 5: AVX512_BF16.
	eax, _, _, _ := cpuid(7, 1)
	return eax&(1<<5) != 0
}

func detectAVX512VNNI() bool {
	// Leaf 7.0 ECX bit 11: AVX512_VNNI.
	_, _, ecx, _ := cpuid(7, 0)
	return ecx&(1<<11) != 0
}

func detectAMXBF16() bool {
	// XCR0 bits 17 (XTILECFG) and 18 (XTILEDATA): the OS saves tile state.
	if xgetbv0()&(3<<17) != 3<<17 {
		return false
	}
	// Leaf 7.0 EDX: bit 22 AMX-BF16, bit 24 AMX-TILE.
	_, _, _, edx := cpuid(7, 0)
	const want = 1<<22 | 1<<24
	return edx&want == want
}
