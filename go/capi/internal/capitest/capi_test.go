package capitest

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/vhlo"
)

const (
	codeInvalidArgument    = 3
	codeFailedPrecondition = 9
	codeUnimplemented      = 12
	typeF32                = 11
	typeS32                = 4
	typeToken              = 23
	semDuringCall          = 0
	semZeroCopy            = 2
)

// unimplementedSlots are the slots gojax answers with UNIMPLEMENTED; the
// report lists the same set.
var unimplementedSlots = []string{
	"PJRT_CopyToDeviceStream_Destroy",
	"PJRT_CopyToDeviceStream_AddChunk",
	"PJRT_CopyToDeviceStream_TotalBytes",
	"PJRT_CopyToDeviceStream_GranuleSize",
	"PJRT_CopyToDeviceStream_CurrentBytes",
	"PJRT_Client_CreateAliasBuffer",
	"PJRT_Client_FulfillAliasBuffer",
	"PJRT_Buffer_Bitcast",
	"PJRT_TopologyDescription_MakeCanonicalShapeForMemorySpace",
}

func newClient(t *testing.T, api *API, n int64) Client {
	t.Helper()
	c, e := api.CreateClient(map[string]int64{"num_devices": n})
	require.Nil(t, e)
	t.Cleanup(func() { require.Nil(t, api.DestroyClient(c)) })
	return c
}

func f32Mem(aligned bool, vs ...float32) CMem {
	m := NewCMem(4*len(vs), aligned)
	for i, v := range vs {
		binary.LittleEndian.PutUint32(m.Bytes()[4*i:], math.Float32bits(v))
	}
	return m
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

// awaitOK waits on an event through PJRT_Event_Await and destroys it.
func awaitOK(t *testing.T, api *API, ev Event) {
	t.Helper()
	require.Nil(t, api.EventCall("PJRT_Event_Await", ev))
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", ev))
}

func TestTableIsComplete(t *testing.T) {
	api := Load()
	major, minor, size := api.Version()
	require.Equal(t, 0, major)
	require.Equal(t, 114, minor)
	require.Equal(t, 1144, size)
	names := api.SlotNames()
	require.Len(t, names, 138)
	for _, n := range names {
		require.True(t, api.SlotIsSet(n), n)
	}
}

// TestEveryEntryRejectsBadArgs calls every slot with NULL args and with a
// too-short struct: each must return INVALID_ARGUMENT naming the function.
func TestEveryEntryRejectsBadArgs(t *testing.T) {
	api := Load()
	for _, name := range api.SlotNames() {
		switch name {
		case "PJRT_Error_Destroy", "PJRT_Error_Message":
			api.Call(name, nil) // void: must simply not crash
			api.CallWithSize(name, 8)
			continue
		case "PJRT_Error_ForEachPayload":
			require.Nil(t, api.Call(name, nil), "ForEachPayload must never fail")
			continue
		}
		t.Run(name, func(t *testing.T) {
			e := api.Call(name, nil)
			require.NotNil(t, e)
			require.Equal(t, codeInvalidArgument, e.Code)
			require.Contains(t, e.Msg, name)
			require.Contains(t, e.Msg, "NULL")
			e = api.CallWithSize(name, 8)
			require.NotNil(t, e)
			require.Equal(t, codeInvalidArgument, e.Code)
			require.Contains(t, e.Msg, name)
			require.Contains(t, e.Msg, "struct_size")
		})
	}
}

// TestZeroedArgsNeverCrash passes a full-size but zeroed struct (NULL
// handles everywhere): every slot must answer with an error or succeed.
func TestZeroedArgsNeverCrash(t *testing.T) {
	api := Load()
	for _, name := range api.SlotNames() {
		switch name {
		case "PJRT_Error_Destroy", "PJRT_Error_Message", "PJRT_Error_ForEachPayload",
			"PJRT_Event_Destroy", "PJRT_Plugin_Initialize", "PJRT_Plugin_Attributes",
			"PJRT_Event_Create", "PJRT_ExecuteContext_Create", "PJRT_ExecuteContext_Destroy",
			"PJRT_AsyncTrackingEvent_Destroy", "PJRT_TopologyDescription_Create", "PJRT_Client_Create":
			continue // these succeed on zeroed args (and allocate)
		}
		t.Run(name, func(t *testing.T) {
			e := api.CallWithSize(name, 1024)
			require.NotNil(t, e)
			require.Contains(t, e.Msg, name)
		})
	}
}

func TestErrorsCarryVtableAndNoPayloads(t *testing.T) {
	api := Load()
	e := api.Call("PJRT_Client_Devices", nil)
	require.NotNil(t, e)
	require.Equal(t, e.Code, e.VtableCode)
	require.Equal(t, e.Msg, e.VtableMsg)
	require.Equal(t, 56, e.VtableSize)
	require.Equal(t, 0, e.Payloads)
	require.True(t, e.PayloadNull)
}

func TestUnimplementedSlotsNameThemselves(t *testing.T) {
	api := Load()
	for _, name := range unimplementedSlots {
		e := api.CallWithSize(name, 1024)
		require.NotNil(t, e, name)
		require.Equal(t, codeUnimplemented, e.Code, name)
		require.Contains(t, e.Msg, name)
	}
}

func TestClientDevicesAndMemories(t *testing.T) {
	api := Load()
	c := newClient(t, api, 3)
	name, version, e := api.Platform(c)
	require.Nil(t, e)
	require.Equal(t, "cpu", name)
	require.True(t, strings.HasPrefix(version, "gojax "), version)
	devs, e := api.Devices(c)
	require.Nil(t, e)
	require.Len(t, devs, 3)
	var all []Memory
	for i, d := range devs {
		info, e := api.Describe(d)
		require.Nil(t, e)
		require.Equal(t, i, info.ID)
		require.Equal(t, i, info.LocalHardwareID)
		require.Equal(t, 0, info.ProcessIndex)
		require.Equal(t, "cpu", info.Kind)
		require.NotEmpty(t, info.Debug)
		require.NotEmpty(t, info.String)
		require.Equal(t, int64(i), info.Attributes["local_hardware_id"])
		def, e := api.DefaultMemory(d)
		require.Nil(t, e)
		mems, e := api.DeviceMemories(d)
		require.Nil(t, e)
		require.Len(t, mems, 3)
		require.Equal(t, def, mems[0], "the default memory comes first")
		for k, m := range mems {
			mi, e := api.DescribeMemory(m)
			require.Nil(t, e)
			require.Equal(t, 3*i+k, mi.ID)
			require.Equal(t, memoryKinds[k].kind, mi.Kind)
			require.Equal(t, memoryKinds[k].id, mi.KindID)
			require.Equal(t, fmt.Sprintf("%s_%d", memoryKinds[k].name, mi.ID), mi.Name)
			require.Equal(t, fmt.Sprintf("%s(id=%d, process_index=0, client=cpu)", memoryKinds[k].debug, mi.ID), mi.Debug)
			require.Equal(t, []Device{d}, mi.Devices)
			require.Equal(t, 40, mi.VtableSize, "memory handles start with a PJRT_Memory_FunctionTable")
			all = append(all, m)
		}
	}
	cm, e := api.ClientMemories(c)
	require.Nil(t, e)
	require.Equal(t, all, cm, "the client lists each device's memories in turn")
}

// memoryKinds are XLA:CPU's memory spaces of a device, in its order: kind,
// kind id (FarmHash Fingerprint32 of the kind, computed independently with
// the farmhash Python bindings), and the names of its ToString/DebugString.
var memoryKinds = []struct {
	kind, name, debug string
	id                int
}{
	{"device", "CPU_DEVICE", "CpuDeviceMemory", 42097224},
	{"pinned_host", "PINNED_HOST", "PinnedHostMemory", 1756073601},
	{"unpinned_host", "UNPINNED_HOST", "UnpinnedHostMemorySpace", 4022908727 - 1<<32},
}

func TestMemoryUserData(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	keys := NewCMem(64, true)
	key, other := keys.P, unsafe.Add(keys.P, 8)
	v1, v2 := unsafe.Add(keys.P, 16), unsafe.Add(keys.P, 24)
	before := DtorCalls()
	got1, got2, missing, dtors := MemoryUserData(m, key, other, v1, v2)
	require.Equal(t, v1, got1)
	require.Equal(t, v2, got2)
	require.Nil(t, missing)
	require.Equal(t, before+1, dtors, "replacing a value runs its destructor")
}

func TestPluginAttributes(t *testing.T) {
	api := Load()
	attrs, e := api.PluginAttributes()
	require.Nil(t, e)
	require.Equal(t, vhlo.MaxVersion[:], attrs["stablehlo_current_version"])
	require.Equal(t, []int64{0, 9, 0}, attrs["stablehlo_minimum_version"])
	require.Len(t, attrs["xla_version"], 1)
}

func TestClientCreateOptions(t *testing.T) {
	api := Load()
	tests := []struct {
		opts map[string]int64
		code int
		msg  string
	}{
		{map[string]int64{"num_devices": 0}, codeInvalidArgument, "num_devices"},
		{map[string]int64{"num_devices": -3}, codeInvalidArgument, "num_devices"},
		// A job needs the coordination service's key-value store.
		{map[string]int64{"num_nodes": 2}, codeInvalidArgument, "key-value store"},
		{map[string]int64{"num_nodes": 2, "node_id": 2}, codeInvalidArgument, "node_id=2"},
		{map[string]int64{"jax_num_cpu_devices": 1025}, codeInvalidArgument, "jax_num_cpu_devices must be at most 1024"},
	}
	for _, tt := range tests {
		_, e := api.CreateClient(tt.opts)
		require.NotNil(t, e)
		require.Equal(t, tt.code, e.Code)
		require.Contains(t, e.Msg, "PJRT_Client_Create")
		require.Contains(t, e.Msg, tt.msg)
	}
	c, e := api.CreateClient(map[string]int64{"unknown_option": 1})
	require.Nil(t, e, "unknown options are ignored")
	require.Nil(t, api.DestroyClient(c))
	// An explicit num_devices wins over JAX's jax_num_cpu_devices.
	c, e = api.CreateClient(map[string]int64{"num_devices": 2, "jax_num_cpu_devices": 5})
	require.Nil(t, e)
	devs, e := api.Devices(c)
	require.Nil(t, e)
	require.Len(t, devs, 2)
	require.Nil(t, api.DestroyClient(c))
}

func TestBufferZeroCopyAndDoneEvent(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])

	host := f32Mem(true, 1, 2, 3, 4)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{2, 2}, nil, semZeroCopy)
	require.Nil(t, e)
	info, e := api.DescribeBuffer(b)
	require.Nil(t, e)
	require.Equal(t, uintptr(host.P), info.UnsafePointer, "aligned dense host data is aliased")
	ready, _ := api.IsReady(done)
	require.False(t, ready, "host memory stays in use while the buffer lives")
	cb, e := api.OnReady(done, true) // the callback destroys the event, as jaxlib does
	require.Nil(t, e)
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
	// The release runs off the caller's thread (jaxlib's hook takes the GIL).
	require.Eventually(t, func() bool { return cb.State().Called == 1 }, 5*time.Second, time.Millisecond)
	require.Equal(t, EventState{Called: 1}, cb.State())

	// Unaligned data is copied and released at once.
	host2 := f32Mem(false, 5, 6)
	b2, done2, e := api.FromHost(c, m, host2.P, typeF32, []int64{2}, nil, semZeroCopy)
	require.Nil(t, e)
	ready, _ = api.IsReady(done2)
	require.True(t, ready)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done2))
	info2, _ := api.DescribeBuffer(b2)
	require.NotEqual(t, uintptr(host2.P), info2.UnsafePointer)
	host2.Bytes()[0] = 0xff // the copy must not see later host writes
	dst := NewCMem(8, true)
	ev, _, e := api.ToHost(b2, dst.P, 8, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{5, 6}, f32s(dst.Bytes()))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b2))
}

func TestBufferDescription(t *testing.T) {
	api := Load()
	c := newClient(t, api, 2)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[1])
	host := NewCMem(24, true)
	b, done, e := api.FromHost(c, m, host.P, typeS32, []int64{2, 3}, nil, semDuringCall)
	require.Nil(t, e)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
	info, e := api.DescribeBuffer(b)
	require.Nil(t, e)
	require.Equal(t, typeS32, info.Type)
	require.Equal(t, []int64{2, 3}, info.Dims)
	require.Equal(t, []int64{2, 3}, info.UnpaddedDims)
	require.Equal(t, []int64{1, 0}, info.MinorToMajor)
	require.Equal(t, 0, info.Tiles)
	require.Equal(t, 24, info.Size)
	require.True(t, info.OnCpu)
	require.Equal(t, devs[1], info.Device)
	require.Equal(t, m, info.Memory)
	require.Equal(t, 0, info.DynamicDims)
	require.False(t, info.IsDeleted)
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
}

// TestMemoryKindBuffers puts data into each memory kind of a device and
// copies it between kinds: every buffer reports the memory it was put in,
// on the same device, and keeps its values.
func TestMemoryKindBuffers(t *testing.T) {
	api := Load()
	c := newClient(t, api, 2)
	devs, _ := api.Devices(c)
	mems, e := api.DeviceMemories(devs[1])
	require.Nil(t, e)
	want := []float32{1, -2, 3.5, 4}
	read := func(b Buffer) []float32 {
		dst := NewCMem(16, true)
		ev, _, e := api.ToHost(b, dst.P, dst.N, nil)
		require.Nil(t, e)
		awaitOK(t, api, ev)
		return f32s(dst.Bytes())
	}
	check := func(b Buffer, m Memory) {
		info, e := api.DescribeBuffer(b)
		require.Nil(t, e)
		require.Equal(t, m, info.Memory)
		require.Equal(t, devs[1], info.Device)
		require.Equal(t, want, read(b))
	}
	for _, src := range mems {
		b, done, e := api.FromHost(c, src, f32Mem(true, want...).P, typeF32, []int64{4}, nil, semDuringCall)
		require.Nil(t, e)
		require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
		check(b, src)
		for _, dst := range mems {
			nb, e := api.CopyToMemory(b, dst)
			require.Nil(t, e)
			check(nb, dst)
			require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", nb))
		}
		require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
	}
}

func TestBufferFromHostStridesAndToHostLayouts(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	// 2x3 f32 stored column-major on the host: byte strides {4, 8}.
	host := f32Mem(true, 1, 4, 2, 5, 3, 6)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{2, 3}, []int64{4, 8}, semZeroCopy)
	require.Nil(t, e)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))

	_, size, e := api.ToHost(b, nil, 0, nil)
	require.Nil(t, e)
	require.Equal(t, 24, size, "NULL dst is a size query")

	dst := NewCMem(24, true)
	ev, _, e := api.ToHost(b, dst.P, 24, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{1, 2, 3, 4, 5, 6}, f32s(dst.Bytes()))

	ev, _, e = api.ToHost(b, dst.P, 24, []int64{4, 8})
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{1, 4, 2, 5, 3, 6}, f32s(dst.Bytes()))

	_, _, e = api.ToHost(b, dst.P, 8, nil)
	require.NotNil(t, e)
	require.Equal(t, codeInvalidArgument, e.Code)
	require.Contains(t, e.Msg, "PJRT_Buffer_ToHostBuffer")
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
}

func TestBadElementTypes(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	host := NewCMem(16, true)
	for _, tc := range []struct {
		typ  int
		want string
	}{{99, "unknown element type 99"}, {0, "unknown element type 0"}, {typeToken, "token"}} {
		_, _, e := api.FromHost(c, m, host.P, tc.typ, []int64{4}, nil, semDuringCall)
		require.NotNil(t, e)
		require.Equal(t, codeInvalidArgument, e.Code)
		require.Contains(t, e.Msg, tc.want)
	}
	_, _, e := api.FromHost(c, m, host.P, typeF32, []int64{-1}, nil, semDuringCall)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "negative dimension")
	_, _, e = api.FromHost(c, m, host.P, typeF32, []int64{4}, nil, 9)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "semantics")
}

func TestBufferUseAfterDelete(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	host := f32Mem(true, 1, 2)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{2}, nil, semDuringCall)
	require.Nil(t, e)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Delete", b))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Delete", b), "deleting twice is harmless")
	del, e := api.IsDeleted(b)
	require.Nil(t, e)
	require.True(t, del)

	dst := NewCMem(8, true)
	_, _, e = api.ToHost(b, dst.P, 8, nil)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "deleted")
	_, e = api.DataPointer(b)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "deleted")
	e = api.BufferCall("PJRT_Buffer_IncreaseExternalReferenceCount", b)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "deleted")
	_, e = api.CopyToDevice(b, devs[0])
	require.NotNil(t, e)

	// The ready event must not fail (the framework aborts on that); it
	// carries the error instead.
	ev, e := api.ReadyEvent(b)
	require.Nil(t, e)
	e = api.EventCall("PJRT_Event_Await", ev)
	require.NotNil(t, e)
	require.Equal(t, codeFailedPrecondition, e.Code)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", ev))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
}

func TestExternalReferenceCounts(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	host := f32Mem(true, 3, 4)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{2}, nil, semZeroCopy)
	require.Nil(t, e)
	require.Nil(t, api.BufferCall("PJRT_Buffer_IncreaseExternalReferenceCount", b))
	p, e := api.DataPointer(b)
	require.Nil(t, e)
	require.Equal(t, host.P, p)
	require.Nil(t, api.BufferCall("PJRT_Buffer_Delete", b))
	ready, _ := api.IsReady(done)
	require.False(t, ready, "an external reference keeps the memory")
	require.Nil(t, api.BufferCall("PJRT_Buffer_DecreaseExternalReferenceCount", b))
	require.Nil(t, api.EventCall("PJRT_Event_Await", done))
	e = api.BufferCall("PJRT_Buffer_DecreaseExternalReferenceCount", b)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "no external reference")
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
}

func TestEvents(t *testing.T) {
	api := Load()
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", Event{}), "destroying NULL is fine")

	ev, e := api.CreateEvent()
	require.Nil(t, e)
	ready, _ := api.IsReady(ev)
	require.False(t, ready)
	e = api.EventCall("PJRT_Event_Error", ev)
	require.NotNil(t, e, "Error before ready is refused")
	cb, e := api.OnReady(ev, false)
	require.Nil(t, e)
	require.Equal(t, 0, cb.State().Called)
	require.Nil(t, api.SetEvent(ev, 13, "worker failed"))
	require.Equal(t, EventState{Called: 1, Code: 13, Msg: "worker failed"}, cb.State())
	e = api.SetEvent(ev, 0, "")
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "already set")
	// Each query returns an independent error with the same status.
	for i := 0; i < 2; i++ {
		e = api.EventCall("PJRT_Event_Error", ev)
		require.NotNil(t, e)
		require.Equal(t, 13, e.Code)
		require.Equal(t, "worker failed", e.Msg)
	}
	// Already ready: the callback runs synchronously and destroys the event.
	cb2, e := api.OnReady(ev, true)
	require.Nil(t, e)
	require.Equal(t, EventState{Called: 1, Code: 13, Msg: "worker failed"}, cb2.State())

	ok, _ := api.CreateEvent()
	cb3, _ := api.OnReady(ok, true) // fires later and destroys the event
	require.Nil(t, api.SetEvent(ok, 0, ""))
	require.Equal(t, EventState{Called: 1}, cb3.State())
}

func TestCompileRejectsBadPrograms(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	tests := []struct {
		format string
		code   []byte
		want   string
	}{
		{"hlo", []byte("HloModule m"), `format "hlo"`},
		{"mlir", nil, "empty"},
		{"mlir", []byte("this is not bytecode"), "PJRT_Client_Compile"},
		{"mlir", []byte("ML\xefR\x06garbage"), "PJRT_Client_Compile"},
	}
	for _, tt := range tests {
		e := api.Compile(c, tt.format, tt.code)
		require.NotNil(t, e, tt.format)
		require.NotEqual(t, 0, e.Code)
		require.Contains(t, e.Msg, tt.want)
	}
}

func TestViewOfDeviceBuffer(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	ext := f32Mem(true, 9, 8, 7)
	counter := NewCounter()
	b, e := api.View(c, m, ext.P, typeF32, []int64{3}, counter)
	require.Nil(t, e)
	p, e := api.DataPointer(b)
	require.Nil(t, e)
	require.Equal(t, ext.P, p)
	dst := NewCMem(12, true)
	ev, _, e := api.ToHost(b, dst.P, 12, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{9, 8, 7}, f32s(dst.Bytes()))
	require.Equal(t, 0, counter.Value())
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
	require.Eventually(t, func() bool { return counter.Value() == 1 }, 5*time.Second, time.Millisecond)
}

func TestCopyToDevice(t *testing.T) {
	api := Load()
	c := newClient(t, api, 2)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	host := f32Mem(true, 1, 2)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{2}, nil, semDuringCall)
	require.Nil(t, e)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))
	nb, e := api.CopyToDevice(b, devs[1])
	require.Nil(t, e)
	ev, e := api.ReadyEvent(nb)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	info, _ := api.DescribeBuffer(nb)
	require.Equal(t, devs[1], info.Device)
	dst := NewCMem(8, true)
	ev, _, e = api.ToHost(nb, dst.P, 8, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{1, 2}, f32s(dst.Bytes()))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", nb))
}

// TestShortCallerStructs checks that optional fields beyond the caller's
// struct_size are neither read nor written.
func TestShortCallerStructs(t *testing.T) {
	api := Load()
	c := newClient(t, api, 2)
	devs, _ := api.Devices(c)

	// MemoryStats up to bytes_in_use only (an old framework).
	block, e := api.MemoryStatsShort(devs[0], 32)
	require.Nil(t, e)
	for i := 32; i < len(block); i++ {
		require.Equal(t, byte(0xAA), block[i], "byte %d written past struct_size", i)
	}
	block, e = api.MemoryStatsShort(devs[0], 201)
	require.Nil(t, e)
	require.Equal(t, byte(1), block[40], "peak_bytes_in_use_is_set inside the struct is set")
	require.Equal(t, byte(0), block[72], "largest_alloc_size_is_set is cleared")
	require.Equal(t, byte(0xAA), block[201])
	_, e = api.MemoryStatsShort(devs[0], 31)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "struct_size")

	// CreateViewOfDeviceBuffer without the memory field: the device decides.
	ext := f32Mem(true, 1, 2)
	b, e := api.ViewShort(c, devs[1], ext.P, typeF32, []int64{2})
	require.Nil(t, e)
	info, e := api.DescribeBuffer(b)
	require.Nil(t, e)
	require.Equal(t, devs[1], info.Device)
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
}

func TestAsyncHostToDeviceTransfer(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	tm, e := api.CreateTransfer(c, m, [][]int64{{3}, {2, 2}})
	require.Nil(t, e)
	n, sizes, e := api.TransferCounts(tm)
	require.Nil(t, e)
	require.Equal(t, 2, n)
	require.Equal(t, []int{12, 16}, sizes)
	b0, e := api.RetrieveBuffer(tm, 0)
	require.Nil(t, e)
	_, e = api.RetrieveBuffer(tm, 0)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "already retrieved")
	ev, e := api.ReadyEvent(b0)
	require.Nil(t, e)
	ready, _ := api.IsReady(ev)
	require.False(t, ready, "no data yet")
	data := f32Mem(true, 1, 2, 3)
	require.Nil(t, api.TransferData(tm, 0, data.P, 0, 8, false))
	require.Nil(t, api.TransferData(tm, 0, unsafe.Add(data.P, 8), 8, 4, true))
	awaitOK(t, api, ev)
	dst := NewCMem(12, true)
	ev, _, e = api.ToHost(b0, dst.P, 12, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{1, 2, 3}, f32s(dst.Bytes()))
	e = api.TransferData(tm, 1, data.P, 8, 12, true)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "exceeds")
	e = api.TransferData(tm, 5, data.P, 0, 4, true)
	require.NotNil(t, e)
	require.Contains(t, e.Msg, "out of range")
	require.Nil(t, api.DestroyTransfer(tm))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b0))
}

func TestDeferredCallbacks(t *testing.T) {
	api := Load()
	c := newClient(t, api, 1)
	devs, _ := api.Devices(c)
	m, _ := api.DefaultMemory(devs[0])
	host := f32Mem(true, 1, 2, 3)
	b, done, e := api.FromHost(c, m, host.P, typeF32, []int64{3}, nil, semDuringCall)
	require.Nil(t, e)
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", done))

	ev, fire, e := api.RawFuture(b, 4, 8)
	require.Nil(t, e)
	ready, _ := api.IsReady(ev)
	require.False(t, ready)
	dst := NewCMem(8, true)
	fire(dst.P, 0, "")
	awaitOK(t, api, ev)
	require.Equal(t, []float32{2, 3}, f32s(dst.Bytes()))

	ev, fire, e = api.RawFuture(b, 0, 4)
	require.Nil(t, e)
	fire(nil, 1, "cancelled by caller")
	e = api.EventCall("PJRT_Event_Await", ev)
	require.NotNil(t, e)
	require.Equal(t, 1, e.Code)
	require.Contains(t, e.Msg, "cancelled by caller")
	require.Nil(t, api.EventCall("PJRT_Event_Destroy", ev))

	nb, dep, e := api.DonateWithDependency(b)
	require.Nil(t, e)
	del, _ := api.IsDeleted(b)
	require.True(t, del)
	rev, e := api.ReadyEvent(nb)
	require.Nil(t, e)
	ready, _ = api.IsReady(rev)
	require.False(t, ready)
	dep(0, "")
	awaitOK(t, api, rev)
	out := NewCMem(12, true)
	ev, _, e = api.ToHost(nb, out.P, 12, nil)
	require.Nil(t, e)
	awaitOK(t, api, ev)
	require.Equal(t, []float32{1, 2, 3}, f32s(out.Bytes()))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", b))
	require.Nil(t, api.BufferCall("PJRT_Buffer_Destroy", nb))
}
