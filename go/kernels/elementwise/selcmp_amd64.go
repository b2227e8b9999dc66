//go:build amd64 && !purego

package elementwise

import "github.com/gojax/gojax/go/internal/cpufeat"

func init() { useSelCmp(cpufeat.Widest()) }

// useSelCmp selects the select/compare loops by set name; tests use it to run each.
func useSelCmp(isa string) {
	switch isa {
	case "Z":
		selcmp = &selcmpZ
	case "Y":
		selcmp = &selcmpY
	default:
		selcmp = nil
	}
}
