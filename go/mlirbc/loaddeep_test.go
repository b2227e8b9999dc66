package mlirbc

import (
	"os"
	"testing"

	"github.com/stretchr/testify/require"
)

// walkCounts adds up what Counts reports, walking loaded ops.
func walkCounts(ops []*Op, c *Counts) {
	for _, op := range ops {
		c.Ops++
		c.IDs += len(op.Results()) + len(op.Operands())
		c.Regions += len(op.Regions)
		for _, r := range op.Regions {
			c.Blocks += len(r.Blocks)
			for _, b := range r.Blocks {
				c.IDs += len(b.Args)
				walkCounts(b.Ops, c)
			}
		}
	}
}

func anyLazy(ops []*Op) bool {
	for _, op := range ops {
		if op.Lazy() {
			return true
		}
		for _, r := range op.Regions {
			for _, b := range r.Blocks {
				if anyLazy(b.Ops) {
					return true
				}
			}
		}
	}
	return false
}

// LoadDeep leaves nothing lazy, and the Counts it moves match the ops,
// regions, blocks and value ids it read.
func TestLoadDeepCounts(t *testing.T) {
	for _, path := range corpusFiles(t) {
		data, err := os.ReadFile(path)
		require.NoError(t, err)
		f, err := Parse(data)
		require.NoError(t, err)
		top, err := f.TopLevel(true)
		require.NoError(t, err)
		mod := top[0]
		require.NoError(t, mod.Load())
		for _, fn := range mod.Regions[0].Blocks[0].Ops {
			wasLazy := fn.Lazy() // not in formats before lazy loading
			before := f.Counts()
			require.NoError(t, fn.LoadDeep(), path)
			after := f.Counts()
			require.False(t, fn.Lazy())
			for _, r := range fn.Regions {
				for _, b := range r.Blocks {
					require.False(t, anyLazy(b.Ops), path)
				}
			}
			if !wasLazy {
				continue
			}
			var want Counts
			want.Regions = len(fn.Regions)
			for _, r := range fn.Regions {
				want.Blocks += len(r.Blocks)
				for _, b := range r.Blocks {
					want.IDs += len(b.Args)
					walkCounts(b.Ops, &want)
				}
			}
			got := Counts{Ops: after.Ops - before.Ops, Regions: after.Regions - before.Regions, Blocks: after.Blocks - before.Blocks, IDs: after.IDs - before.IDs}
			require.Equal(t, want, got, path)
		}
	}
}
