package vhlo

import (
	"github.com/gojax/gojax/go/mlirbc"
)

// irCounts is what converting a list of generic ops allocates.
type irCounts struct{ ops, refs, blockOps, regions, blocks int }

// count adds up the ops and operand/result/argument pointers of ops and of
// their regions, loading lazy regions (which converting them does anyway).
// A region that fails to load is not counted; converting its op loads it
// again and reports the error in order.
func (c *irCounts) count(ops []*mlirbc.Op) {
	for _, op := range ops {
		if op.Lazy() {
			if err := op.Load(); err != nil {
				continue
			}
		}
		c.ops++
		c.refs += len(op.Results()) + len(op.Operands())
		c.regions += len(op.Regions)
		for _, r := range op.Regions {
			c.blocks += len(r.Blocks)
			for _, b := range r.Blocks {
				c.blockOps += len(b.Ops)
				c.refs += len(b.Args)
				c.count(b.Ops)
			}
		}
	}
}

// reserve makes room for c in the decoder's slabs: a function's ops,
// values and operand lists then cost a few allocations and no slack.
func (d *decoder) reserve(c irCounts) {
	d.ops.Reserve(c.ops)
	d.refs.Reserve(c.refs)
	d.blockOps.Reserve(c.blockOps)
	d.regions.Reserve(c.regions)
	d.regionRefs.Reserve(c.regions)
	d.blocks.Reserve(c.blocks)
	d.blockRefs.Reserve(c.blocks)
}

// loadBody loads a function's body. Read whole (no region inside left
// lazy), the file's counts give what converting it allocates, and counted
// is set. A body with a malformed region inside is read again lazily, so
// that the errors come in the order converting its ops meets them.
func (d *decoder) loadBody(fn *mlirbc.Op) (n irCounts, counted bool, err error) {
	if fn.Lazy() {
		before := d.f.Counts()
		if fn.LoadDeep() == nil {
			after := d.f.Counts()
			ops := after.Ops - before.Ops
			// Every op sits in a block; every id is a result, an operand
			// or a block argument: one ir pointer each.
			return irCounts{ops: ops, blockOps: ops, refs: after.IDs - before.IDs,
				regions: after.Regions - before.Regions, blocks: after.Blocks - before.Blocks}, true, nil
		}
	}
	return irCounts{}, false, fn.Load()
}
