package profile

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func info(name, where string) *compiler.StepInfo {
	return &compiler.StepInfo{Op: &ir.Op{Name: name}, Name: name, Where: where}
}

func TestOpsSummaryAndTrace(t *testing.T) {
	p := New()
	t0 := time.Now()
	dot, add := info("stablehlo.dot_general", "m.py:3:1"), info("stablehlo.add", "m.py:4:1")
	require.NoError(t, p.Step(dot, 1, t0, 3*time.Millisecond, nil, nil, false))
	require.NoError(t, p.Step(add, 1, t0.Add(3*time.Millisecond), time.Millisecond, nil, nil, false))
	require.NoError(t, p.Step(dot, 2, t0, 5*time.Millisecond, nil, nil, false))

	ops := p.Ops()
	require.Len(t, ops, 2)
	require.Equal(t, "stablehlo.dot_general", ops[0].Name, "most expensive first")
	require.EqualValues(t, 2, ops[0].Calls)
	require.Equal(t, 4*time.Millisecond, ops[0].Mean())
	require.Contains(t, p.Summary(), "m.py:4:1")

	raw, err := p.ChromeTrace()
	require.NoError(t, err)
	var tr struct {
		TraceEvents []struct {
			Name, Ph string
			Ts, Dur  float64
			Tid      uint64
			Args     map[string]any
		}
	}
	require.NoError(t, json.Unmarshal(raw, &tr))
	require.Len(t, tr.TraceEvents, 3)
	for _, e := range tr.TraceEvents {
		require.Equal(t, "X", e.Ph)
		require.GreaterOrEqual(t, e.Dur, 0.0)
		require.NotEmpty(t, e.Args["where"])
	}
	require.Equal(t, 3000.0, tr.TraceEvents[0].Dur, "microseconds")
	require.NotEqual(t, tr.TraceEvents[0].Tid, tr.TraceEvents[2].Tid, "executions get their own rows")
}
