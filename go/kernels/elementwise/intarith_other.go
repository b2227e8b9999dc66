//go:build !amd64 || purego

package elementwise

func useIntArith(string) {}
