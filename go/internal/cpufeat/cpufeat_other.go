//go:build !amd64 || purego

package cpufeat

func detectAVX2FMA() bool { return false }
