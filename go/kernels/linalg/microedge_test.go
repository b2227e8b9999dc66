package linalg

import (
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"
)

// An edge kernel must give exactly the bits of its full kernel's first
// edgeRows rows (which kernel computes a row depends on the tiling) and
// leave the rest of c alone.
func TestEdgeKernelsMatchFullKernel(t *testing.T) {
	r := rand.New(rand.NewSource(13))
	for _, uk := range kernelsF32 {
		if uk.edge == nil {
			continue
		}
		for _, kc := range []int{1, 2, 7, 256, 512} {
			for _, acc := range []bool{false, true} {
				t.Run(fmt.Sprintf("%s/kc%d/acc%v", uk.name, kc, acc), func(t *testing.T) {
					mr, nr, ldc := uk.mr, uk.nr, uk.nr+5
					a, b := randF32(r, mr*kc), randF32(r, nr*kc)
					c0 := randF32(r, (mr-1)*ldc+nr+2)
					full := append([]float32(nil), c0...)
					uk.fn(kc, a, b, full, ldc, acc)
					got := append([]float32(nil), c0...)
					uk.edge(kc, a, b, got, ldc, acc)
					for i := range got {
						if i/ldc < uk.edgeRows && i%ldc < nr {
							require.Equal(t, full[i], got[i], "element %d", i)
						} else {
							require.Equal(t, c0[i], got[i], "element %d outside the edge rows changed", i)
						}
					}
				})
			}
		}
	}
}
