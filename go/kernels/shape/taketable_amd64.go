//go:build amd64 && !purego

package shape

import "github.com/gojax/gojax/go/internal/cpufeat"

//go:noescape
func take16Z(dst *uint32, table *[tableMax]uint32, ix *int32, n, maxIdx int)

//go:noescape
func take16Y(dst *uint32, table *[tableMax]uint32, ix *int32, n, maxIdx int)

func init() { useTake16(cpufeat.Widest()) }

// useTake16 selects the table take's vector loop; tests run each.
func useTake16(isa string) {
	switch isa {
	case "Z":
		take16, take16Block = take16Z, 16
	case "Y":
		take16, take16Block = take16Y, 8
	default:
		take16, take16Block = nil, 0
	}
}
