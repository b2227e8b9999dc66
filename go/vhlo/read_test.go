package vhlo

import (
	"bytes"
	"os"
	"testing"

	"github.com/gojax/gojax/go/internal/testenv"
	"github.com/gojax/gojax/go/ir"
	"github.com/stretchr/testify/require"
)

func readCorpus(t *testing.T, rel string) []byte {
	t.Helper()
	data, err := os.ReadFile(testenv.Data(t, rel))
	require.NoError(t, err)
	return data
}

func TestReadRejectsNewerProducer(t *testing.T) {
	data := readCorpus(t, "jax-export/annotate_data_placement#9.bc")
	old := []byte("StableHLO_v1.13.7")
	require.True(t, bytes.Contains(data, old))
	data = bytes.Replace(data, old, []byte("StableHLO_v1.99.7"), 1)
	_, err := Read(data)
	require.ErrorContains(t, err, "StableHLO_v1.99.7")
	require.ErrorContains(t, err, "1.20.0")
}

func TestReadMalformed(t *testing.T) {
	data := readCorpus(t, "jax-export/cpu_qr_lapack_geqrf#0.bc")
	_, err := Read(data[:len(data)/2])
	require.Error(t, err)
	require.Regexp(t, `section at byte \d+`, err.Error())
	_, err = Read([]byte("not bytecode"))
	require.ErrorContains(t, err, "magic")
}

// A modern JAX artifact (custom calls, typed FFI dicts, argument and result
// attributes, locations) decoded in detail.
func TestReadJAXExportDetails(t *testing.T) {
	m, err := Read(readCorpus(t, "jax-export/cpu_qr_lapack_geqrf#0.bc"))
	require.NoError(t, err)
	require.Equal(t, "StableHLO_v1.9.3", m.Producer)
	require.Equal(t, ir.IntAttr{Value: 1, Type: ir.S32}, m.Attrs["mhlo.num_partitions"])
	main := m.Main()
	require.NotNil(t, main)
	require.Equal(t, "public", main.Visibility)
	require.Len(t, main.ResAttrs, len(main.Type.Results))
	var calls []*ir.Op
	for _, f := range m.Funcs {
		f.Body.Walk(func(op *ir.Op) bool {
			if op.Name == "stablehlo.custom_call" {
				calls = append(calls, op)
			}
			return true
		})
	}
	require.NotEmpty(t, calls)
	for _, c := range calls {
		target, ok := c.Attrs.Str("call_target_name")
		require.True(t, ok)
		require.Contains(t, target, "lapack_")
		// 2024 jaxlib: API_VERSION_ORIGINAL with the FFI attributes in the
		// discardable mhlo.backend_config dictionary.
		v, _ := c.Attrs.Enum("api_version")
		require.Equal(t, "API_VERSION_ORIGINAL", v)
		require.IsType(t, ir.DictAttr{}, c.Attrs["mhlo.backend_config"])
		require.Equal(t, ir.StringAttr{Value: "0"}, c.Attrs["mhlo.frontend_attributes"].(ir.DictAttr).Entries["num_batch_dims"])
		require.IsType(t, ir.DenseI64Attr{}, c.Attrs["operand_layouts"].(ir.ArrayAttr).Elems[0])
		require.IsType(t, ir.OutputOperandAliasAttr{}, c.Attrs["output_operand_aliases"].(ir.ArrayAttr).Elems[0])
		require.True(t, c.Loc.Known(), "custom_call has a location")
	}
}

// Module attributes, the sdy mesh global and Shardy shardings survive.
func TestReadShardy(t *testing.T) {
	m, err := Read(readCorpus(t, "jax-export/shardy_sharding_ops_with_different_meshes#0.bc"))
	require.NoError(t, err)
	require.Equal(t, ir.IntAttr{Value: 2, Type: ir.S32}, m.Attrs["mhlo.num_partitions"])
	require.Len(t, m.Globals, 1)
	require.Equal(t, "sdy.mesh", m.Globals[0].Name)
	require.Equal(t, ir.OpaqueAttr{Dialect: "sdy", Text: `#sdy.mesh<["a"=2]>`}, m.Globals[0].Attrs["mesh"])
	var names []string
	m.Main().Body.Walk(func(op *ir.Op) bool {
		names = append(names, op.Name)
		return true
	})
	require.Contains(t, names, "sdy.manual_computation")
	require.Contains(t, names, "sdy.return")
	require.Contains(t, names, "builtin.unrealized_conversion_cast")
	require.Contains(t, names, "stablehlo.collective_permute")
}

// Read keeps no shared mutable state: concurrent reads are safe (run with -race).
func TestReadConcurrent(t *testing.T) {
	data := readCorpus(t, "jax-export/cpu_lu_lapack_getrf#0.bc")
	done := make(chan error, 8)
	for i := 0; i < cap(done); i++ {
		go func() {
			_, err := Read(data)
			done <- err
		}()
	}
	for i := 0; i < cap(done); i++ {
		require.NoError(t, <-done)
	}
}
