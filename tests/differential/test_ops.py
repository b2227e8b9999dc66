"""The op table (optable.py) on every listed dtype: each op jitted on gojax
and on XLA's CPU, all of its shape variants (scalars, zero-size, broadcasts)
in one program, results compared per the tolerance table (diffutil.py)."""

from __future__ import annotations

import numpy as np
import pytest

from diffutil import check, dname, make, rng_for, x64_for
from optable import ALL_TABLES

CASES = [pytest.param(op, dt, id=f"{kind}-{op.name}-{dname(dt)}")
         for kind, table in ALL_TABLES.items() for op in table for dt in op.dtypes]


def build_args(op, dt, variant):
    rng = rng_for(op.name, dname(dt), repr(variant))
    return [make(rng, shape, dt if t is None else t, dom) for shape, t, dom in variant]


@pytest.mark.parametrize("op,dt", CASES)
def test_op(op, dt):
    with x64_for(dt):
        groups = [build_args(op, dt, v) for v in op.variants]
        sizes = [len(g) for g in groups]
        flat = [a for g in groups for a in g]

        def program(*xs):
            outs, k = [], 0
            for n in sizes:
                outs.append(op.fn(*xs[k:k + n]))
                k += n
            return outs

        check(program, *flat, cls=op.cls)
