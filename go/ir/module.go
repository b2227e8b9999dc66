package ir

// Func is a function of the module. Its body has one block whose arguments are
// the parameters and whose terminator is "func.return".
type Func struct {
	Name       string
	Visibility string // "public" (or ""), "private" or "nested"
	Type       FuncType
	ArgAttrs   []Attrs // per argument (e.g. tf.aliasing_output, jax.buffer_donor, mhlo.sharding)
	ResAttrs   []Attrs // per result
	Body       *Region
	Loc        *Location // nil when unknown
}

// Module is a whole program.
type Module struct {
	Funcs []*Func
	Attrs Attrs // module attributes (mhlo.num_partitions, mhlo.num_replicas, sdy meshes, …)
	// Producer is the bytecode producer string, e.g. "StableHLO_v1.13.0".
	Producer string
	// Ops outside functions that gojax keeps for reference (e.g. sdy.mesh).
	Globals []*Op
}

// Func returns the function with the given name, or nil.
func (m *Module) Func(name string) *Func {
	for _, f := range m.Funcs {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// Main returns the entry function: "main" if present, else the only public function.
func (m *Module) Main() *Func {
	if f := m.Func("main"); f != nil {
		return f
	}
	var pub *Func
	for _, f := range m.Funcs {
		if f.Visibility != "private" {
			if pub != nil {
				return nil
			}
			pub = f
		}
	}
	return pub
}

// Entry returns the body block of the function.
func (f *Func) Entry() *Block { return f.Body.Blocks[0] }
