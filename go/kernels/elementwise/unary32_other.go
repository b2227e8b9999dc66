//go:build !amd64 || purego

package elementwise

func useUnary32(string) {}
