package engine

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/dataplane"
	"github.com/gojax/gojax/go/ir"
)

// planeClients makes the processes of a job with one device each, joined
// by a real data plane on loopback.
func planeClients(t *testing.T, n int, timeout time.Duration) ([]*Client, []*dataplane.Plane) {
	secret, err := dataplane.NewSecret()
	require.NoError(t, err)
	planes := make([]*dataplane.Plane, n)
	addrs := make([]string, n)
	for i := range planes {
		planes[i], err = dataplane.Listen(dataplane.Config{Self: i, Processes: n, Secret: secret, Timeout: timeout,
			Logf: func(string, ...any) {}}, "127.0.0.1", 0)
		require.NoError(t, err)
		addrs[i] = fmt.Sprintf("127.0.0.1:%d", planes[i].Port())
	}
	var wg sync.WaitGroup
	for _, p := range planes {
		wg.Add(1)
		go func() { defer wg.Done(); require.NoError(t, p.Connect(addrs)) }()
	}
	wg.Wait()
	t.Cleanup(func() {
		for _, p := range planes {
			p.Close()
		}
	})
	devs := make([]int, n)
	for i := range devs {
		devs[i] = 1
	}
	cs := make([]*Client, n)
	for i := range cs {
		cs[i], err = NewClient(Options{NumDevices: 1, Job: &Job{Self: i, Devices: devs, Peers: planes[i]}})
		require.NoError(t, err)
	}
	return cs, planes
}

func TestCrossHostTransfer(t *testing.T) {
	cs, _ := planeClients(t, 2, 20*time.Second)
	src := localF32(t, cs[0], 1, 2, 3)
	dst1 := int64(cs[0].Devices()[1].ID)
	events, err := cs[0].CrossHostSend([]*Buffer{src}, []int64{dst1}, []int64{42})
	require.NoError(t, err)
	// The source may be deleted while the send is under way.
	src.Delete()
	got, err := cs[1].CrossHostReceive(cs[1].AddressableDevices()[0],
		[]Shape{{Elem: ir.F32, Dims: []int64{3}}}, []int64{int64(cs[1].Devices()[0].ID)}, []int64{42})
	require.NoError(t, err)
	require.NoError(t, events[0].Wait())
	data, err := got[0].bytes()
	require.NoError(t, err)
	require.Equal(t, f32Bytes(1, 2, 3), data)

	// Another size than the sender's fails the receiving buffer, naming
	// the peer; the sender's event is fine (its bytes were handed over).
	src = localF32(t, cs[0], 1, 2, 3)
	events, err = cs[0].CrossHostSend([]*Buffer{src}, []int64{dst1}, []int64{43})
	require.NoError(t, err)
	got, err = cs[1].CrossHostReceive(cs[1].AddressableDevices()[0],
		[]Shape{{Elem: ir.F32, Dims: []int64{4}}}, []int64{0}, []int64{43})
	require.NoError(t, err)
	require.NoError(t, events[0].Wait())
	err = got[0].ReadyEvent().Wait()
	require.ErrorContains(t, err, "cross-host receive from device 0: process 0 (127.0.0.1:")
	require.ErrorContains(t, err, "sent 12 bytes, expected 16")
	require.Equal(t, CodeUnavailable, CodeOf(err))
}

func TestCrossHostTransferArguments(t *testing.T) {
	cs, _ := planeClients(t, 2, 20*time.Second)
	b := localF32(t, cs[0], 1)
	_, err := cs[0].CrossHostSend([]*Buffer{b}, []int64{0}, []int64{1})
	require.ErrorContains(t, err, "destination device 0 belongs to this process")
	_, err = cs[0].CrossHostSend([]*Buffer{b}, []int64{1}, []int64{1})
	require.ErrorContains(t, err, "no device with id 1")
	_, err = cs[0].CrossHostSend([]*Buffer{b}, nil, []int64{1})
	require.ErrorContains(t, err, "1 buffers, 0 destination devices and 1 transfer keys")
	_, err = cs[1].CrossHostReceive(cs[0].AddressableDevices()[0], []Shape{{Elem: ir.F32}}, []int64{0}, []int64{1})
	require.ErrorContains(t, err, "the receiving device must be one of this process's")

	alone, err := NewClient(Options{NumDevices: 2})
	require.NoError(t, err)
	_, err = alone.CrossHostReceive(alone.AddressableDevices()[0], []Shape{{Elem: ir.F32}}, []int64{1}, []int64{1})
	require.ErrorContains(t, err, "need a multi-process job")
}

func TestCrossHostTransferPeerExits(t *testing.T) {
	cs, planes := planeClients(t, 2, 20*time.Second)
	// One transfer first, so that the transfer connections are up when
	// process 0 goes.
	events, err := cs[0].CrossHostSend([]*Buffer{localF32(t, cs[0], 1)}, []int64{int64(cs[0].Devices()[1].ID)}, []int64{6})
	require.NoError(t, err)
	got, err := cs[1].CrossHostReceive(cs[1].AddressableDevices()[0],
		[]Shape{{Elem: ir.F32, Dims: []int64{1}}}, []int64{0}, []int64{6})
	require.NoError(t, err)
	require.NoError(t, events[0].Wait())
	require.NoError(t, got[0].ReadyEvent().Wait())
	got, err = cs[1].CrossHostReceive(cs[1].AddressableDevices()[0],
		[]Shape{{Elem: ir.BF16, Dims: []int64{2, 2}}}, []int64{0}, []int64{7})
	require.NoError(t, err)
	planes[0].Close()
	err = got[0].ReadyEvent().Wait()
	// The peer's end is seen as a closed connection or a failed write.
	require.ErrorContains(t, err, "cross-host receive from device 0: transfer 7: ")
	require.ErrorContains(t, err, "process 0 (127.0.0.1:")
	require.Equal(t, CodeUnavailable, CodeOf(err))
}
