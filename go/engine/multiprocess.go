package engine

import (
	"encoding/binary"
	"hash/fnv"
	"slices"
	"sync"
)

// A multi-process job (Options.Job) runs an SPMD program whose devices
// belong to several processes the way one process runs it (spmd.go): every
// process runs the whole program on the global arguments and keeps the
// shards of its own devices. Before a run, each process sends the shards
// of the sharded arguments its devices hold to every other process of the
// program, so all of them assemble the same global arguments; replicated
// arguments are not sent, as each process holds them already. The cost is
// that every process computes the whole program. That is the fallback for
// programs the partitioner refuses: those it accepts run per device
// (partitioned.go), each process its own devices' programs, and only the
// collectives' contributions travel (crossRemote).

// Exchanger moves bytes between the processes of a job (package dataplane
// implements it).
type Exchanger interface {
	// Exchange sends payload to every process in recv and receives the
	// message (key, seq) of each into recv[i], whose length is the size
	// that process must send. Errors name the peer.
	Exchange(key, seq uint64, payload []byte, recv map[int][]byte) error
}

// multiprocess is the client's bookkeeping for multi-process programs.
type multiprocess struct {
	runMu sync.Mutex
	runs  map[uint64]uint64 // program key -> runs started
}

// nextRun numbers a run of the multi-process program key (0 for a program
// of this process alone). pp (nil for none) is the partitioned executable
// that makes the run: its ticket is handed out with the number, so the
// executable's runs take turns in the order of their numbers (several
// executables may share a key, each with its own turns).
func (c *Client) nextRun(key uint64, multi bool, pp *partitioned) (seq, ticket uint64) {
	if !multi {
		return 0, 0
	}
	c.runMu.Lock()
	defer c.runMu.Unlock()
	if c.runs == nil {
		c.runs = map[uint64]uint64{}
	}
	n := c.runs[key]
	c.runs[key] = n + 1
	if pp != nil {
		ticket = pp.tickets
		pp.tickets++
	}
	return n, ticket
}

// jobKey names a program bound to devices the same way in every process:
// the compiled program's fingerprint and its device assignment.
func jobKey(fingerprint string, da *DeviceAssignment) uint64 {
	h := fnv.New64a()
	h.Write([]byte(fingerprint))
	var b [8]byte
	for _, row := range da.IDs {
		for _, id := range row {
			binary.LittleEndian.PutUint64(b[:], uint64(id))
			h.Write(b[:])
		}
	}
	return h.Sum64()
}

// exchanged reports whether argument i's shards travel between processes.
func (e *Executable) exchanged(i int) bool {
	return e.spmd.args[i] != nil && isTensor(e.inTypes[i])
}

func isTensor(t any) bool {
	_, ok := t.(interface{ Rank() int })
	return ok
}

// exchangeShards sends the shards of this process's devices (args, ready)
// to the program's other processes and returns theirs: [i][j] is the shard
// of argument j held by e.remote[i] (nil for an argument not exchanged).
// Both sides lay a process's message out the same way: its devices in
// assignment order, each device's exchanged arguments in order.
func (e *Executable) exchangeShards(args [][]*Buffer, seq uint64) ([][][]byte, error) {
	var payload []byte
	for _, list := range args {
		for i, b := range list {
			if !e.exchanged(i) {
				continue
			}
			data, err := b.bytes()
			if err != nil {
				return nil, WithCode(CodeFailedPrecondition, err)
			}
			payload = append(payload, data...)
		}
	}
	sizes := map[int]int64{}
	shardBytes := make([][]int64, len(e.remote))
	for d, dev := range e.remote {
		shardBytes[d] = make([]int64, len(e.inTypes))
		for i, t := range e.inTypes {
			if !e.exchanged(i) {
				continue
			}
			st, err := shardType(e.spmd.args[i], e.spmd.mesh, t, e.remoteLogical[d][1])
			if err != nil {
				return nil, Errorf(CodeInvalidArgument, "argument %d: %v", i, err)
			}
			shardBytes[d][i] = TypeBytes(st)
			sizes[dev.ProcessIndex] += shardBytes[d][i]
		}
	}
	recv := make(map[int][]byte, len(sizes))
	for p, n := range sizes {
		recv[p] = make([]byte, n)
	}
	if err := e.client.job.Peers.Exchange(e.jobKey, seq, payload, recv); err != nil {
		return nil, Errorf(CodeUnavailable, "program %q (run %d): exchanging argument shards with the job's other processes: %v", e.Name(), seq, err)
	}
	out := make([][][]byte, len(e.remote))
	used := map[int]int64{}
	for d, dev := range e.remote {
		out[d] = make([][]byte, len(e.inTypes))
		p := dev.ProcessIndex
		for i, n := range shardBytes[d] {
			if e.exchanged(i) {
				out[d][i] = recv[p][used[p] : used[p]+n]
				used[p] += n
			}
		}
	}
	return out, nil
}

// crossRemote trades the contributions of a partitioned program's
// collectives between processes (kernel.Remote): this process sends its
// partitions' contributions, in partition order, to every other process of
// the program in one message, and receives each one's the same way. Every
// process then reduces or assembles all contributions in the order one
// process with as many devices uses, so results are bit-identical to it.
// A message is named by the program, the run and the exchange within the
// run, so runs and collectives cannot mix.
type crossRemote struct {
	e      *Executable
	local  []int         // this process's partitions, ascending
	others map[int][]int // process -> its partitions, ascending
	run    uint64        // set by runPartitioned before each run
}

func (e *Executable) newCrossRemote() *crossRemote {
	x := &crossRemote{e: e, others: map[int][]int{}}
	for d := range e.addressable {
		x.local = append(x.local, e.logical[d][1])
	}
	for d, dev := range e.remote {
		x.others[dev.ProcessIndex] = append(x.others[dev.ProcessIndex], e.remoteLogical[d][1])
	}
	slices.Sort(x.local)
	for _, ps := range x.others {
		slices.Sort(ps)
	}
	return x
}

// roundBits is how many low bits of a message's sequence number count the
// exchanges of one run; the run number takes the rest.
const roundBits = 32

func (x *crossRemote) Share(round uint64, slots [][]byte) error {
	e := x.e
	if round >= 1<<roundBits {
		return Errorf(CodeResourceExhausted, "program %q (run %d) made more than %d collective exchanges", e.Name(), x.run, uint64(1)<<roundBits)
	}
	// Every partition of an SPMD program contributes the same type, so
	// the sizes of what the peers send are known without asking them.
	size := len(slots[x.local[0]])
	payload := slots[x.local[0]]
	if len(x.local) > 1 {
		payload = make([]byte, 0, size*len(x.local))
		for _, p := range x.local {
			if len(slots[p]) != size {
				return Errorf(CodeInternal, "program %q: partitions %d and %d contribute %d and %d bytes to one collective", e.Name(), x.local[0], p, size, len(slots[p]))
			}
			payload = append(payload, slots[p]...)
		}
	}
	recv := make(map[int][]byte, len(x.others))
	for q, ps := range x.others {
		recv[q] = make([]byte, size*len(ps))
	}
	if err := e.client.job.Peers.Exchange(e.jobKey, x.run<<roundBits|round, payload, recv); err != nil {
		return Errorf(CodeUnavailable, "program %q (run %d, collective exchange %d) with the job's other processes: %v", e.Name(), x.run, round, err)
	}
	for q, ps := range x.others {
		for k, p := range ps {
			slots[p] = recv[q][k*size : (k+1)*size : (k+1)*size]
		}
	}
	return nil
}
