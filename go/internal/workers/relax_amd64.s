#include "textflag.h"

// func cpuRelax()
// PAUSE tells the core this is a spin-wait loop: it saves power and leaves
// the pipeline (and a hyperthread sibling) to other work.
TEXT ·cpuRelax(SB), NOSPLIT, $0-0
	PAUSE
	RET
