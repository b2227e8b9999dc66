package engine

import (
	"errors"
	"sync"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/require"

	"github.com/gojax/gojax/go/ir"
)

// memExchange joins the processes of an in-memory job: each Exchange posts
// its payload under (key, seq, sender) and waits for the others'.
type memExchange struct {
	mu   sync.Mutex
	cond *sync.Cond
	msgs map[[3]uint64][]byte
	fail error
}

func newMemExchange() *memExchange {
	m := &memExchange{msgs: map[[3]uint64][]byte{}}
	m.cond = sync.NewCond(&m.mu)
	return m
}

type memPeer struct {
	m    *memExchange
	self int
}

func (p memPeer) Exchange(key, seq uint64, payload []byte, recv map[int][]byte) error {
	m := p.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.fail != nil {
		return m.fail
	}
	m.msgs[[3]uint64{key, seq, uint64(p.self)}] = append([]byte(nil), payload...)
	m.cond.Broadcast()
	for i, dst := range recv {
		for {
			b, ok := m.msgs[[3]uint64{key, seq, uint64(i)}]
			if ok {
				if len(b) != len(dst) {
					return errors.New("wrong size")
				}
				copy(dst, b)
				break
			}
			m.cond.Wait()
		}
	}
	return nil
}

// jobClients makes the processes of a job with one device each.
func jobClients(t *testing.T, n int, m *memExchange) []*Client {
	var cs []*Client
	devs := make([]int, n)
	for i := range devs {
		devs[i] = 1
	}
	for i := 0; i < n; i++ {
		c, err := NewClient(Options{NumDevices: 1, Job: &Job{Self: i, Devices: devs, Peers: memPeer{m, i}}})
		require.NoError(t, err)
		cs = append(cs, c)
	}
	return cs
}

func localF32(t *testing.T, c *Client, vs ...float32) *Buffer {
	src := f32Bytes(vs...)
	b, _, err := BufferFromHost(c.AddressableDevices()[0].DefaultMemory(), HostBuffer{
		Data: unsafe.Pointer(&src[0]), Elem: ir.F32, Dims: []int64{int64(len(vs))},
	}, ImmutableOnlyDuringCall)
	require.NoError(t, err)
	return b
}

func TestJobDevices(t *testing.T) {
	cs := jobClients(t, 2, newMemExchange())
	c := cs[1]
	require.Equal(t, 1, c.ProcessIndex())
	require.Equal(t, 2, c.ProcessCount())
	require.Len(t, c.Devices(), 2)
	require.Equal(t, []int{0, 2048}, []int{c.Devices()[0].ID, c.Devices()[1].ID})
	require.False(t, c.Devices()[0].Addressable())
	require.Equal(t, -1, c.Devices()[0].LocalHardwareID)
	local := c.AddressableDevices()
	require.Len(t, local, 1)
	require.Equal(t, 2048, local[0].ID)
	require.Equal(t, 2048*3, c.AddressableMemories()[0].ID)
	d, err := c.LookupAddressableDevice(0)
	require.NoError(t, err)
	require.Equal(t, 2048, d.ID)
	_, err = c.LookupDevice(1)
	require.Error(t, err)
}

// Each process passes its shard; both run the global program and keep
// their own device's shard (or the whole replicated result).
func TestJobExecuteSPMD(t *testing.T) {
	for _, sharded := range []bool{false, true} {
		cs := jobClients(t, 2, newMemExchange())
		da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{0, 2048}}}
		ebo := appendVarintField(nil, 5, 2)
		ebo = appendBytesField(ebo, 9, da.Marshal())
		var outs [2][]float32
		var wg sync.WaitGroup
		for p, c := range cs {
			e, err := NewExecutable(c, &spmdDouble{outSharded: sharded}, []byte("code"), appendBytesField(nil, 3, ebo))
			require.NoError(t, err)
			require.Len(t, e.AddressableDevices(), 1)
			in := localF32(t, c, float32(2*p+1), float32(2*p+2))
			wg.Add(1)
			go func() {
				defer wg.Done()
				for run := 0; run < 3; run++ {
					o, done, err := e.Execute([][]*Buffer{{in}}, nil, ExecuteOptions{})
					require.NoError(t, err)
					require.NoError(t, done[0].Wait())
					outs[p] = readF32(t, o[0][0])
				}
			}()
		}
		wg.Wait()
		if sharded {
			require.Equal(t, []float32{2, 4}, outs[0])
			require.Equal(t, []float32{6, 8}, outs[1])
		} else {
			require.Equal(t, []float32{2, 4, 6, 8}, outs[0])
			require.Equal(t, []float32{2, 4, 6, 8}, outs[1])
		}
	}
}

// A failed exchange fails the run, naming the program.
func TestJobExchangeFailure(t *testing.T) {
	m := newMemExchange()
	m.fail = errors.New("process 1 (10.0.0.2:5): closed its connection")
	cs := jobClients(t, 2, m)
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{0, 2048}}}
	ebo := appendBytesField(appendVarintField(nil, 5, 2), 9, da.Marshal())
	e, err := NewExecutable(cs[0], &spmdDouble{}, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	o, done, err := e.Execute([][]*Buffer{{localF32(t, cs[0], 1, 2)}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	err = done[0].Wait()
	require.ErrorContains(t, err, `program "double" (run 0): exchanging argument shards`)
	require.ErrorContains(t, err, "process 1 (10.0.0.2:5)")
	require.Equal(t, CodeUnavailable, CodeOf(err))
	require.Error(t, o[0][0].ready.Wait())
}

type replicatedDouble struct{ spmdDouble }

func (p *replicatedDouble) NumReplicas() int   { return 2 }
func (p *replicatedDouble) NumPartitions() int { return 1 }

// Replicas spread over processes without SPMD partitioning are refused.
func TestJobReplicasUnimplemented(t *testing.T) {
	cs := jobClients(t, 2, newMemExchange())
	da := &DeviceAssignment{Replicas: 2, Partitions: 1, IDs: [][]int{{0}, {2048}}}
	ebo := appendBytesField(appendVarintField(appendVarintField(nil, 4, 2), 5, 1), 9, da.Marshal())
	e, err := NewExecutable(cs[0], &replicatedDouble{}, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	_, _, err = e.Execute([][]*Buffer{{localF32(t, cs[0], 1, 2, 3, 4)}}, nil, ExecuteOptions{})
	require.ErrorContains(t, err, "replicas on devices of several processes")
	require.Equal(t, CodeUnimplemented, CodeOf(err))
}

// A process with no device in a program has nothing to run.
func TestJobProgramElsewhere(t *testing.T) {
	cs := jobClients(t, 2, newMemExchange())
	da := &DeviceAssignment{Replicas: 1, Partitions: 1, IDs: [][]int{{0}}}
	ebo := appendBytesField(appendVarintField(nil, 5, 1), 9, da.Marshal())
	e, err := NewExecutable(cs[1], &replicatedDouble{}, []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	require.Empty(t, e.AddressableDevices())
	outs, events, err := e.Execute(nil, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.Empty(t, outs)
	require.Empty(t, events)
}

// jobPartitioned compiles squareAndSum for process self of a two-process
// job: partition 0 on process 0's device, partition 1 on process 1's.
func jobPartitioned(t *testing.T, c *Client) *Executable {
	da := &DeviceAssignment{Replicas: 1, Partitions: 2, IDs: [][]int{{0, 2048}}}
	ebo := appendBytesField(appendVarintField(nil, 5, 2), 9, da.Marshal())
	e, err := NewExecutable(c, squareAndSum(t, false), []byte("code"), appendBytesField(nil, 3, ebo))
	require.NoError(t, err)
	require.NotNil(t, e.parts, "the partitioner accepts the program")
	require.NotNil(t, e.parts.remote, "its collectives trade with the other process")
	return e
}

// Each process runs only its own partition's program; the sum's all_reduce
// trades the two partial sums. Runs dispatched back to back take their
// turns in run order in both processes, so their messages never mix; the
// last run is made by a second executable of the same program (as when
// JAX compiles a program again), which continues the program's run
// numbers with turns of its own.
func TestJobExecutePartitioned(t *testing.T) {
	cs := jobClients(t, 2, newMemExchange())
	before := ReadStats().PartitionedExecutions
	const runs = 4
	var sq [2][runs][]float32
	var sums [2][runs][]float32
	var wg sync.WaitGroup
	for p, c := range cs {
		first, again := jobPartitioned(t, c), jobPartitioned(t, c)
		wg.Add(1)
		go func() {
			defer wg.Done()
			var outs [][][]*Buffer
			var dones [][]*Event
			for run := 0; run < runs; run++ {
				e := first
				if run == runs-1 {
					e = again
				}
				in := localF32(t, c, float32(2*p+1+run), float32(2*p+2+run))
				o, done, err := e.Execute([][]*Buffer{{in}}, nil, ExecuteOptions{})
				require.NoError(t, err)
				outs, dones = append(outs, o), append(dones, done)
			}
			for run := range outs {
				require.NoError(t, dones[run][0].Wait())
				sq[p][run] = readF32(t, outs[run][0][0])
				sums[p][run] = readF32(t, outs[run][0][1])
			}
		}()
	}
	wg.Wait()
	for run := 0; run < runs; run++ {
		r := float32(run)
		want := func(x float32) float32 { return (x + r) * (x + r) }
		require.Equal(t, []float32{want(1), want(2)}, sq[0][run])
		require.Equal(t, []float32{want(3), want(4)}, sq[1][run])
		total := []float32{want(1) + want(2) + want(3) + want(4)}
		require.Equal(t, total, sums[0][run])
		require.Equal(t, total, sums[1][run])
	}
	require.Equal(t, before+2*runs, ReadStats().PartitionedExecutions)
}

// A peer lost in a collective fails the run with UNAVAILABLE, naming the
// collective, the program and the peer.
func TestJobPartitionedExchangeFailure(t *testing.T) {
	m := newMemExchange()
	m.fail = errors.New("process 1 (10.0.0.2:5): closed its connection")
	cs := jobClients(t, 2, m)
	e := jobPartitioned(t, cs[0])
	o, done, err := e.Execute([][]*Buffer{{localF32(t, cs[0], 1, 2)}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	err = done[0].Wait()
	require.ErrorContains(t, err, "stablehlo.all_reduce")
	require.ErrorContains(t, err, `program "main" (run 0, collective exchange 0)`)
	require.ErrorContains(t, err, "process 1 (10.0.0.2:5)")
	require.Equal(t, CodeUnavailable, CodeOf(err))
	require.Error(t, o[0][0].ready.Wait())
	// The next run takes its turn and fails the same way: nothing waits
	// for the failed one.
	_, done, err = e.Execute([][]*Buffer{{localF32(t, cs[0], 1, 2)}}, nil, ExecuteOptions{})
	require.NoError(t, err)
	require.ErrorContains(t, done[0].Wait(), "(run 1, collective exchange 0)")
}
