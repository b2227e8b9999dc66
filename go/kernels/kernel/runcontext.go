package kernel

import "github.com/gojax/gojax/go/ir"

// RunContext is what one execution tells the steps that ask for it: XLA FFI
// handlers read the run id, the device ordinal and the framework's user data
// of the execution they serve, which differ between concurrent runs of one
// executable and so cannot live in the compiled step.
type RunContext struct {
	// RunID identifies the execution (one id for all devices of one
	// Execute call); distinct executions have distinct ids.
	RunID int64
	// DeviceOrdinal is the local index of the device the run is for.
	DeviceOrdinal int
	// UserData is the execution's FFI user data (PJRT execute context).
	UserData []UserData
}

// ContextStep is a Step that also gets its run's context. rc is nil where
// no run context reaches (kernel regions such as reduce bodies).
type ContextStep func(rc *RunContext, ins, outs [][]byte) error

// RunContextLowering is implemented by compile contexts whose plans hand
// each run's context to the steps that ask for it. WithRunContext makes cs
// op's step: plans call it with the run's context; the returned Step, which
// calls cs with a nil context, is the op's plain form.
type RunContextLowering interface {
	WithRunContext(op *ir.Op, cs ContextStep) Step
}
