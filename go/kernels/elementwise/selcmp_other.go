//go:build !amd64 || purego

package elementwise

func useSelCmp(string) {}
