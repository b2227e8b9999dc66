//go:build !amd64 || purego

package elementwise

func arithBest() string { return "" }

func useArith(string) {}

func arithISAs() []string { return []string{""} }
