//go:build !amd64 || purego

package reduce

func rowVecBest() string { return "" }

func useRowVec(string) {}

func rowVecISAs() []string { return []string{""} }
