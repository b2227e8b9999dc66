package verify

import "sort"

// Ops lists every op name the verifier has a check for, sorted: the StableHLO
// op set plus the func-dialect ops gojax accepts.
func Ops() []string {
	names := make([]string, 0, len(checks))
	for n := range checks {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}
