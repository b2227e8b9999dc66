package capitest

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/internal/testenv"
)

type npyArray struct {
	descr string
	shape []int64
	data  []byte
}

var npyShapeRE = regexp.MustCompile(`'shape': \(([^)]*)\)`)
var npyDescrRE = regexp.MustCompile(`'descr': '([^']*)'`)

// readNPZ reads an uncompressed .npz of little-endian C-order arrays.
func readNPZ(t *testing.T, path string) map[string]npyArray {
	t.Helper()
	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	zr, err := zip.NewReader(bytes.NewReader(raw), int64(len(raw)))
	require.NoError(t, err)
	out := map[string]npyArray{}
	for _, f := range zr.File {
		rc, err := f.Open()
		require.NoError(t, err)
		b, err := io.ReadAll(rc)
		require.NoError(t, err)
		rc.Close()
		require.True(t, bytes.HasPrefix(b, []byte("\x93NUMPY")), f.Name)
		var hlen, off int
		if b[6] == 1 {
			hlen, off = int(binary.LittleEndian.Uint16(b[8:])), 10
		} else {
			hlen, off = int(binary.LittleEndian.Uint32(b[8:])), 12
		}
		header := string(b[off : off+hlen])
		require.Contains(t, header, "'fortran_order': False")
		a := npyArray{descr: npyDescrRE.FindStringSubmatch(header)[1], data: b[off+hlen:]}
		for _, s := range strings.Split(npyShapeRE.FindStringSubmatch(header)[1], ",") {
			if s = strings.TrimSpace(s); s != "" {
				n, err := strconv.ParseInt(s, 10, 64)
				require.NoError(t, err)
				a.shape = append(a.shape, n)
			}
		}
		out[strings.TrimSuffix(f.Name, ".npy")] = a
	}
	return out
}

// TestCompileAndExecuteThroughCAPI compiles a JAX-exported artifact through
// PJRT_Client_Compile and runs it through PJRT_LoadedExecutable_Execute, the
// way jaxlib does.
func TestCompileAndExecuteThroughCAPI(t *testing.T) {
	dir := testenv.Data(t, "jax-export")
	const name = "annotate_data_placement#8"
	code, err := os.ReadFile(filepath.Join(dir, name+".bc"))
	require.NoError(t, err)
	vec := readNPZ(t, filepath.Join(dir, name+".npz"))

	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	x, e := api.CompileExec(c, "mlir", code, nil)
	if e != nil {
		t.Fatalf("compiling %s: %s", name, e.Msg)
	}
	defer api.DestroyLoaded(x)

	info, e := api.DescribeExec(x)
	require.Nil(t, e)
	require.Equal(t, 1, info.NumOutputs)
	require.Equal(t, []int{typeF32}, info.OutputTypes)
	require.Equal(t, [][]int64{vec["out0"].shape}, info.OutputDims)
	// The program takes a device and a pinned_host argument and returns a
	// pinned_host result (mhlo.memory_kind attributes).
	require.Equal(t, []string{"pinned_host"}, info.OutputKinds)
	require.Equal(t, []string{"device", "pinned_host"}, info.ParameterKinds)
	mems, e := api.DeviceMemories(devs[0])
	require.Nil(t, e)
	require.Equal(t, 1, info.NumReplicas)
	require.Equal(t, 1, info.NumPartitions)
	require.NotEmpty(t, info.Fingerprint)
	require.Equal(t, []Device{devs[0]}, info.AddressableDevices)
	require.Equal(t, [][2]int{{0, 0}}, info.LogicalIDs)
	// xla.DeviceAssignmentProto{replica_count: 1, computation_count: 1,
	// computation_devices: [{replica_device_ids: [0]}]}.
	require.Equal(t, []byte{0x08, 0x01, 0x10, 0x01, 0x1a, 0x03, 0x0a, 0x01, 0x00}, info.DeviceAssignment)

	run := func(x Loaded) []float32 {
		var args []Buffer
		for i := 0; ; i++ {
			a, ok := vec[fmt.Sprintf("in%d", i)]
			if !ok {
				break
			}
			require.Equal(t, "<f4", a.descr)
			host := NewCMem(len(a.data), true)
			copy(host.Bytes(), a.data)
			// Each argument goes to the memory of its parameter's kind.
			b, done, e := api.FromHost(c, mems[i], host.P, typeF32, a.shape, nil, semDuringCall)
			require.Nil(t, e)
			require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
			args = append(args, b)
		}
		outs, events, e := api.Execute(x, [][]Buffer{args}, 1, nil)
		require.Nil(t, e)
		cb, e := api.OnReady(events[0], true)
		require.Nil(t, e)
		ev, e := api.ReadyEvent(outs[0][0])
		require.Nil(t, e)
		awaitOK(t, api, ev)
		oi, e := api.DescribeBuffer(outs[0][0])
		require.Nil(t, e)
		require.Equal(t, mems[1], oi.Memory, "the result is in the pinned_host memory")
		dst := NewCMem(len(vec["out0"].data), true)
		ev, _, e = api.ToHost(outs[0][0], dst.P, dst.N, nil)
		require.Nil(t, e)
		awaitOK(t, api, ev)
		for _, b := range append(args, outs[0][0]) {
			require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
		}
		require.Eventually(t, func() bool { return cb.State().Called == 1 }, 5e9, 1e6)
		require.Equal(t, 0, cb.State().Code)
		return f32s(dst.Bytes())
	}
	want := f32s(vec["out0"].data)
	require.Equal(t, want, run(x))

	// A serialized executable loads back and computes the same.
	y, e := api.Deserialize(c, info.SerializedExecutable)
	require.Nil(t, e)
	defer api.DestroyLoaded(y)
	require.Equal(t, want, run(y))

	// Wrong argument count is an error, not a crash.
	_, _, e = api.Execute(x, [][]Buffer{{}}, 1, nil)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "PJRT_LoadedExecutable_Execute")
}

// TestCostAnalysisAndCompileOptionsThroughCAPI reads a compiled program's
// cost analysis as jaxlib does (float named values under XLA's keys) and
// compiles with compile options carrying JAX compiler_options overrides.
func TestCostAnalysisAndCompileOptionsThroughCAPI(t *testing.T) {
	code, err := os.ReadFile(filepath.Join(testenv.Data(t, "jax-export"), "annotate_data_placement#8.bc"))
	require.NoError(t, err)
	api := Load()
	c := newClient(t, api, 1)

	x, e := api.CompileExec(c, "mlir", code, nil)
	require.Nil(t, e)
	defer api.DestroyLoaded(x)
	props, e := api.CostAnalysis(x)
	require.Nil(t, e)
	for _, k := range []string{"flops", "transcendentals", "bytes accessed", "bytes accessedout{}"} {
		require.Contains(t, props, k)
	}
	// The total is the bytes read of each operand position plus the bytes
	// written.
	sum := props["bytes accessedout{}"]
	for i := 0; ; i++ {
		b, ok := props[fmt.Sprintf("bytes accessed%d{}", i)]
		if !ok {
			break
		}
		require.Contains(t, props, fmt.Sprintf("utilization%d{}", i))
		sum += b
	}
	require.Greater(t, sum, float32(0))
	require.Equal(t, props["bytes accessed"], sum)

	// CompileOptionsProto.env_option_overrides (field 7) entries:
	// {key, OptionOverrideProto{bool_field: true}} and an unknown key.
	override := func(key string, value []byte) []byte {
		entry := append([]byte{0x0a, byte(len(key))}, key...)
		entry = append(append(entry, 0x12, byte(len(value))), value...)
		return append([]byte{0x3a, byte(len(entry))}, entry...)
	}
	y, e := api.CompileExec(c, "mlir", code, override("xla_embed_ir_in_executable", []byte{0x10, 0x01}))
	require.Nil(t, e)
	require.Nil(t, api.DestroyLoaded(y))
	_, e = api.CompileExec(c, "mlir", code, override("invalid_key", []byte{0x0a, 0x01, 'v'}))
	require.NotNil(t, e)
	require.Equal(t, codeInvalidArgument, e.Code)
	require.Contains(t, e.Msg, "No such compile option: 'invalid_key'")
}
