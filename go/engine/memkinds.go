package engine

import "github.com/gojax/gojax/go/ir"

// memoryKindAttr is the argument and result attribute by which JAX places
// a parameter or result in a memory kind (device_put to a host kind,
// out_shardings with a memory_kind, offloaded remat residuals).
const memoryKindAttr = "mhlo.memory_kind"

// memoryKinds reads the memory kind of each parameter and result of the
// module's entry function; those without the attribute are in the default
// kind. A kind no gojax device has fails the compile, as on XLA:CPU.
func memoryKinds(m *ir.Module, nIn, nOut int) (in, out []int, err error) {
	in, out = make([]int, nIn), make([]int, nOut)
	var f *ir.Func
	if m != nil {
		f = m.Main()
	}
	if f == nil {
		return in, out, nil
	}
	read := func(what string, attrs []ir.Attrs, dst []int) error {
		for i := range dst {
			if i >= len(attrs) {
				break
			}
			kind, ok := attrs[i].Str(memoryKindAttr)
			if !ok {
				continue
			}
			k := kindIndex(kind)
			if k < 0 {
				return Errorf(CodeInvalidArgument, "%s %d has memory kind %q; gojax devices have %v", what, i, kind, MemoryKinds)
			}
			dst[i] = k
		}
		return nil
	}
	if err := read("parameter", f.ArgAttrs, in); err != nil {
		return nil, nil, err
	}
	if err := read("result", f.ResAttrs, out); err != nil {
		return nil, nil, err
	}
	return in, out, nil
}

// kindIndex is kind's index in MemoryKinds, or -1.
func kindIndex(kind string) int {
	for i, k := range MemoryKinds {
		if k == kind {
			return i
		}
	}
	return -1
}

// outMemory is the memory of device d that result i is placed in.
func (e *Executable) outMemory(d *Device, i int) *Memory { return d.memories[e.outKinds[i]] }

// ParameterMemoryKinds names each parameter's memory kind.
func (e *Executable) ParameterMemoryKinds() []string { return kindNames(e.inKinds) }

// OutputMemoryKinds names each result's memory kind.
func (e *Executable) OutputMemoryKinds() []string { return kindNames(e.outKinds) }

func kindNames(ks []int) []string {
	out := make([]string, len(ks))
	for i, k := range ks {
		out[i] = MemoryKinds[k]
	}
	return out
}

// MemoryKindIDs are the kind ids of MemoryKinds, in order.
func MemoryKindIDs() []int {
	out := make([]int, len(MemoryKinds))
	for i, k := range MemoryKinds {
		out[i] = int(kindID(k))
	}
	return out
}
