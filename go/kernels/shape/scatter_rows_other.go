//go:build !amd64 || purego

package shape

import "github.com/gojax/gojax/go/ir"

var vectorAddRows = false

func addRowsFor(ir.ElemType, int) addRows { return addRows{} }

func (addRows) run(_, _ []byte, _, _ []int64) { panic("addRows: no vector set") }
