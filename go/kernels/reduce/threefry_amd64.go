//go:build amd64 && !purego

package reduce

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func threefryRoundsY(y0, y1, x0, x1 *uint32, n int, p *tfParams)

//go:noescape
func threefryRoundsZ(y0, y1, x0, x1 *uint32, n int, p *tfParams)

//go:noescape
func threefryLanesY(y0, y1, x0, x1 *uint32, n int, p *tfLaneParams, off int)

//go:noescape
func threefryLanesZ(y0, y1, x0, x1 *uint32, n int, p *tfLaneParams, off int)

func init() { useThreefry(cpufeat.Widest()) }

// useThreefry selects the rounds' vector loop (AVX-512 rotates in one
// instruction, AVX2 in three); tests run each.
func useThreefry(isa string) {
	switch isa {
	case "Z":
		tfVec, tfLanes, tfVecBlock = threefryRoundsZ, threefryLanesZ, 32
	case "Y":
		tfVec, tfLanes, tfVecBlock = threefryRoundsY, threefryLanesY, 16
	default:
		tfVec, tfLanes, tfVecBlock = nil, nil, 1
	}
}
