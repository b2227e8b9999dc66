//go:build amd64 && !purego

#include "textflag.h"

// AMX micro-kernels: a 32×32 block of C on the tiles. The Go assembler has
// no AMX mnemonics, so the tile instructions are spelled as bytes (VEX
// encodings; every register below has a 3-bit code, so the VEX R/X/B bits
// are all set). Tiles: 0-3 C (rows 0-15 / 16-31 by columns 0-15 / 16-31),
// 4-5 A (rows 0-15, 16-31), 6-7 B (columns 0-15, 16-31), each 16 rows of
// 64 bytes (amxTileConfig).
// Registers: AX C row 0, SI C row 16 and then the A panel, DI the B panel,
// CX C's row stride in bytes, BX A's tile row stride (64), DX B's (128:
// 32 columns of 4-byte groups), R8 the 16-group steps left.

// LDTILECFG (AX)
#define LOAD_CONFIG BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0x00

// TILERELEASE: the tiles go back to their initial state, so the thread's
// context switches stop saving 8 KiB of tile data.
#define RELEASE BYTE $0xC4; BYTE $0xE2; BYTE $0x78; BYTE $0x49; BYTE $0xC0

// SI = AX + 16·CX: row 16 of C.
#define C_ROW16 MOVQ CX, SI; SHLQ $4, SI; ADDQ AX, SI

// TILELOADD tmm0, (AX)(CX*1); tmm1, 64(AX)(CX*1); tmm2, (SI)(CX*1); tmm3, 64(SI)(CX*1)
#define LOAD_C \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x04; BYTE $0x08; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x4C; BYTE $0x08; BYTE $0x40; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x14; BYTE $0x0E; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x5C; BYTE $0x0E; BYTE $0x40

// TILEZERO tmm0; tmm1; tmm2; tmm3
#define ZERO_C \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC0; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xC8; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD0; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x49; BYTE $0xD8

// TILESTORED (AX)(CX*1), tmm0; 64(AX)(CX*1), tmm1; (SI)(CX*1), tmm2; 64(SI)(CX*1), tmm3
#define STORE_C \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x04; BYTE $0x08; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x4C; BYTE $0x08; BYTE $0x40; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x14; BYTE $0x0E; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7A; BYTE $0x4B; BYTE $0x5C; BYTE $0x0E; BYTE $0x40

// One step: TILELOADD tmm4, (SI)(BX*1); tmm6, (DI)(DX*1); tmm7, 64(DI)(DX*1);
// tmm5, 1024(SI)(BX*1); then the F3-prefixed (VEX pp = 10) tile dot
// product with opcode op: tmm0 += tmm4·tmm6, tmm1 += tmm4·tmm7,
// tmm2 += tmm5·tmm6, tmm3 += tmm5·tmm7 (op 0x5C: TDPBF16PS).
#define STEP(op) \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x24; BYTE $0x1E; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x34; BYTE $0x17; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0x7C; BYTE $0x17; BYTE $0x40; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x7B; BYTE $0x4B; BYTE $0xAC; BYTE $0x1E; BYTE $0x00; BYTE $0x04; BYTE $0x00; BYTE $0x00; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE op; BYTE $0xC4; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE op; BYTE $0xCC; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x4A; BYTE op; BYTE $0xD5; \
	BYTE $0xC4; BYTE $0xE2; BYTE $0x42; BYTE op; BYTE $0xDD; \
	ADDQ $2048, SI; \
	ADDQ $2048, DI

// func kern32x32AMXAsm(cfg *[64]byte, kp int, a, b, c *float32, ldc int, acc bool)
TEXT ·kern32x32AMXAsm(SB), NOSPLIT, $0-49
	MOVQ cfg+0(FP), AX
	LOAD_CONFIG
	MOVQ c+32(FP), AX
	MOVQ ldc+40(FP), CX
	SHLQ $2, CX
	C_ROW16
	MOVBLZX acc+48(FP), R8
	TESTQ R8, R8
	JZ zero
	LOAD_C
	JMP steps

zero:
	ZERO_C

steps:
	MOVQ a+16(FP), SI
	MOVQ b+24(FP), DI
	MOVQ $64, BX
	MOVQ $128, DX
	MOVQ kp+8(FP), R8
	SHRQ $4, R8

loop:
	STEP($0x5C)
	DECQ R8
	JNZ loop

	C_ROW16
	STORE_C
	RELEASE
	RET

