//go:build !amd64 || purego

package floatconv

// Without the assembly loops the slice conversions run in Go entirely.

func vecF16ToF32(string, []float32, []uint16) int  { return 0 }
func vecF32ToF16(string, []uint16, []float32) int  { return 0 }
func vecBF16ToF32(string, []float32, []uint16) int { return 0 }
func vecF32ToBF16(string, []uint16, []float32) int { return 0 }
