package engine

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/compiler"
	"github.com/gojax/gojax/go/devmem"
	"github.com/gojax/gojax/go/ir"
)

func newTestClient(t testing.TB, n int) *Client {
	t.Helper()
	c, err := NewClient(Options{NumDevices: n})
	require.NoError(t, err)
	return c
}

func f32Bytes(vs ...float32) []byte {
	b := make([]byte, 4*len(vs))
	for i, v := range vs {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return b
}

func f32s(b []byte) []float32 {
	out := make([]float32, len(b)/4)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out
}

func hostF32(t testing.TB, c *Client, vs ...float32) *Buffer {
	t.Helper()
	src := f32Bytes(vs...)
	b, done, err := BufferFromHost(c.Devices()[0].DefaultMemory(), HostBuffer{
		Data: unsafe.Pointer(&src[0]), Elem: ir.F32, Dims: []int64{int64(len(vs))},
	}, ImmutableOnlyDuringCall)
	require.NoError(t, err)
	require.True(t, done.IsReady())
	return b
}

func readF32(t *testing.T, b *Buffer) []float32 {
	t.Helper()
	dst := make([]byte, b.ByteSize())
	ev, err := b.ToHost(unsafe.Pointer(unsafe.SliceData(dst)), int64(len(dst)), nil)
	require.NoError(t, err)
	require.NoError(t, ev.Wait())
	return f32s(dst)
}

func TestNewClientDeviceCount(t *testing.T) {
	// GOJAX_NUM_DEVICES itself is parsed by package config (its tests).
	tests := []struct {
		name    string
		opt     int
		want    int
		wantErr string
	}{
		{"default", 0, DefaultNumDevices(), ""},
		{"option", 3, 3, ""},
		{"most", maxDevices, maxDevices, ""},
		{"too many", maxDevices + 1, 0, "between 1 and"},
		{"negative option", -1, 0, "between 1 and"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := NewClient(Options{NumDevices: tt.opt})
			if tt.wantErr != "" {
				require.ErrorContains(t, err, tt.wantErr)
				require.Equal(t, CodeInvalidArgument, CodeOf(err))
				return
			}
			require.NoError(t, err)
			require.Len(t, c.Devices(), tt.want)
			for i, d := range c.Devices() {
				require.Equal(t, i, d.ID)
				require.Equal(t, i, d.LocalHardwareID)
				require.Equal(t, "cpu", d.Kind())
				require.Equal(t, d, d.DefaultMemory().Device())
				require.Equal(t, []*Device{d}, d.DefaultMemory().Devices())
				require.Equal(t, "device", d.DefaultMemory().Kind())
			}
			require.Equal(t, "cpu", c.PlatformName())
			require.Equal(t, "gojax "+Version, c.PlatformVersion())
			_, err = c.LookupDevice(tt.want)
			require.Error(t, err)
		})
	}
}

func TestEventOnReadyOrderAndReentrancy(t *testing.T) {
	e := NewEvent()
	var got []string
	e.OnReady(func(err error) { got = append(got, "before:"+errString(err)) })
	require.False(t, e.IsReady())
	require.True(t, e.Set(errors.New("boom")))
	require.False(t, e.Set(nil), "second Set must be refused")
	require.True(t, e.IsReady())
	// Already fired: runs synchronously, and may call back into the event.
	e.OnReady(func(err error) {
		got = append(got, "after:"+errString(err))
		require.True(t, e.IsReady())
		require.EqualError(t, e.Err(), "boom")
	})
	require.Equal(t, []string{"before:boom", "after:boom"}, got)
	require.EqualError(t, e.Wait(), "boom")
}

// waitFor waits for an event with a timeout.
func waitFor(e *Event) error {
	select {
	case <-e.Done():
		return e.Err()
	case <-time.After(5 * time.Second):
		return errors.New("event did not fire")
	}
}

func errString(err error) string {
	if err == nil {
		return "ok"
	}
	return err.Error()
}

func TestBufferFromHostZeroCopyAliases(t *testing.T) {
	c := newTestClient(t, 1)
	host, err := devmem.Alloc(16) // 64-byte aligned, like a NumPy allocation
	require.NoError(t, err)
	defer devmem.Free(host)
	copy(host, f32Bytes(1, 2, 3, 4))
	b, done, err := BufferFromHost(c.Devices()[0].DefaultMemory(), HostBuffer{
		Data: unsafe.Pointer(&host[0]), Elem: ir.F32, Dims: []int64{4},
	}, ImmutableZeroCopy)
	require.NoError(t, err)
	p, err := b.Pointer()
	require.NoError(t, err)
	require.Equal(t, unsafe.Pointer(&host[0]), p, "aligned dense data must be aliased")
	require.False(t, done.IsReady(), "host memory is in use until the buffer goes away")
	require.NoError(t, b.IncExternalRef())
	b.Delete()
	require.True(t, b.IsDeleted())
	require.False(t, done.IsReady(), "external reference keeps the host memory")
	require.NoError(t, b.DecExternalRef())
	require.NoError(t, waitFor(done))
	require.Error(t, b.DecExternalRef())
}

func TestBufferFromHostCopies(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	backing, err := devmem.Alloc(64 + 16)
	require.NoError(t, err)
	defer devmem.Free(backing)
	unaligned := backing[4:]
	copy(unaligned, f32Bytes(1, 2, 3, 4))
	tests := []struct {
		name string
		sem  HostSemantics
		ptr  unsafe.Pointer
	}{
		{"unaligned zero-copy copies", ImmutableZeroCopy, unsafe.Pointer(&unaligned[0])},
		{"during-call copies", ImmutableOnlyDuringCall, unsafe.Pointer(&unaligned[0])},
		{"until-transfer copies", ImmutableUntilTransferCompletes, unsafe.Pointer(&unaligned[0])},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, done, err := BufferFromHost(mem, HostBuffer{Data: tt.ptr, Elem: ir.F32, Dims: []int64{2, 2}}, tt.sem)
			require.NoError(t, err)
			require.True(t, done.IsReady())
			p, _ := b.Pointer()
			require.NotEqual(t, tt.ptr, p)
			require.Equal(t, []float32{1, 2, 3, 4}, readF32(t, b))
			b.Delete()
		})
	}
}

func TestBufferFromHostStrided(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	// 3x4 int32 row-major; take columns 0 and 2 (strides 16, 8) and a transposed view.
	src := make([]int32, 12)
	for i := range src {
		src[i] = int32(i)
	}
	base := unsafe.Pointer(&src[0])
	tests := []struct {
		name    string
		ptr     unsafe.Pointer
		dims    []int64
		strides []int64
		want    []int32
	}{
		{"column slice", base, []int64{3, 2}, []int64{16, 8}, []int32{0, 2, 4, 6, 8, 10}},
		{"transpose", base, []int64{4, 3}, []int64{4, 16}, []int32{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11}},
		{"negative stride", unsafe.Pointer(&src[11]), []int64{3}, []int64{-4}, []int32{11, 10, 9}},
		{"broadcast", base, []int64{2, 3}, []int64{0, 4}, []int32{0, 1, 2, 0, 1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, _, err := BufferFromHost(mem, HostBuffer{Data: tt.ptr, Elem: ir.S32, Dims: tt.dims, ByteStrides: tt.strides}, ImmutableZeroCopy)
			require.NoError(t, err)
			out := make([]int32, len(tt.want))
			ev, err := b.ToHost(unsafe.Pointer(&out[0]), int64(4*len(out)), nil)
			require.NoError(t, err)
			require.NoError(t, ev.Wait())
			require.Equal(t, tt.want, out)
		})
	}
}

func TestBufferFromHostErrors(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	x := []float32{1}
	p := unsafe.Pointer(&x[0])
	tests := []struct {
		name string
		h    HostBuffer
		sem  HostSemantics
		want string
	}{
		{"bad elem", HostBuffer{Data: p, Elem: ir.Invalid, Dims: []int64{1}}, 0, "invalid element type"},
		{"negative dim", HostBuffer{Data: p, Elem: ir.F32, Dims: []int64{-1}}, 0, "negative dimension"},
		{"nil data", HostBuffer{Data: nil, Elem: ir.F32, Dims: []int64{1}}, 0, "NULL"},
		{"stride count", HostBuffer{Data: p, Elem: ir.F32, Dims: []int64{1}, ByteStrides: []int64{4, 4}}, 0, "byte strides"},
		{"semantics", HostBuffer{Data: p, Elem: ir.F32, Dims: []int64{1}}, 7, "semantics"},
		{"huge", HostBuffer{Data: p, Elem: ir.F64, Dims: []int64{1 << 40, 1 << 40}}, 0, "too many elements"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := BufferFromHost(mem, tt.h, tt.sem)
			require.ErrorContains(t, err, tt.want)
		})
	}
}

func TestToHostLayoutsAndErrors(t *testing.T) {
	c := newTestClient(t, 1)
	b := hostF32(t, c, 1, 2, 3, 4, 5, 6)
	// Reshape view: treat as 2x3 by making a new buffer.
	src := f32Bytes(1, 2, 3, 4, 5, 6)
	b2, _, err := BufferFromHost(c.Devices()[0].DefaultMemory(), HostBuffer{Data: unsafe.Pointer(&src[0]), Elem: ir.F32, Dims: []int64{2, 3}}, ImmutableOnlyDuringCall)
	require.NoError(t, err)
	out := make([]float32, 6)
	ev, err := b2.ToHost(unsafe.Pointer(&out[0]), 24, []int64{4, 8}) // column-major host layout
	require.NoError(t, err)
	require.NoError(t, ev.Wait())
	require.Equal(t, []float32{1, 4, 2, 5, 3, 6}, out)

	_, err = b.ToHost(unsafe.Pointer(&out[0]), 8, nil)
	require.ErrorContains(t, err, "destination has 8 bytes")
	_, err = b2.ToHost(unsafe.Pointer(&out[0]), 8, []int64{4, 8})
	require.ErrorContains(t, err, "need 24 bytes")
	b.Delete()
	_, err = b.ToHost(unsafe.Pointer(&out[0]), 24, nil)
	require.ErrorContains(t, err, "deleted")
	_, err = b.Pointer()
	require.ErrorContains(t, err, "deleted")
}

func TestDeleteFreesMemoryOnce(t *testing.T) {
	c := newTestClient(t, 1)
	before := devmem.ReadStats().LiveAllocs
	b := hostF32(t, c, 1, 2)
	require.Equal(t, before+1, devmem.ReadStats().LiveAllocs)
	require.NoError(t, b.IncExternalRef())
	b.Delete()
	require.Equal(t, before+1, devmem.ReadStats().LiveAllocs, "external reference pins memory")
	require.Error(t, b.IncExternalRef(), "no new references after delete")
	require.NoError(t, b.DecExternalRef())
	require.Equal(t, before, devmem.ReadStats().LiveAllocs)
	b.Delete()
	require.Equal(t, before, devmem.ReadStats().LiveAllocs)
}

func TestCopyToMemory(t *testing.T) {
	c := newTestClient(t, 2)
	b := hostF32(t, c, 7, 8)
	nb, err := b.CopyToMemory(c.Devices()[1].DefaultMemory())
	require.NoError(t, err)
	require.Equal(t, c.Devices()[1], nb.Device())
	require.NoError(t, nb.ReadyEvent().Wait())
	require.Equal(t, []float32{7, 8}, readF32(t, nb))
	b.Delete()
	_, err = b.CopyToMemory(c.Devices()[1].DefaultMemory())
	require.ErrorContains(t, err, "deleted")
}

func TestErrorAndViewBuffers(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	eb, err := NewErrorBuffer(mem, ir.F32, false, []int64{2}, Errorf(CodeInternal, "poisoned"))
	require.NoError(t, err)
	require.ErrorContains(t, eb.ReadyEvent().Wait(), "poisoned")
	out := make([]byte, 8)
	ev, err := eb.ToHost(unsafe.Pointer(&out[0]), 8, nil)
	require.NoError(t, err)
	require.ErrorContains(t, ev.Wait(), "poisoned")

	ext := []float32{1, 2, 3}
	var deleted atomic.Int32
	vb, err := NewViewBuffer(mem, ir.F32, []int64{3}, unsafe.Pointer(&ext[0]), func() { deleted.Add(1) })
	require.NoError(t, err)
	p, err := vb.Pointer()
	require.NoError(t, err)
	require.Equal(t, unsafe.Pointer(&ext[0]), p)
	require.Equal(t, []float32{1, 2, 3}, readF32(t, vb))
	vb.Delete()
	vb.Delete()
	require.Eventually(t, func() bool { return deleted.Load() == 1 }, 5*time.Second, time.Millisecond)
	time.Sleep(10 * time.Millisecond)
	require.Equal(t, int32(1), deleted.Load(), "the hook runs once")
}

// fakeProg adds 1 to an f32 vector; it may reuse its donated input.
type fakeProg struct {
	n       int64
	donor   bool
	gate    chan struct{} // when set, Run waits on it
	fail    error
	runs    atomic.Int32
	mu      sync.Mutex // guards lastDon: runs on several devices write it
	lastDon []bool
}

// donated is the donatable flags of the last run.
func (p *fakeProg) donated() []bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lastDon
}

func (p *fakeProg) Name() string { return "add_one" }
func (p *fakeProg) Module() *ir.Module {
	f := &ir.Func{Name: "main", ArgAttrs: []ir.Attrs{{}}}
	if p.donor {
		f.ArgAttrs[0]["tf.aliasing_output"] = ir.IntAttr{Value: 0}
	}
	return &ir.Module{Funcs: []*ir.Func{f}}
}
func (p *fakeProg) InputTypes() []ir.Type  { return []ir.Type{ir.Tensor(ir.F32, p.n)} }
func (p *fakeProg) OutputTypes() []ir.Type { return []ir.Type{ir.Tensor(ir.F32, p.n)} }
func (p *fakeProg) Fingerprint() string    { return "fake" }
func (p *fakeProg) NumReplicas() int       { return 1 }
func (p *fakeProg) NumPartitions() int     { return 1 }
func (p *fakeProg) Run(args [][]byte, donatable []bool) (*compiler.RunResult, error) {
	p.runs.Add(1)
	p.mu.Lock()
	p.lastDon = append([]bool(nil), donatable...)
	p.mu.Unlock()
	if p.gate != nil {
		<-p.gate
	}
	if p.fail != nil {
		return nil, p.fail
	}
	in := f32s(args[0])
	for i := range in {
		in[i]++
	}
	if donatable[0] {
		copy(args[0], f32Bytes(in...))
		return &compiler.RunResult{Outputs: [][]byte{args[0]}, AliasOf: []int{0}}, nil
	}
	out, err := devmem.Alloc(len(args[0]))
	if err != nil {
		return nil, err
	}
	copy(out, f32Bytes(in...))
	return &compiler.RunResult{Outputs: [][]byte{out}, AliasOf: []int{-1}}, nil
}

func newFakeExec(t *testing.T, c *Client, p *fakeProg) *Executable {
	t.Helper()
	e, err := NewExecutable(c, p, []byte("code"), nil)
	require.NoError(t, err)
	return e
}

func TestExecuteRunsAsynchronously(t *testing.T) {
	c := newTestClient(t, 1)
	p := &fakeProg{n: 3, gate: make(chan struct{})}
	e := newFakeExec(t, c, p)
	x := hostF32(t, c, 1, 2, 3)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.Len(t, outs, 1)
	require.Equal(t, []int64{3}, outs[0][0].Dims(), "output shape is known before the run")
	require.False(t, done[0].IsReady())
	require.False(t, outs[0][0].ReadyEvent().IsReady())
	close(p.gate)
	require.NoError(t, done[0].Wait())
	require.Equal(t, []float32{2, 3, 4}, readF32(t, outs[0][0]))
	require.False(t, x.IsDeleted(), "not a donor parameter: input survives")
	require.Equal(t, []bool{false}, p.donated())
}

func TestExecuteDonation(t *testing.T) {
	tests := []struct {
		name        string
		donor       bool
		nonDon      []int64
		wantDeleted bool
	}{
		{"donated and reused", true, nil, true},
		{"non-donatable index", true, []int64{0}, false},
		{"program does not alias", false, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newTestClient(t, 1)
			e := newFakeExec(t, c, &fakeProg{n: 2, donor: tt.donor})
			x := hostF32(t, c, 1, 2)
			xp, err := x.Pointer()
			require.NoError(t, err)
			outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{NonDonatable: tt.nonDon})
			require.NoError(t, err)
			require.Equal(t, tt.wantDeleted, x.IsDeleted(), "donation is visible as soon as Execute returns")
			require.NoError(t, done[0].Wait())
			require.Equal(t, []float32{2, 3}, readF32(t, outs[0][0]))
			op, err := outs[0][0].Pointer()
			require.NoError(t, err)
			require.Equal(t, tt.wantDeleted, op == xp, "reused memory iff donated")
			if !tt.wantDeleted {
				require.Equal(t, []float32{1, 2}, readF32(t, x))
			}
		})
	}
}

func TestExecuteDonatedForeignMemoryIsDeletedNotReused(t *testing.T) {
	c := newTestClient(t, 1)
	e := newFakeExec(t, c, &fakeProg{n: 2, donor: true})
	host, err := devmem.Alloc(8)
	require.NoError(t, err)
	defer devmem.Free(host)
	copy(host, f32Bytes(1, 2))
	x, released, err := BufferFromHost(c.Devices()[0].DefaultMemory(), HostBuffer{
		Data: unsafe.Pointer(&host[0]), Elem: ir.F32, Dims: []int64{2},
	}, ImmutableZeroCopy)
	require.NoError(t, err)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, x.IsDeleted(), "donated parameters read as deleted")
	require.NoError(t, done[0].Wait())
	require.NoError(t, released.Wait(), "host memory is handed back after the run")
	require.Equal(t, []float32{2, 3}, readF32(t, outs[0][0]))
	require.Equal(t, []float32{1, 2}, f32s(host), "caller-owned memory is never written")
}

func TestExecuteDonationKeepsExternallyReferencedMemory(t *testing.T) {
	c := newTestClient(t, 1)
	e := newFakeExec(t, c, &fakeProg{n: 2, donor: true})
	x := hostF32(t, c, 1, 2)
	require.NoError(t, x.IncExternalRef()) // e.g. a NumPy view of x
	p, err := x.Pointer()
	require.NoError(t, err)
	outs, done, err := e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, x.IsDeleted())
	require.NoError(t, done[0].Wait())
	require.Equal(t, []float32{2, 3}, readF32(t, outs[0][0]))
	require.Equal(t, []float32{1, 2}, f32s(unsafe.Slice((*byte)(p), 8)), "the viewed memory is untouched")
	require.NoError(t, x.DecExternalRef())
}

func TestExecuteDonationWaitsForEarlierReaders(t *testing.T) {
	c := newTestClient(t, 1)
	slow := &fakeProg{n: 2, gate: make(chan struct{})}
	reader := newFakeExec(t, c, slow)
	donor := newFakeExec(t, c, &fakeProg{n: 2, donor: true})
	x := hostF32(t, c, 1, 2)
	outs1, done1, err := reader.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	outs2, done2, err := donor.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.True(t, x.IsDeleted())
	time.Sleep(20 * time.Millisecond)
	require.False(t, done2[0].IsReady(), "donor must wait while another run reads the buffer")
	close(slow.gate)
	require.NoError(t, done1[0].Wait())
	require.NoError(t, done2[0].Wait())
	require.Equal(t, []float32{2, 3}, readF32(t, outs1[0][0]))
	require.Equal(t, []float32{2, 3}, readF32(t, outs2[0][0]))
	_, _, err = donor.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "deleted or donated")
}

func TestExecuteErrors(t *testing.T) {
	c := newTestClient(t, 2)
	e := newFakeExec(t, c, &fakeProg{n: 2})
	x := hostF32(t, c, 1, 2)
	wrong := hostF32(t, c, 1, 2, 3)
	_, _, err := e.Execute([][]*Buffer{{wrong}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "expects tensor<2xf32>")
	_, _, err = e.Execute([][]*Buffer{{x, x}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "takes 1")
	_, _, err = e.Execute([][]*Buffer{{x}, {x}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "2 argument lists for 1 devices")

	failing := newFakeExec(t, c, &fakeProg{n: 2, fail: errors.New("kernel exploded")})
	outs, done, err := failing.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, done[0].Wait(), "kernel exploded")
	require.ErrorContains(t, outs[0][0].ReadyEvent().Wait(), "kernel exploded")

	bad, err := NewErrorBuffer(c.Devices()[0].DefaultMemory(), ir.F32, false, []int64{2}, errors.New("upstream failed"))
	require.NoError(t, err)
	outs, done, err = e.Execute([][]*Buffer{{bad}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, done[0].Wait(), "upstream failed")
	require.ErrorContains(t, outs[0][0].ReadyEvent().Wait(), "upstream failed")

	e.Delete()
	_, _, err = e.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "deleted")
}

func TestExecuteMultiDevice(t *testing.T) {
	c := newTestClient(t, 3)
	da := &DeviceAssignment{Replicas: 3, Partitions: 1, IDs: [][]int{{2}, {0}, {1}}}
	opts := appendBytesField(nil, 3, appendBytesField(appendVarintField(nil, 4, 3), 9, da.Marshal()))
	e, err := NewExecutable(c, &fakeProg{n: 1}, []byte("code"), opts)
	require.NoError(t, err)
	require.Equal(t, 3, e.NumReplicas())
	ids := []int{}
	for _, d := range e.AddressableDevices() {
		ids = append(ids, d.ID)
	}
	require.Equal(t, []int{2, 0, 1}, ids)
	require.Equal(t, [][2]int{{0, 0}, {1, 0}, {2, 0}}, e.LogicalIDs())
	var args [][]*Buffer
	for i := 0; i < 3; i++ {
		args = append(args, []*Buffer{hostF32(t, c, float32(i))})
	}
	outs, done, err := e.Execute(args, nil, ExecuteOptions{})
	require.NoError(t, err)
	for i := range outs {
		require.NoError(t, done[i].Wait())
		require.Equal(t, []float32{float32(i) + 1}, readF32(t, outs[i][0]))
		require.Equal(t, ids[i], outs[i][0].Device().ID)
	}
}

func TestCompileOptionsRoundTrip(t *testing.T) {
	da := &DeviceAssignment{Replicas: 2, Partitions: 2, IDs: [][]int{{0, 1}, {2, 3}}}
	ebo := appendVarintField(nil, 4, 2)
	ebo = appendVarintField(ebo, 5, 2)
	ebo = appendBytesField(ebo, 9, da.Marshal())
	opts, err := ParseCompileOptions(appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	require.Equal(t, 2, opts.NumReplicas)
	require.Equal(t, 2, opts.NumPartitions)
	require.Equal(t, da, opts.Assignment)

	_, err = ParseCompileOptions([]byte{0x1a, 0x05, 0x01})
	require.ErrorContains(t, err, "compile options")
	empty, err := ParseCompileOptions(nil)
	require.NoError(t, err)
	require.Equal(t, 1, empty.NumReplicas)
	require.Nil(t, empty.Assignment)
}

func TestCompileRoutesCompilerErrors(t *testing.T) {
	c := newTestClient(t, 1)
	_, err := Compile(c, []byte("garbage"), nil, compiler.Options{})
	require.Error(t, err)
	require.Equal(t, CodeInvalidArgument, CodeOf(err))
}

func TestSerializeRoundTripFormat(t *testing.T) {
	c := newTestClient(t, 1)
	e := newFakeExec(t, c, &fakeProg{n: 1})
	data := e.Serialize()
	require.Contains(t, string(data), "code")
	_, err := Deserialize(c, []byte("nope"), nil, compiler.Options{})
	require.ErrorContains(t, err, "not a serialized gojax executable")
	_, err = Deserialize(c, data[:len(data)-3], nil, compiler.Options{})
	require.ErrorContains(t, err, "truncated")
}

// TestDonorWaitingDoesNotStarveReaders: with one run slot, a donor whose
// inputs are ready must not hold the slot while an earlier reader (whose input
// arrives later) still needs it.
func TestDonorWaitingDoesNotStarveReaders(t *testing.T) {
	c, err := NewClient(Options{NumDevices: 1, MaxConcurrentRuns: 1})
	require.NoError(t, err)
	gate := &fakeProg{n: 2, gate: make(chan struct{})}
	producer := newFakeExec(t, c, gate)
	reader := newFakeExec(t, c, &fakeProg{n: 2})
	donor := newFakeExec(t, c, &fakeProg{n: 2, donor: true})
	x := hostF32(t, c, 1, 2)
	w := hostF32(t, c, 5, 6)
	pOut, _, err := producer.Execute([][]*Buffer{{w}}, nil, ExecuteOptions{}) // slow, holds the slot
	require.NoError(t, err)
	rOut, rDone, err := reader.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	_ = pOut
	dOut, dDone, err := donor.Execute([][]*Buffer{{x}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	close(gate.gate)
	finished := make(chan struct{})
	go func() {
		_ = rDone[0].Wait()
		_ = dDone[0].Wait()
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(5 * time.Second):
		t.Fatal("deadlock: donor and reader wait on each other")
	}
	require.Equal(t, []float32{2, 3}, readF32(t, rOut[0][0]))
	require.Equal(t, []float32{2, 3}, readF32(t, dOut[0][0]))
}

func TestHostTransfer(t *testing.T) {
	c := newTestClient(t, 1)
	mem := c.Devices()[0].DefaultMemory()
	before := devmem.ReadStats().LiveAllocs
	ht, err := NewHostTransfer(mem, []Shape{{ir.F32, []int64{3}}, {ir.S8, []int64{2}}})
	require.NoError(t, err)
	require.Equal(t, 2, ht.Len())
	n, err := ht.Size(0)
	require.NoError(t, err)
	require.Equal(t, int64(12), n)
	b0, err := ht.Retrieve(0)
	require.NoError(t, err)
	_, err = ht.Retrieve(0)
	require.ErrorContains(t, err, "already retrieved")
	require.NoError(t, ht.Write(0, f32Bytes(1, 2), 0, false))
	require.False(t, b0.ReadyEvent().IsReady())
	require.NoError(t, ht.Write(0, f32Bytes(3), 8, true))
	require.NoError(t, b0.ReadyEvent().Wait())
	require.Equal(t, []float32{1, 2, 3}, readF32(t, b0))
	require.ErrorContains(t, ht.Write(0, f32Bytes(3), 8, true), "already complete")
	require.ErrorContains(t, ht.Write(1, make([]byte, 3), 0, true), "exceeds")
	require.ErrorContains(t, ht.Write(2, nil, 0, true), "out of range")
	b1, err := ht.Retrieve(1)
	require.NoError(t, err)
	require.NoError(t, ht.SetError(1, Errorf(CodeInternal, "host side failed")))
	require.ErrorContains(t, b1.ReadyEvent().Wait(), "host side failed")
	ht.Close()
	b0.Delete()
	b1.Delete()
	require.Equal(t, before, devmem.ReadStats().LiveAllocs)

	ht2, err := NewHostTransfer(mem, []Shape{{ir.F32, []int64{2}}})
	require.NoError(t, err)
	ht2.Close()
	require.Equal(t, before, devmem.ReadStats().LiveAllocs, "unretrieved buffers are freed on Close")
}

func TestCopyRawToHostLater(t *testing.T) {
	c := newTestClient(t, 1)
	b := hostF32(t, c, 1, 2, 3)
	ev, deliver, err := b.CopyRawToHostLater(4, 8)
	require.NoError(t, err)
	require.False(t, ev.IsReady(), "nothing happens before the destination arrives")
	dst := make([]float32, 2)
	deliver(unsafe.Pointer(&dst[0]), nil)
	require.NoError(t, waitFor(ev))
	require.Equal(t, []float32{2, 3}, dst)

	ev, deliver, err = b.CopyRawToHostLater(0, 4)
	require.NoError(t, err)
	deliver(nil, errors.New("caller gave up"))
	require.ErrorContains(t, waitFor(ev), "caller gave up")
	_, _, err = b.CopyRawToHostLater(8, 8)
	require.ErrorContains(t, err, "outside buffer")
	b.Delete()
	_, _, err = b.CopyRawToHostLater(0, 4)
	require.ErrorContains(t, err, "deleted")
}

func TestDonateWithDependency(t *testing.T) {
	c := newTestClient(t, 1)
	b := hostF32(t, c, 4, 5)
	p, err := b.Pointer()
	require.NoError(t, err)
	nb, ready, err := b.DonateWithDependency()
	require.NoError(t, err)
	require.True(t, b.IsDeleted())
	require.False(t, nb.ReadyEvent().IsReady(), "waits for the dependency")
	ready(nil)
	require.NoError(t, waitFor(nb.ReadyEvent()))
	np, err := nb.Pointer()
	require.NoError(t, err)
	require.Equal(t, p, np, "memory moves, no copy")
	require.Equal(t, []float32{4, 5}, readF32(t, nb))

	pinned := hostF32(t, c, 7)
	require.NoError(t, pinned.IncExternalRef())
	_, _, err = pinned.DonateWithDependency()
	require.ErrorContains(t, err, "external references")
	require.False(t, pinned.IsDeleted())

	b2 := hostF32(t, c, 1)
	nb2, ready2, err := b2.DonateWithDependency()
	require.NoError(t, err)
	ready2(errors.New("dependency failed"))
	require.ErrorContains(t, waitFor(nb2.ReadyEvent()), "dependency failed")
	_, _, err = b2.DonateWithDependency()
	require.ErrorContains(t, err, "deleted")
}
