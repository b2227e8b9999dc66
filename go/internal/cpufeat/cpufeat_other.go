//go:build !amd64 || purego

package cpufeat

func detectAVX2FMA() bool    { return false }
func detectAVX512() bool     { return false }
func detectAVX512BF16() bool { return false }
func detectF16C() bool       { return false }
func detectAVX512VNNI() bool { return false }
func detectAMXBF16() bool    { return false }
func requestAMX() bool       { return false }
