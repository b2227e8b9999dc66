package compiler

import (
	"container/heap"
	"sort"
)

// Slot allocation: which buffer slot each group gets, packing internal
// groups whose intervals do not overlap into shared slots.

type live struct{ end, slot int }

type endHeap []live

func (h endHeap) Len() int           { return len(h) }
func (h endHeap) Less(i, j int) bool { return h[i].end < h[j].end }
func (h endHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *endHeap) Push(x any)        { *h = append(*h, x.(live)) }
func (h *endHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// freeSlots finds the free slot of smallest capacity that fits (best fit).
type freeSlots struct {
	byCap map[int][]int // capacity → free slots
	caps  []int         // capacities present in byCap, sorted
}

func (f *freeSlots) put(slot, c int) {
	if len(f.byCap[c]) == 0 {
		i := sort.SearchInts(f.caps, c)
		f.caps = append(f.caps, 0)
		copy(f.caps[i+1:], f.caps[i:])
		f.caps[i] = c
	}
	f.byCap[c] = append(f.byCap[c], slot)
}

func (f *freeSlots) take(size int) (int, bool) {
	i := sort.SearchInts(f.caps, size)
	if i == len(f.caps) {
		return 0, false
	}
	c := f.caps[i]
	list := f.byCap[c]
	s := list[len(list)-1]
	f.byCap[c] = list[:len(list)-1]
	if len(f.byCap[c]) == 0 {
		f.caps = append(f.caps[:i], f.caps[i+1:]...)
	}
	return s, true
}

// assignSlots gives each external group its own slot and packs internal
// groups by linear scan: a slot whose last value has died is reused by a
// later value of equal or smaller size (best fit).
func (b *builder) assignSlots(p *plan) {
	var internal []*group
	values := 0
	for _, g := range b.groups {
		if g.kind == slotInternal {
			values++
		}
		if g.parent != nil {
			continue
		}
		switch g.kind {
		case slotInternal:
			internal = append(internal, g)
		default:
			g.slot = p.numSlots
			p.numSlots++
		}
	}
	p.paramSlots = make([]int, len(b.top.Args))
	p.outSlots = make([]int, len(b.outGroups))
	for _, g := range b.groups {
		if g.parent != nil {
			continue
		}
		switch g.kind {
		case slotParam:
			p.paramSlots[g.index] = g.slot
		case slotOutput:
			p.outSlots[g.index] = g.slot
		case slotConst:
			p.consts = append(p.consts, constBind{g.slot, g.data})
			p.stats.ConstantBytes += int64(len(g.data))
		}
	}

	sort.SliceStable(internal, func(i, j int) bool { return internal[i].start < internal[j].start })
	var active endHeap // slots in use, by the end of their current value
	free := freeSlots{byCap: map[int][]int{}}
	var caps []int
	for _, g := range internal {
		for active.Len() > 0 && active[0].end < g.start {
			a := heap.Pop(&active).(live)
			free.put(a.slot, caps[a.slot])
		}
		if s, ok := free.take(g.size); ok {
			g.slot = s
		} else {
			g.slot = len(caps)
			caps = append(caps, g.size)
		}
		heap.Push(&active, live{g.end, g.slot})
	}
	base := p.numSlots
	for _, g := range internal {
		g.slot += base
	}
	p.numSlots += len(caps)
	p.caps = make([]int, p.numSlots)
	copy(p.caps[base:], caps)

	// Buffers move between the slots of a swap pair, so every slot connected
	// by swaps gets the largest capacity among them.
	uf := make([]int, p.numSlots)
	for i := range uf {
		uf[i] = i
	}
	var find func(int) int
	find = func(i int) int {
		for uf[i] != i {
			uf[i] = uf[uf[i]]
			i = uf[i]
		}
		return i
	}
	for _, pairs := range b.swapsOf {
		for _, s := range pairs {
			uf[find(s[0].root().slot)] = find(s[1].root().slot)
		}
	}
	maxCap := map[int]int{}
	for s, c := range p.caps {
		r := find(s)
		maxCap[r] = max(maxCap[r], c)
	}
	for s := range p.caps {
		if p.caps[s] > 0 || maxCap[find(s)] > 0 {
			p.caps[s] = maxCap[find(s)]
		}
	}
	var scratch int64
	for _, c := range p.caps {
		scratch += int64(c)
	}
	p.stats.Values = values
	p.stats.Slots = len(caps)
	p.stats.ScratchBytes = scratch
}
