//go:build amd64 && !purego

#include "textflag.h"

// The Go assembler has no AMX mnemonics, so the tile instructions are
// spelled as bytes (VEX encodings; every register below has a 3-bit code,
// so the VEX R/X/B bits are all set). Tiles: 0-3 C (rows 0-15 / 16-31 by
// columns 0-15 / 16-31), 4-5 A (rows 0-15, 16-31), 6-7 B (columns 0-15,
// 16-31), each 16 rows of 64 bytes (amxTileConfig).
// Registers: AX C row 0, SI C row 16 and then the A panel, DI the B panel,
// CX C's row stride in bytes, BX A's tile row stride (64), DX B's (128:
// 32 columns of pairs), R8 the 16-pair steps left.

// func kern32x32AMXAsm(cfg *[64]byte, kp int, a, b, c *float32, ldc int, acc bool)
TEXT ·kern32x32AMXAsm(SB), NOSPLIT, $0-49
	MOVQ cfg+0(FP), AX
	// LDTILECFG (AX)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00
	MOVQ c+32(FP), AX
	MOVQ ldc+40(FP), CX
	SHLQ $2, CX
	MOVQ CX, SI
	SHLQ $4, SI
	ADDQ AX, SI
	MOVBLZX acc+48(FP), R8
	TESTQ R8, R8
	JZ zero
	// TILELOADD tmm0, (AX)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x04; BYTE $0x08
	// TILELOADD tmm1, 64(AX)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x4C; BYTE $0x08; BYTE $0x40
	// TILELOADD tmm2, (SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x14; BYTE $0x0E
	// TILELOADD tmm3, 64(SI)(CX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x5C; BYTE $0x0E; BYTE $0x40
	JMP steps

zero:
	// TILEZERO tmm0; tmm1; tmm2; tmm3
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC8
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD8

steps:
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ $64, BX
	MOVQ $128, DX
	MOVQ kp+8(FP), R8
	SHRQ $4, R8

loop:
	// TILELOADD tmm4, (SI)(BX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x24; BYTE $0x1E
	// TILELOADD tmm6, (DI)(DX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x34; BYTE $0x17
	// TILELOADD tmm7, 64(DI)(DX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x7C; BYTE $0x17; BYTE $0x40
	// TILELOADD tmm5, 1024(SI)(BX*1)
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0xAC; BYTE $0x1E; BYTE $0x00; BYTE $0x04; BYTE $0x00; BYTE $0x00
	// TDPBF16PS tmm0, tmm4, tmm6
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE $0x5C; BYTE $0xC4
	// TDPBF16PS tmm1, tmm4, tmm7
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE $0x5C; BYTE $0xCC
	// TDPBF16PS tmm2, tmm5, tmm6
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE $0x5C; BYTE $0xD5
	// TDPBF16PS tmm3, tmm5, tmm7
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE $0x5C; BYTE $0xDD
	// Next 16 pairs: 32 rows (A) or 32 columns (B) of 16 pairs each.
	ADDQ $2048, SI
	ADDQ $2048, DI
	DECQ R8
	JNZ loop

	MOVQ CX, SI
	SHLQ $4, SI
	ADDQ AX, SI
	// TILESTORED (AX)(CX*1), tmm0
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x08
	// TILESTORED 64(AX)(CX*1), tmm1
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x4C; BYTE $0x08; BYTE $0x40
	// TILESTORED (SI)(CX*1), tmm2
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x14; BYTE $0x0E
	// TILESTORED 64(SI)(CX*1), tmm3
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x5C; BYTE $0x0E; BYTE $0x40
	// TILERELEASE: the tiles go back to their initial state, so the
	// thread's context switches stop saving 8 KiB of tile data.
	BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0
	RET
