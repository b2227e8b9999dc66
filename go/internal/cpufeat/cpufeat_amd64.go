//go:build amd64 && !purego

package cpufeat

func hasAVX2FMA() bool

func detectAVX2FMA() bool { return hasAVX2FMA() }
