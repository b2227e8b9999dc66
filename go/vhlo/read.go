// Package vhlo turns a StableHLO portable artifact (VHLO dialect in MLIR
// bytecode) into gojax IR.
package vhlo

import (
	"errors"

	"github.com/gojax/gojax/go/ir"
)

// Read decodes a portable artifact into a module.
func Read(code []byte) (*ir.Module, error) {
	return nil, errors.New("vhlo: reader not implemented yet")
}

// MaxVersion is the newest StableHLO (VHLO) version this reader supports; the
// plugin advertises it as stablehlo_current_version.
var MaxVersion = [3]int64{1, 20, 0}
