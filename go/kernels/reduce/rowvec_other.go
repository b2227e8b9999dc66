//go:build !amd64 || purego

package reduce

func useRowVec(string) {}

// Never called: rowISA stays 0.
func sumLanes32Y(s *float32, n int, tail *[64]float32) float32 { panic("unreachable") }
func sumLanes32Z(s *float32, n int, tail *[64]float32) float32 { panic("unreachable") }
func maxLanes32Y(s *float32, n int) (float32, bool)            { panic("unreachable") }
func maxLanes32Z(s *float32, n int) (float32, bool)            { panic("unreachable") }
