package engine

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/stretchr/testify/require"
)

// appendOverride encodes one env_option_overrides entry as jaxlib does.
func appendOverride(b []byte, key string, v optionOverride) []byte {
	var val []byte
	switch v.kind {
	case 's':
		val = appendBytesField(nil, 1, []byte(v.s))
	case 'b':
		n := uint64(0)
		if v.b {
			n = 1
		}
		val = appendVarintField(nil, 2, n)
	case 'i':
		val = appendVarintField(nil, 3, uint64(v.i))
	case 'd':
		val = binary.AppendUvarint(nil, 4<<3|1)
		val = binary.LittleEndian.AppendUint64(val, math.Float64bits(v.d))
	}
	entry := appendBytesField(nil, 1, []byte(key))
	entry = appendBytesField(entry, 2, val)
	return appendBytesField(b, 7, entry)
}

func str(s string) optionOverride    { return optionOverride{kind: 's', s: s} }
func boolean(b bool) optionOverride  { return optionOverride{kind: 'b', b: b} }
func integer(i int64) optionOverride { return optionOverride{kind: 'i', i: i} }
func double(d float64) optionOverride {
	return optionOverride{kind: 'd', d: d}
}

func TestDebugOptionsList(t *testing.T) {
	opts := debugOptions()
	require.Greater(t, len(opts), 100)
	require.Equal(t, debugOption{typ: "bool"}, opts["xla_embed_ir_in_executable"])
	require.Equal(t, debugOption{typ: "int32"}, opts["xla_dump_max_hlo_modules"])
	require.Equal(t, debugOption{typ: "float"}, opts["xla_gpu_auto_spmd_partitioning_memory_budget_ratio"])
	cb := opts["xla_gpu_enable_command_buffer"]
	require.True(t, cb.repeated)
	require.Equal(t, "enum", cb.typ)
	require.Contains(t, cb.values, "FUSION")
}

func TestCompileOptionOverrides(t *testing.T) {
	for _, tc := range []struct {
		key  string
		val  optionOverride
		want string // error substring; "" accepts
	}{
		// The options and values JAX's api_test compiles with.
		{"xla_embed_ir_in_executable", boolean(true), ""},
		{"xla_embed_ir_in_executable", boolean(false), ""},
		{"xla_dump_max_hlo_modules", integer(200), ""},
		{"xla_gpu_auto_spmd_partitioning_memory_budget_ratio", double(0.5), ""},
		{"invalid_key", str("invalid_value"), "No such compile option: 'invalid_key'"},
		{"xla_embed_ir_in_executable", str("invalid_value"),
			"While setting option xla_embed_ir_in_executable, 'invalid_value' is not a valid bool value."},
		// Values from text.
		{"xla_embed_ir_in_executable", str("True"), ""},
		{"xla_dump_max_hlo_modules", str(" 12"), ""},
		{"xla_dump_max_hlo_modules", str("12x"), "'12x' is not a valid int32 value"},
		{"xla_dump_to", str("/tmp/x"), ""},
		{"xla_gpu_auto_spmd_partitioning_memory_budget_ratio", str("0.25"), ""},
		// Repeated fields take comma-separated lists; "" clears them (as
		// JAX's PGLE path sends for xla_gpu_enable_command_buffer).
		{"xla_gpu_enable_command_buffer", str(""), ""},
		{"xla_gpu_enable_command_buffer", str("FUSION,CUBLAS"), ""},
		{"xla_gpu_enable_command_buffer", str("FUSION,BOGUS"), "'BOGUS' is not a valid enum value"},
		{"xla_gpu_enable_command_buffer", integer(1), ""},
		// Typed values must fit the field.
		{"xla_dump_max_hlo_modules", integer(1 << 40), "'1099511627776' is not a valid int32 value"},
		{"xla_dump_max_hlo_modules", boolean(true), "'true' is not a valid int32 value"},
		{"xla_embed_ir_in_executable", integer(1), "'1' is not a valid bool value"},
		{"xla_gpu_auto_spmd_partitioning_memory_budget_ratio", double(1e300), "is not a valid float value"},
		{"xla_backend_extra_options", str("a"), "'a' is not a valid message value"},
	} {
		_, err := ParseCompileOptions(appendOverride(nil, tc.key, tc.val))
		if tc.want == "" {
			require.NoError(t, err, "%s = %v", tc.key, tc.val)
			continue
		}
		require.ErrorContains(t, err, tc.want, "%s = %v", tc.key, tc.val)
		require.Equal(t, CodeInvalidArgument, CodeOf(err))
	}
}
