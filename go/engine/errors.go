package engine

import (
	"errors"
	"fmt"

	"github.com/gojax/gojax/go/devmem"
)

// Code classifies errors; the values are PJRT_Error_Code's.
type Code int

const (
	CodeOK                 Code = 0
	CodeCancelled          Code = 1
	CodeUnknown            Code = 2
	CodeInvalidArgument    Code = 3
	CodeNotFound           Code = 5
	CodeResourceExhausted  Code = 8
	CodeFailedPrecondition Code = 9
	CodeOutOfRange         Code = 11
	CodeUnimplemented      Code = 12
	CodeInternal           Code = 13
	CodeUnavailable        Code = 14
)

// Error is an error with a status code.
type Error struct {
	Code Code
	Err  error
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf builds a coded error.
func Errorf(code Code, format string, args ...any) error {
	return &Error{Code: code, Err: fmt.Errorf(format, args...)}
}

// WithCode gives err a code unless it already carries one.
func WithCode(code Code, err error) error {
	if err == nil {
		return nil
	}
	if _, ok := carried(err); ok {
		return err
	}
	return &Error{Code: code, Err: err}
}

// CodeOf returns the code carried by err (Unknown when it has none).
func CodeOf(err error) Code {
	if err == nil {
		return CodeOK
	}
	if c, ok := carried(err); ok {
		return c
	}
	return CodeUnknown
}

// carried is the code err carries: an *Error's, or RESOURCE_EXHAUSTED for a
// failed device allocation wherever it happened (an output, a temporary, a
// transfer), whatever the caller would otherwise call it.
func carried(err error) (Code, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e.Code, true
	}
	var oom *devmem.OutOfMemoryError
	if errors.As(err, &oom) {
		return CodeResourceExhausted, true
	}
	return 0, false
}
