//go:build amd64 && !purego

#include "textflag.h"

// Word indices for VPERMT2W interleaving two rows of 32 bf16 (first
// table: row 2q, second: row 2q+1) into 32 k pairs: columns 0-15, 16-31.
DATA packPairLo<>+0(SB)/8, $0x0021000100200000
DATA packPairLo<>+8(SB)/8, $0x0023000300220002
DATA packPairLo<>+16(SB)/8, $0x0025000500240004
DATA packPairLo<>+24(SB)/8, $0x0027000700260006
DATA packPairLo<>+32(SB)/8, $0x0029000900280008
DATA packPairLo<>+40(SB)/8, $0x002b000b002a000a
DATA packPairLo<>+48(SB)/8, $0x002d000d002c000c
DATA packPairLo<>+56(SB)/8, $0x002f000f002e000e
GLOBL packPairLo<>(SB), RODATA|NOPTR, $64
DATA packPairHi<>+0(SB)/8, $0x0031001100300010
DATA packPairHi<>+8(SB)/8, $0x0033001300320012
DATA packPairHi<>+16(SB)/8, $0x0035001500340014
DATA packPairHi<>+24(SB)/8, $0x0037001700360016
DATA packPairHi<>+32(SB)/8, $0x0039001900380018
DATA packPairHi<>+40(SB)/8, $0x003b001b003a001a
DATA packPairHi<>+48(SB)/8, $0x003d001d003c001c
DATA packPairHi<>+56(SB)/8, $0x003f001f003e001e
GLOBL packPairHi<>(SB), RODATA|NOPTR, $64

// func packBPairs32Asm(dst *uint32, b *uint16, ks *int, kq, c0 int, mask uint32)
//
// For q < kq and the columns j < 32 selected by mask (the first nn),
// dst[32q+j] = b[ks[2q]+c0+j] | b[ks[2q+1]+c0+j]<<16, and 0 for the
// other columns: one bf16 B panel of packBPairs. Masked-off columns are
// not read, so an edge panel may end anywhere.
TEXT ·packBPairs32Asm(SB), NOSPLIT, $0-44
	MOVQ dst+0(FP), DI
	MOVQ b+8(FP), SI
	MOVQ ks+16(FP), DX
	MOVQ kq+24(FP), CX
	MOVQ c0+32(FP), R8
	LEAQ (SI)(R8*2), SI
	MOVL mask+40(FP), AX
	KMOVD AX, K1
	VMOVDQU64 packPairLo<>(SB), Z30
	VMOVDQU64 packPairHi<>(SB), Z31
	TESTQ CX, CX
	JLE done
loop:
	MOVQ (DX), R9
	MOVQ 8(DX), R10
	VMOVDQU16.Z (SI)(R9*2), K1, Z0
	VMOVDQU16.Z (SI)(R10*2), K1, Z1
	VMOVDQA64 Z0, Z2
	VPERMT2W Z1, Z30, Z2
	VPERMT2W Z1, Z31, Z0
	VMOVDQU64 Z2, (DI)
	VMOVDQU64 Z0, 64(DI)
	ADDQ $16, DX
	ADDQ $128, DI
	DECQ CX
	JNZ loop
done:
	VZEROUPPER
	RET
