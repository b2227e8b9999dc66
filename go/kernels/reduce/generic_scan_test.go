package reduce

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/internal/lowerutil"
)

// twoOpRegion is a body no fast path recognises: r = op2(op1(a, b), op1(a, b)).
func twoOpRegion(op1, op2 string, et ir.ElemType) *ir.Region {
	b := ir.NewBlock(scalarT(et), scalarT(et))
	x := b.Append(ir.NewOp(op1, []*ir.Value{b.Args[0], b.Args[1]}, []ir.Type{scalarT(et)}, nil)).Result()
	y := b.Append(ir.NewOp(op2, []*ir.Value{x, x}, []ir.Type{scalarT(et)}, nil)).Result()
	b.Append(ir.NewOp("stablehlo.return", []*ir.Value{y}, nil, nil))
	return ir.NewRegion(b)
}

// TestGenericScanMatchesWalk checks forward cumulative windows with an
// unrecognised body, run as a scan, against the window-by-window walk, bit
// for bit, and that the scan declines an init that folding changes.
func TestGenericScanMatchesWalk(t *testing.T) {
	rng := rand.New(rand.NewSource(14))
	f32 := func(v float32) []byte { return binary.LittleEndian.AppendUint32(nil, math.Float32bits(v)) }
	for _, body := range []struct {
		op1, op2 string
		init     []byte
		scans    bool
	}{
		{"stablehlo.maximum", "stablehlo.maximum", f32(float32(math.Inf(-1))), true},
		{"stablehlo.add", "stablehlo.maximum", f32(0), true},
		{"stablehlo.add", "stablehlo.maximum", f32(1), false}, // 1 ⊕ 1 = 2: padding counts
	} {
		for _, s := range []struct {
			shape []int64
			axis  int
		}{{[]int64{29}, 0}, {[]int64{4, 29}, 1}, {[]int64{29, 5}, 0}, {[]int64{2, 300, 3}, 1}} {
			t.Run(fmt.Sprint(body.op1, body.init, s.shape, s.axis), func(t *testing.T) {
				c := cumsumCase(s.shape, s.axis)
				op := rwOp(c, ir.F32, twoOpRegion(body.op1, body.op2, ir.F32))
				in := genElems(rng, ir.F32, int(lowerutil.Numel(c.shape)))
				g, err := newWindowGeom(op, c.shape, c.shape, "base_dilations")
				require.NoError(t, err)
				g.scanDim, g.scanRev = scanForm(op, c.shape)
				require.Equal(t, s.axis, g.scanDim)
				walkGeom := *g
				walkGeom.scanDim = -1
				for _, ctx := range testCtxs {
					fc := ctx
					region, err := fc.CompileRegion(op.Regions[0])
					require.NoError(t, err)
					want := make([]byte, len(in))
					require.NoError(t, genericWindow(fc, op, &walkGeom, []ir.ElemType{ir.F32}, region)([][]byte{in, body.init}, [][]byte{want}))
					walkCalls := fc.calls
					got := make([]byte, len(in))
					require.NoError(t, genericWindow(fc, op, g, []ir.ElemType{ir.F32}, region)([][]byte{in, body.init}, [][]byte{got}))
					requireSameUpToNaNPayload(t, ir.F32, want, got, "scan vs walk")
					scanCalls := fc.calls - walkCalls
					if body.scans && s.shape[s.axis] > 5 {
						require.Less(t, scanCalls, walkCalls/2, "the scan calls the body once per element")
					}
				}
			})
		}
	}
}
