package fused

import (
	"github.com/gojax/gojax/go/ir"
)

// rowProg builds a row fusion's program: where each value lives per block
// and which scratch buffers hold intermediates, a buffer going back to its
// free list once every value sharing it is read for the last time.
type rowProg struct {
	f       *rowFusionK
	body    *ir.Block
	src     map[*ir.Value]rsrc
	uses    map[*ir.Value]int // member reads still to come
	bufOf   map[*ir.Value]int // scratch buffer of a value, when it has one
	refs    []int             // per buffer: reads still to come
	bufRow  []bool            // per buffer: holds per-row values
	free    [2][]int          // free buffers: full, per-row
	maxES   int
	resOf   map[*ir.Value]int
	work    int // cost of one full element, summed over the members
	emitted []rinstr
}

func (f *rowFusionK) compile(body *ir.Block) error {
	term := body.Terminator()
	if term == nil || term.Name != "stablehlo.return" || len(term.Operands) != len(f.outBytes) {
		return f.op.Errorf("row fusion region must return its %d results", len(f.outBytes))
	}
	p := &rowProg{f: f, body: body, src: map[*ir.Value]rsrc{}, uses: map[*ir.Value]int{},
		bufOf: map[*ir.Value]int{}, resOf: map[*ir.Value]int{}, maxES: 1}
	for k, v := range term.Operands {
		if _, dup := p.resOf[v]; dup || v.Def == nil || v.Block != nil {
			return f.op.Errorf("row fusion result %d is not a distinct member value", k)
		}
		p.resOf[v] = k
	}
	members := body.Ops[:len(body.Ops)-1]
	for _, m := range members {
		for _, v := range m.Operands {
			p.uses[v]++
		}
		if t := m.Results[0].StaticTensor(); t != nil {
			p.maxES = max(p.maxES, t.Elem.ByteSize())
		}
	}
	full, rows := int64(f.rows*f.n), int64(f.rows)
	for i, a := range body.Args {
		t := a.StaticTensor()
		if t == nil {
			return f.op.Errorf("row fusion input %d is not a static tensor", i)
		}
		switch t.NumElements() {
		case full:
			p.src[a] = rsrc{loc: rlIn, idx: i, es: t.Elem.ByteSize()}
		case rows:
			p.src[a] = rsrc{loc: rlIn, idx: i, es: t.Elem.ByteSize(), row: true}
		}
	}
	for _, m := range members {
		if err := p.member(m); err != nil {
			return err
		}
	}
	if len(p.resOf) != 0 {
		return f.op.Errorf("row fusion leaves %d results unwritten", len(p.resOf))
	}
	f.prog = p.emitted
	seen := map[int]bool{}
	for _, in := range f.prog {
		for _, a := range in.args {
			if a.loc == rlIn && !a.row && !seen[a.idx] {
				seen[a.idx] = true
				f.streamed = append(f.streamed, a.idx)
			}
		}
	}
	// Chunks of about 32K cheap element-ops are worth another worker.
	f.grain = max(1, 32768/max(1, p.work*f.rpb*f.n))
	return nil
}

// dest places a member's value: straight into its result, or a buffer.
func (p *rowProg) dest(v *ir.Value, row bool) rsrc {
	es := v.Tensor().Elem.ByteSize()
	if k, ok := p.resOf[v]; ok {
		delete(p.resOf, v)
		p.src[v] = rsrc{loc: rlOut, idx: k, es: es, row: row}
		return p.src[v]
	}
	b := p.alloc(row)
	p.bufOf[v] = b
	p.refs[b] = p.uses[v]
	p.src[v] = rsrc{loc: rlBuf, idx: b, es: es, row: row}
	return p.src[v]
}

func (p *rowProg) alloc(row bool) int {
	k := 0
	if row {
		k = 1
	}
	if n := len(p.free[k]); n > 0 {
		b := p.free[k][n-1]
		p.free[k] = p.free[k][:n-1]
		return b
	}
	size := p.f.rpb * p.maxES
	if !row {
		size *= p.f.n
	}
	p.f.bufSize = append(p.f.bufSize, roundUp(size))
	p.refs = append(p.refs, 0)
	p.bufRow = append(p.bufRow, row)
	return len(p.f.bufSize) - 1
}

// release notes one read of v (after the reader's result is placed, so a
// loop never writes over its own operand).
func (p *rowProg) release(v *ir.Value) {
	b, ok := p.bufOf[v]
	if !ok {
		return
	}
	if p.refs[b]--; p.refs[b] == 0 {
		p.put(b)
	}
}

func (p *rowProg) put(b int) {
	k := 0
	if p.bufRow[b] {
		k = 1
	}
	p.free[k] = append(p.free[k], b)
}

// alias makes w read v's place; a result gets its own copy.
func (p *rowProg) alias(w, v *ir.Value, s rsrc, kind rkind) {
	if _, isRes := p.resOf[w]; isRes {
		dst := p.dest(w, s.row && kind == rkCopy)
		p.emit(rinstr{kind: kind, args: []rsrc{s}, dst: dst})
		p.release(v)
		return
	}
	if kind == rkSpread {
		s.bcast = true
	}
	p.src[w] = s
	if b, ok := p.bufOf[v]; ok {
		p.bufOf[w] = b
		p.refs[b] += p.uses[w]
	}
	p.release(v)
}

func (p *rowProg) emit(in rinstr) { p.emitted = append(p.emitted, in) }

func (p *rowProg) member(m *ir.Op) error {
	g := RowGeom{Rows: int64(p.f.rows), N: int64(p.f.n)}
	res := m.Results[0]
	rt := res.StaticTensor()
	if rt == nil {
		return m.Errorf("row fusion member has a dynamic shape")
	}
	isRow := rt.NumElements() == g.Rows
	switch m.Name {
	case "stablehlo.reduce":
		rg, ok := RowReduceGeom(m)
		s, have := p.src[m.Operands[0]]
		init := m.Operands[1]
		if !ok || rg != g || !have || s.row && !s.bcast || init.Block != p.body || init.Def != nil {
			return m.Errorf("unsupported reduction in row fusion")
		}
		red, _ := rowReduceLoop(m, init.StaticTensor().Elem, p.f.n)
		tmp := -1
		if s.bcast {
			// Reducing a spread value: write it out along the rows first.
			tmp = p.alloc(false)
			t := rsrc{loc: rlBuf, idx: tmp, es: s.es}
			p.emit(rinstr{kind: rkSpread, args: []rsrc{s}, dst: t})
			s = t
		}
		dst := p.dest(res, true)
		p.emit(rinstr{kind: rkReduce, red: red, init: init.Index, args: []rsrc{s}, dst: dst})
		if tmp >= 0 {
			p.put(tmp)
		}
		p.release(m.Operands[0])
		p.work++
		return nil
	case "stablehlo.broadcast_in_dim":
		v := m.Operands[0]
		if s, ok := p.src[v]; ok && v.Def != nil {
			switch RowBroadcast(m, g) {
			case BcastSpread:
				p.alias(res, v, s, rkSpread)
				return nil
			case BcastReshape:
				p.alias(res, v, s, rkCopy)
				return nil
			}
			return m.Errorf("unsupported broadcast in row fusion")
		}
		if v.Block != p.body || v.Def != nil {
			return m.Errorf("unsupported broadcast in row fusion")
		}
		bm, ok := broadcastMap(m)
		if !ok {
			return m.Errorf("unsupported broadcast in row fusion")
		}
		ld := fload{in: v.Index, es: rt.Elem.ByteSize(), fill: v.StaticTensor().NumElements() == 1}
		ld.dims, ld.strides = collapse(bm)
		p.emit(rinstr{kind: rkLoad, ld: ld, dst: p.dest(res, isRow)})
		return nil
	case "stablehlo.reshape", "stablehlo.bitcast_convert":
		if s, ok := p.src[m.Operands[0]]; ok && !s.bcast && Relabels(m) {
			p.alias(res, m.Operands[0], s, rkCopy)
			return nil
		}
	}
	return p.elementwise(m, isRow)
}

func (p *rowProg) elementwise(m *ir.Op, isRow bool) error {
	in := rinstr{kind: rkElem, sArg: -1, nd: fnode{op: m, es: m.Results[0].Tensor().Elem.ByteSize(), out: -1, res: -1}}
	var temps []int
	for j, v := range m.Operands {
		s, ok := p.src[v]
		if !ok {
			t := v.StaticTensor()
			if v.Block != p.body || v.Def != nil || t == nil || t.NumElements() != 1 {
				return m.Errorf("row fusion operand %d has an unsupported shape", j)
			}
			// A rank-0 select/clamp operand: filled per block.
			b := p.alloc(isRow)
			temps = append(temps, b)
			s = rsrc{loc: rlBuf, idx: b, es: t.Elem.ByteSize(), row: isRow}
			p.emit(rinstr{kind: rkLoad, ld: fload{in: v.Index, es: s.es, fill: true}, dst: s})
		}
		a := fsrc{es: s.es}
		if s.bcast {
			a.gather = 1 // lets resolve offer the scalar loop
		}
		in.nd.args = append(in.nd.args, a)
		in.args = append(in.args, s)
	}
	if err := in.nd.resolve(); err != nil {
		return err
	}
	if nd := &in.nd; nd.f2s != nil && in.args[nd.sArg].bcast && !in.args[1-nd.sArg].bcast {
		in.sArg = nd.sArg
	}
	// Other spread operands are written out along the rows first.
	for j, s := range in.args {
		if s.bcast && j != in.sArg {
			b := p.alloc(false)
			temps = append(temps, b)
			t := rsrc{loc: rlBuf, idx: b, es: s.es}
			p.emit(rinstr{kind: rkSpread, args: []rsrc{s}, dst: t})
			in.args[j] = t
		}
	}
	k, isRes := p.resOf[m.Results[0]]
	if isRes && !isRow && p.f.outBytes[k] >= rowStreamMin {
		// A large result: computed in scratch, then streamed out.
		delete(p.resOf, m.Results[0])
		in.dst = p.dest(m.Results[0], false)
		p.emit(in)
		p.emit(rinstr{kind: rkStream, args: []rsrc{in.dst}, dst: rsrc{loc: rlOut, idx: k, es: in.dst.es}})
		p.f.streams = true
		if p.uses[m.Results[0]] == 0 {
			p.put(in.dst.idx)
		}
	} else {
		in.dst = p.dest(m.Results[0], isRow)
		p.emit(in)
	}
	for _, b := range temps {
		p.put(b)
	}
	for _, v := range m.Operands {
		p.release(v)
	}
	if !isRow {
		p.work += in.nd.cost()
	}
	return nil
}
