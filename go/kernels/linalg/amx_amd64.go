//go:build amd64 && !purego

package linalg

// AMX micro-kernels (amx_amd64.s), 32×32 blocks of C on the matrix tiles.

// kern32x32AMXAsm is the AMX bf16 micro-kernel: a 32×32 f32 block of C
// (+)= A·B over kp k pairs (a multiple of 16), A packed by packAPairsRows
// and B by packBPairs (nr 32), both with mr = nr = 32. It loads the tile
// configuration itself and releases the tiles before returning: a
// goroutine may move to another thread between calls, and tile state
// belongs to the thread.
//
//go:noescape
func kern32x32AMXAsm(cfg *[64]byte, kp int, a, b, c *float32, ldc int, acc bool)

// amxTileConfig is the tile configuration (palette 1) every call loads:
// tiles 0-7 of 16 rows × 64 bytes (16 f32 or 16 bf16 pairs per row).
var amxTileConfig = func() (cfg [64]byte) {
	cfg[0] = 1 // palette
	for t := 0; t < 8; t++ {
		cfg[16+2*t] = 64 // bytes per row (little-endian uint16)
		cfg[48+t] = 16   // rows
	}
	return cfg
}()

var ukBF16AMX = microKernel[float32]{name: "amx-bf16-32x32", mr: 32, nr: 32, fn: kern32x32AMXChecked, pairs: true, tilePairs: true}

// kern32x32AMXChecked bounds-checks what the assembly reads and writes.
func kern32x32AMXChecked(kp int, a, b, c []float32, ldc int, acc bool) {
	if kp <= 0 || kp%tileStep != 0 || ldc < 32 {
		panic("linalg: AMX kernel needs a positive multiple of 16 k pairs and ldc >= 32")
	}
	_ = a[32*kp-1]
	_ = b[32*kp-1]
	_ = c[31*ldc+31]
	kern32x32AMXAsm(&amxTileConfig, kp, &a[0], &b[0], &c[0], ldc, acc)
}
