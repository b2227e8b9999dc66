package engine

import (
	"testing"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

// plannedProg is a fakeProg that reports plan statistics, as compiled
// programs do, so the inline policy applies to it.
type plannedProg struct {
	*fakeProg
	steps int
}

func (p plannedProg) Stats() compiler.PlanStats { return compiler.PlanStats{KernelSteps: p.steps} }

func TestSmallProgramRunsInline(t *testing.T) {
	c := newTestClient(t, 1)
	e, err := NewExecutable(c, plannedProg{&fakeProg{n: 3}, 1}, []byte("code"), nil)
	require.NoError(t, err)
	require.True(t, e.inline)
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, done[0].IsReady(), "a tiny program finishes inside Execute")
	require.True(t, outs[0][0].ReadyEvent().IsReady())
	require.Equal(t, []float32{2, 3, 4}, readF32(t, outs[0][0]))
	require.False(t, x.IsDeleted())
}

func TestInlinePolicy(t *testing.T) {
	small := plannedProg{&fakeProg{n: 3}, 1}
	in, out := small.InputTypes(), small.OutputTypes()
	require.True(t, inlinePolicy(small, in, out))
	require.False(t, inlinePolicy(small.fakeProg, in, out), "no plan statistics: asynchronous")
	require.False(t, inlinePolicy(plannedProg{&fakeProg{n: 3}, inlineSteps + 1}, in, out), "many steps")
	big := plannedProg{&fakeProg{n: InlineBytes()}, 1} // 4 bytes an element: far over the bound
	require.False(t, inlinePolicy(big, big.InputTypes(), big.OutputTypes()))
	loop := plannedProg{&fakeProg{n: 3}, 1}
	m := loop.Module()
	m.Funcs[0].Body = ir.NewRegion(ir.NewBlock())
	m.Funcs[0].Body.Blocks[0].Append(ir.NewOp("stablehlo.while", nil, nil, nil))
	require.False(t, inlinePolicy(moduleProg{loop, m}, in, out), "a while loop may run for long")

	old := InlineBytes()
	SetInlineBytes(0)
	defer SetInlineBytes(old)
	require.False(t, inlinePolicy(small, in, out), "GOJAX_INLINE_BYTES=0 turns it off")
}

type moduleProg struct {
	plannedProg
	m *ir.Module
}

func (p moduleProg) Module() *ir.Module { return p.m }

func TestWaitingInputsKeepExecutionAsynchronous(t *testing.T) {
	c := newTestClient(t, 1)
	slow := &fakeProg{n: 3, gate: make(chan struct{})}
	first := newFakeExec(t, c, slow)
	second, err := NewExecutable(c, plannedProg{&fakeProg{n: 3}, 1}, []byte("code"), nil)
	require.NoError(t, err)
	x := hostF32(t, c, 1, 2, 3)
	mid, _, err := first.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	// The input is not ready yet: running inline would block the caller.
	outs, done, err := second.Execute([][]*Buffer{{mid[0][0]}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.False(t, done[0].IsReady())
	close(slow.gate)
	require.NoError(t, done[0].Wait())
	require.Equal(t, []float32{3, 4, 5}, readF32(t, outs[0][0]))
}
