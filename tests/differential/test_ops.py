"""The op table (optable.py) on every listed dtype: each op jitted on gojax
and on XLA's CPU, compared per the tolerance table (diffutil.py).

One program per op and width class: all of the op's 8/16/32-bit dtypes (all
shape variants -- scalars, zero-size, broadcasts -- on the primary dtype,
the largest variant on the others) run inside one jitted function, and the 64-bit dtypes in a second one under enable_x64.
XLA:CPU's fixed compile cost (~0.1 s a program) is what bounds this suite's
run time, hence few larger programs; failure messages name the dtype and
variant (`float16/v1[0]`)."""

from __future__ import annotations

import numpy as np
import pytest

from diffutil import BOUND_CLASSES, assert_same, dname, dot_bounds, is_64bit, make, rng_for, run_both, x64_for
from optable import ALL_TABLES, primary_dtype


def _groups(op):
    narrow = [d for d in op.dtypes if not is_64bit(d)]
    wide = [d for d in op.dtypes if is_64bit(d)]
    return [(w, ds) for w, ds in (("32", narrow), ("64", wide)) if ds]


CASES = [pytest.param(op, dts, id=f"{kind}-{op.name}-{w}")
         for kind, table in ALL_TABLES.items() for op in table for w, dts in _groups(op)]


def build_args(op, dt, variant):
    rng = rng_for(op.name, dname(dt), repr(variant))
    return [make(rng, shape, dt if t is None else t, dom) for shape, t, dom in variant]


@pytest.mark.parametrize("op,dtypes", CASES)
def test_op(op, dtypes):
    with x64_for(*dtypes):
        keys, sizes, flat = [], [], []
        first = primary_dtype(op)
        main = max(range(len(op.variants)), key=lambda i: sum(int(np.prod(s)) for s, _, _ in op.variants[i]))
        for dt in dtypes:
            # Every shape variant (scalar, zero-size, broadcasts) on the op's
            # primary dtype; the largest variant on the others.
            variants = enumerate(op.variants) if dt is first else [(main, op.variants[main])]
            for vi, v in variants:
                args = build_args(op, dt, v)
                keys.append(f"{dname(dt)}/v{vi}")
                sizes.append(len(args))
                flat.extend(args)

        def program(*xs):
            outs, k = {}, 0
            for key, n in zip(keys, sizes):
                outs[key] = op.fn(*xs[k:k + n])
                k += n
            return outs

        got, want = run_both(program, *flat)
        bounds = dot_bounds(program, *flat) if op.cls in BOUND_CLASSES else {k: None for k in keys}
        bad = []
        for key in keys:
            try:
                assert_same(got[key], want[key], op.cls, path=key, bounds=bounds[key])
            except AssertionError as e:
                bad.append(str(e).strip())
        assert not bad, f"{len(bad)} of {len(keys)} dtype/variant programs differ:\n" + "\n\n".join(bad)
