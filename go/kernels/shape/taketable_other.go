//go:build !amd64 || purego

package shape

func useTake16(string) { take16, take16Block = nil, 0 }
