#include "textflag.h"

// func getCSR() uint32
TEXT ·getCSR(SB), NOSPLIT, $8-4
	STMXCSR 0(SP)
	MOVL 0(SP), AX
	MOVL AX, ret+0(FP)
	RET

// func setCSR(csr uint32)
TEXT ·setCSR(SB), NOSPLIT, $8-4
	MOVL csr+0(FP), AX
	MOVL AX, 0(SP)
	LDMXCSR 0(SP)
	RET
