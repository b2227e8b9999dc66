package verify_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/verify"
	"github.com/gojax/gojax/go/vhlo"
)

// Real programs: every artifact the reader accepts must verify, and breaking
// any op's result type must be caught at that op (a mutation test of the
// per-op checks). Artifacts come from the repository's testdata/jax-export
// and, when the conformance runner has filled it, its serialized-artifact
// cache.

func artifacts(t *testing.T) []string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.Data(t, "jax-export"), "*.bc"))
	cache := os.Getenv("GOJAX_CONFORMANCE_CACHE")
	if cache == "" {
		if base, err := os.UserCacheDir(); err == nil {
			cache = filepath.Join(base, "gojax", "conformance")
		}
	}
	for _, corpus := range []string{"testdata", "interpret"} {
		more, _ := filepath.Glob(filepath.Join(cache, corpus, "*.bc"))
		if testing.Short() && len(more) > 200 {
			more = more[:200]
		}
		files = append(files, more...)
	}
	if len(files) == 0 {
		t.Fatal("no artifacts: testdata/jax-export holds none")
	}
	return files
}

func TestCorpusVerifies(t *testing.T) {
	read, verified := 0, 0
	for _, path := range artifacts(t) {
		code, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := vhlo.Read(code)
		if err != nil {
			continue // reader limits (dynamic shapes) are not the verifier's concern
		}
		read++
		if err := verify.Module(m); err != nil {
			t.Errorf("%s: %v", filepath.Base(path), err)
			continue
		}
		verified++
	}
	t.Logf("%d artifacts read, %d verified", read, verified)
	require.Positive(t, read)
}

// mutation changes an op's first result type; legal lists the ops for which
// the changed type is still valid StableHLO.
type mutation struct {
	name   string
	change func(*ir.TensorType) *ir.TensorType
	legal  map[string]bool
}

var mutations = []mutation{
	{"append a dim", func(t *ir.TensorType) *ir.TensorType {
		return ir.Tensor(t.Elem, append(append([]int64(nil), t.Shape...), 7)...)
	}, map[string]bool{"stablehlo.broadcast_in_dim": true, "stablehlo.iota": true, "stablehlo.custom_call": true}},
	{"change the element type", func(t *ir.TensorType) *ir.TensorType {
		e := ir.S32
		if t.Elem == ir.S32 {
			e = ir.F64
		}
		return ir.Tensor(e, t.Shape...)
	}, map[string]bool{"stablehlo.convert": true, "stablehlo.iota": true, "stablehlo.custom_call": true,
		"stablehlo.dot_general": true, "stablehlo.dot": true, "stablehlo.convolution": true, "stablehlo.bitcast_convert": true,
		"stablehlo.dynamic_iota": true, "stablehlo.dynamic_conv": true}},
}

func TestCorpusMutations(t *testing.T) {
	mutated, perOp := 0, map[string]int{}
	for _, path := range artifacts(t) {
		code, err := os.ReadFile(path)
		require.NoError(t, err)
		m, err := vhlo.Read(code)
		if err != nil || verify.Module(m) != nil {
			continue
		}
		var ops []*ir.Op
		for _, f := range m.Funcs {
			f.Body.Walk(func(op *ir.Op) bool {
				if len(op.Results) > 0 && strings.HasPrefix(op.Name, "stablehlo.") && perOp[op.Name] < 20 {
					perOp[op.Name]++
					ops = append(ops, op)
				}
				return true
			})
		}
		for _, op := range ops {
			tt, ok := op.Results[0].Type.(*ir.TensorType)
			if !ok {
				continue
			}
			for _, mu := range mutations {
				if mu.legal[op.Name] {
					continue
				}
				orig := op.Results[0].Type
				op.Results[0].Type = mu.change(tt)
				err := verify.Module(m)
				op.Results[0].Type = orig
				mutated++
				if err == nil {
					t.Errorf("%s: %s: %s of result %s not caught", filepath.Base(path), op.Name, mu.name, tt)
					continue
				}
				if !strings.HasPrefix(err.Error(), op.Name+" at ") {
					t.Errorf("%s: %s: %s of result %s reported elsewhere: %v", filepath.Base(path), op.Name, mu.name, tt, err)
				}
			}
		}
	}
	t.Logf("%d mutations over %d op kinds", mutated, len(perOp))
}
