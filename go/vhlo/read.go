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
