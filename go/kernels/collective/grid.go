package collective

import (
	"sync"

	"github.com/gojax/gojax/go/ir"
	"github.com/gojax/gojax/go/kernels/kernel"
)

// Processes and how collectives name them (StableHLO spec, "Distributed
// execution"). A run has num_replicas x num_partitions processes; process
// (r, p) has the flat id r*num_partitions + p, which is its kernel.Partition
// Self. A manual computation's partitions are one replica (kernel.Partition
// alone says so); a multi-process run of whole programs (the conformance
// runner's interpreter.run_parallel) registers its grid with RegisterGrid.
//
// An op's ids mean, by channel_id > 0 (channel) and use_global_device_ids
// (global):
//   - cross_replica (no channel; all_to_all, collective_permute and
//     collective_broadcast: no channel): ids are replicas, and a group holds
//     those replicas' processes of this process's partition;
//   - cross_partition (all_to_all, collective_permute, collective_broadcast
//     with a channel): ids are partitions of this process's replica;
//   - cross_replica_and_partition (channel, not global): ids are replicas,
//     and a group holds every partition of those replicas, in the order
//     (r0, p0), (r1, p0), ..., (r0, p1), ... (partition-major);
//   - flattened_ids (channel and global): ids are flat process ids.

// Grid is the shape of a multi-process run.
type Grid struct{ Replicas, Partitions int }

var grids sync.Map // *kernel.Rendezvous -> Grid

// RegisterGrid declares that the processes meeting at meet form a grid of
// g.Replicas x g.Partitions processes (meet must have been made for that
// many). Programs compiled for those processes afterwards see replica and
// partition ids accordingly. release forgets the registration.
func RegisterGrid(meet *kernel.Rendezvous, g Grid) (release func()) {
	grids.Store(meet, g)
	return func() { grids.Delete(meet) }
}

// proc is the process an op is compiled for.
type proc struct {
	part                 *kernel.Partition // nil: the single process
	replicas, partitions int
	replica, partition   int
}

func (p proc) id(r, q int) int { return r*p.partitions + q }

func procOf(ctx kernel.Context) proc {
	part := partitionOf(ctx)
	if part == nil {
		return proc{replicas: 1, partitions: 1}
	}
	if g, ok := grids.Load(part.Meet); ok && part.Meet != nil {
		g := g.(Grid)
		return proc{part: part, replicas: g.Replicas, partitions: g.Partitions,
			replica: part.Self / g.Partitions, partition: part.Self % g.Partitions}
	}
	return proc{part: part, replicas: 1, partitions: part.Count, partition: part.Self}
}

type idMode int

const (
	crossReplica idMode = iota
	crossPartition
	crossReplicaAndPartition
	flattenedIDs
)

func (m idMode) String() string {
	return [...]string{"cross_replica", "cross_partition", "cross_replica_and_partition", "flattened_ids"}[m]
}

// modeOf classifies op's ids; channelOnly ops (all_to_all,
// collective_permute, collective_broadcast) only look at the channel.
func modeOf(op *ir.Op, channelOnly bool) idMode {
	id, ok := op.Attrs.Int("channel_id")
	channel := ok && id > 0
	global := false
	if g, ok := op.Attrs.Bool("use_global_device_ids"); ok && g {
		global = true
	}
	if _, unit := op.Attrs["use_global_device_ids"].(ir.UnitAttr); unit {
		global = true
	}
	switch {
	case channelOnly && channel:
		return crossPartition
	case channelOnly:
		return crossReplica
	case global:
		return flattenedIDs
	case channel:
		return crossReplicaAndPartition
	}
	return crossReplica
}

// limit is how many ids the mode names.
func (p proc) limit(m idMode) int {
	switch m {
	case crossReplica, crossReplicaAndPartition:
		return p.replicas
	case crossPartition:
		return p.partitions
	}
	return p.replicas * p.partitions
}

// mine is this process's id in the mode's terms.
func (p proc) mine(m idMode) int {
	switch m {
	case crossReplica, crossReplicaAndPartition:
		return p.replica
	case crossPartition:
		return p.partition
	}
	return p.id(p.replica, p.partition)
}

// members turns a group of mode ids holding this process into flat process
// ids, in the spec's order.
func (p proc) members(m idMode, group []int) []int {
	var out []int
	if m == crossReplicaAndPartition { // partition-major, as the spec's Python
		for q := 0; q < p.partitions; q++ {
			for _, g := range group {
				out = append(out, p.id(g, q))
			}
		}
		return out
	}
	for _, g := range group {
		switch m {
		case crossReplica:
			out = append(out, p.id(g, p.partition))
		case crossPartition:
			out = append(out, p.id(p.replica, g))
		default:
			out = append(out, g)
		}
	}
	return out
}

// describe names the process set for error messages.
func (p proc) describe(m idMode) string {
	if p.part == nil {
		return "gojax runs a single process here (num_replicas = 1; partitions only inside a manual computation)"
	}
	switch m {
	case crossReplica, crossReplicaAndPartition:
		return "ids name replicas (" + m.String() + ")"
	case crossPartition:
		return "ids name partitions (" + m.String() + ")"
	}
	return "ids name processes (" + m.String() + ")"
}
