"""Expected values for gojax's elementwise kernels, computed with XLA's CPU
backend (through jax.lax) and ml_dtypes/numpy for the narrow float formats.

Usage: oracle.py OUTDIR. Writes OUTDIR/manifest.json and one raw file per
operand/result in gojax storage layout (little endian, one byte per element
for i1 and sub-byte types, sub-byte signed ints sign-extended)."""

import json
import os
import sys
import warnings

import numpy as np
import ml_dtypes

os.environ.setdefault("JAX_PLATFORMS", "cpu")
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

jax.config.update("jax_enable_x64", True)
warnings.simplefilter("ignore")
np.seterr(all="ignore")

OUT = sys.argv[1]
os.makedirs(OUT, exist_ok=True)
cases = []
counter = [0]

INTS = {"i2": ml_dtypes.int2, "i4": ml_dtypes.int4, "i8": np.int8, "i16": np.int16,
        "i32": np.int32, "i64": np.int64, "ui2": ml_dtypes.uint2, "ui4": ml_dtypes.uint4,
        "ui8": np.uint8, "ui16": np.uint16, "ui32": np.uint32, "ui64": np.uint64}
BITS = {"i2": 2, "i4": 4, "i8": 8, "i16": 16, "i32": 32, "i64": 64,
        "ui2": 2, "ui4": 4, "ui8": 8, "ui16": 16, "ui32": 32, "ui64": 64}
FLOATS = {"bf16": ml_dtypes.bfloat16, "f16": np.float16, "f32": np.float32, "f64": np.float64}
SMALL = {"f4E2M1FN": ml_dtypes.float4_e2m1fn, "f6E2M3FN": ml_dtypes.float6_e2m3fn,
         "f6E3M2FN": ml_dtypes.float6_e3m2fn, "f8E3M4": ml_dtypes.float8_e3m4,
         "f8E4M3": ml_dtypes.float8_e4m3, "f8E4M3FN": ml_dtypes.float8_e4m3fn,
         "f8E4M3FNUZ": ml_dtypes.float8_e4m3fnuz, "f8E4M3B11FNUZ": ml_dtypes.float8_e4m3b11fnuz,
         "f8E5M2": ml_dtypes.float8_e5m2, "f8E5M2FNUZ": ml_dtypes.float8_e5m2fnuz,
         "f8E8M0FNU": ml_dtypes.float8_e8m0fnu}
SMALL_BITS = {"f4E2M1FN": 4, "f6E2M3FN": 6, "f6E3M2FN": 6}
CPLX = {"complex<f32>": np.complex64, "complex<f64>": np.complex128}
ALL = {"i1": np.bool_, **INTS, **FLOATS, **SMALL, **CPLX}

rng = np.random.default_rng(1234)


def storage(a, t):
    """Raw gojax bytes of array a of type t."""
    if t == "i1":
        return np.asarray(a).astype(np.uint8).tobytes()
    if t in INTS and BITS[t] < 8:
        return np.asarray(a).astype(np.int8 if t.startswith("i") else np.uint8).tobytes()
    return np.ascontiguousarray(np.asarray(a).astype(ALL[t])).tobytes()


def save(a, t):
    counter[0] += 1
    name = "b%05d.bin" % counter[0]
    with open(os.path.join(OUT, name), "wb") as f:
        f.write(storage(a, t))
    return {"type": t, "shape": list(np.shape(a)), "file": name}


def add_case(op, ins, out, tol="exact", attrs=None):
    """ins: list of (array, type); out: (array, type)."""
    cases.append({"op": op, "attrs": attrs or {}, "tol": tol,
                  "ins": [save(a, t) for a, t in ins], "out": save(out[0], out[1])})


def jx(f, *args):
    return np.asarray(jax.jit(f)(*[jnp.asarray(a) for a in args]))


# ---------- value sets ----------

def int_values(t):
    bits, signed = BITS[t], t.startswith("i")
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    if bits <= 4:
        return np.arange(lo, hi + 1)
    vals = {lo, lo + 1, hi, hi - 1, 0, 1, 2, 3, 7, bits - 1, bits, bits + 1, 63, 64}
    if signed:
        vals |= {-1, -2, -3, -7, -bits}
    vals |= set(int(v) for v in rng.integers(lo, hi, size=12, endpoint=True, dtype=np.int64 if signed else np.uint64))
    return np.array(sorted(v for v in vals if lo <= v <= hi), dtype=object)


def as_int(vals, t):
    return np.array([int(v) for v in vals], dtype=np.int64 if t.startswith("i") else np.uint64).astype(ALL[t]) if BITS[t] >= 8 \
        else np.array([int(v) for v in vals], dtype=np.int8).astype(ALL[t])


def float_values(t):
    dt = ALL[t]
    fi = ml_dtypes.finfo(dt)
    vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 1.5, 2.5, -2.5, 3.0, 0.1, -0.1, 7.0, 1e-3, 100.0, -100.0,
            float(fi.max), -float(fi.max), float(fi.tiny), -float(fi.tiny), np.inf, -np.inf, np.nan,
            np.pi, -np.pi, 10.5, 1e4, -0.75, 2.0, 4.0, 64.0]
    vals += list(rng.normal(size=8) * 10) + list(rng.uniform(-3, 3, size=6))
    return np.array(vals, dtype=np.float64).astype(dt)


def nondenormal(a):
    """XLA's CPU backend flushes f32/f64/bf16 subnormals: keep them out of its cases."""
    a = np.asarray(a)
    if a.dtype == np.float16:
        return np.ones(a.shape, bool)
    f = a.astype(np.float64) if not np.iscomplexobj(a) else np.abs(a)
    tiny = float(ml_dtypes.finfo(a.dtype if a.dtype != ml_dtypes.bfloat16 else np.float32).tiny) if not np.iscomplexobj(a) \
        else float(ml_dtypes.finfo(a.real.dtype).tiny)
    return ~((f != 0) & (np.abs(f) < tiny))


def pairs(a, b):
    x, y = np.meshgrid(a, b, indexing="ij")
    return x.ravel(), y.ravel()


# ---------- integers ----------

INT_BIN = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div,
           "remainder": lax.rem, "maximum": lax.max, "minimum": lax.min, "and": lax.bitwise_and,
           "or": lax.bitwise_or, "xor": lax.bitwise_xor, "shift_left": lax.shift_left,
           "shift_right_arithmetic": lax.shift_right_arithmetic,
           "shift_right_logical": lax.shift_right_logical}
INT_UN = {"negate": lax.neg, "abs": lax.abs, "sign": lax.sign, "not": lax.bitwise_not,
          "popcnt": lax.population_count, "count_leading_zeros": lax.clz}


def wrap(v, bits, signed):
    v &= (1 << bits) - 1
    if signed and v >> (bits - 1):
        v -= 1 << bits
    return v


def ipow(x, e, bits, signed):
    if e < 0:
        if x == 1:
            return 1
        if x == -1:
            return -1 if e & 1 else 1
        return 0
    return wrap(pow(x, e, 1 << bits), bits, signed)


def trunc_div(x, y):
    q = abs(x) // abs(y)
    return q if (x < 0) == (y < 0) else -q


def int_ref(name, x, y, bits, signed):
    """Python reference for one integer op (XLA semantics)."""
    m = (1 << bits) - 1
    w = lambda v: wrap(v, bits, signed)
    if name == "add":
        return w(x + y)
    if name == "subtract":
        return w(x - y)
    if name == "multiply":
        return w(x * y)
    if name == "divide":
        return w(-1) if y == 0 else w(trunc_div(x, y))
    if name == "remainder":
        return x if y == 0 else w(x - trunc_div(x, y) * y)
    if name == "maximum":
        return max(x, y)
    if name == "minimum":
        return min(x, y)
    if name == "and":
        return w(x & y)
    if name == "or":
        return w(x | y)
    if name == "xor":
        return w(x ^ y)
    s = y & m
    if name == "shift_left":
        return 0 if s >= bits else w(x << s)
    if name == "shift_right_logical":
        return 0 if s >= bits else w((x & m) >> s)
    if name == "shift_right_arithmetic":
        return w(wrap(x, bits, True) >> min(s, bits - 1))
    if name == "negate":
        return w(-x)
    if name == "abs":
        return w(abs(x))
    if name == "sign":
        return (x > 0) - (x < 0)
    if name == "not":
        return w(~x)
    if name == "popcnt":
        return bin(x & m).count("1")
    if name == "count_leading_zeros":
        return bits - (x & m).bit_length()
    raise KeyError(name)


for t in INTS:
    bits, signed = BITS[t], t.startswith("i")
    vals = int_values(t)
    a, b = pairs(vals, vals)
    A, B = as_int(a, t), as_int(b, t)
    for name, f in INT_BIN.items():
        ref = as_int([int_ref(name, int(x), int(y), bits, signed) for x, y in zip(a, b)], t)
        if bits >= 8:
            got = jx(f, A, B)
            assert (got == ref).all(), ("python reference disagrees with XLA", name, t)
        add_case(name, [(A, t), (B, t)], (ref, t))
    P = as_int([ipow(int(x), int(e), bits, signed) for x, e in zip(a, b)], t)
    add_case("power", [(A, t), (B, t)], (P, t))
    V = as_int(vals, t)
    for name, f in INT_UN.items():
        if name == "abs" and not signed:
            continue
        ref = as_int([int_ref(name, int(x), 0, bits, signed) for x in vals], t)
        if bits >= 8:
            got = jx(f, V)
            assert (got == ref).all(), ("python reference disagrees with XLA", name, t)
        add_case(name, [(V, t)], (ref, t))

# ---------- floats (f32, f64, bf16, f16 through XLA) ----------

FLOAT_BIN_EXACT = {"add": lax.add, "subtract": lax.sub, "multiply": lax.mul, "divide": lax.div,
                   "remainder": lax.rem, "maximum": lax.max, "minimum": lax.min}
FLOAT_BIN_APPROX = {"power": lax.pow, "atan2": lax.atan2}
FLOAT_UN_EXACT = {"negate": lax.neg, "abs": lax.abs, "sign": lax.sign, "floor": lax.floor,
                  "ceil": lax.ceil, "sqrt": lax.sqrt,
                  "round_nearest_afz": lambda x: lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
                  "round_nearest_even": lambda x: lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN)}
FLOAT_UN_APPROX = {"rsqrt": lax.rsqrt, "cbrt": lax.cbrt, "exponential": lax.exp,
                   "exponential_minus_one": lax.expm1, "log": lax.log, "log_plus_one": lax.log1p,
                   "logistic": lax.logistic, "tanh": lax.tanh, "cosine": lax.cos, "sine": lax.sin,
                   "tan": lax.tan}
ULPS = {"f32": 4, "f64": 4, "bf16": 4, "f16": 4}  # XLA's own f64 tanh is 3 ulps off at times

for t in FLOATS:
    vals = float_values(t)
    vals = vals[nondenormal(vals)]
    a, b = pairs(vals, vals)
    for name, f in FLOAT_BIN_EXACT.items():
        add_case(name, [(a, t), (b, t)], (jx(f, a, b), t), tol="flush")
    for name, f in FLOAT_BIN_APPROX.items():
        add_case(name, [(a, t), (b, t)], (jx(f, a, b), t), tol="ulp:%d" % ULPS[t])
    for name, f in FLOAT_UN_EXACT.items():
        add_case(name, [(vals, t)], (jx(f, vals), t), tol="flush")
    trig = vals[np.abs(vals.astype(np.float64)) <= 1e4]  # XLA's f32 range reduction is approximate beyond
    for name, f in FLOAT_UN_APPROX.items():
        v = trig if name in ("cosine", "sine", "tan") else vals
        add_case(name, [(v, t)], (jx(f, v), t), tol="ulp:%d" % ULPS[t])
    add_case("is_finite", [(vals, t)], (jx(lax.is_finite, vals), "i1"))
    if t == "f32":
        # f32 tanh evaluates XLA's rational function the way XLA does (FMA,
        # same clamp): bit for bit, densely over the range it is not ±1 or x.
        v = np.concatenate([np.linspace(-9, 9, 400001, dtype=np.float32), vals])
        add_case("tanh", [(v, t)], (jx(lax.tanh, v), t), tol="flush")
        # f32 exp evaluates XLA's Cephes polynomial the way XLA does (FMA,
        # ln 2 in two parts): bit for bit wherever XLA's result is normal
        # (XLA flushes subnormal results), densely from underflow to overflow.
        v = np.concatenate([np.linspace(-105, 90, 400001, dtype=np.float32),
                            np.random.default_rng(7).uniform(-110, 100, 200000).astype(np.float32), vals])
        add_case("exponential", [(v, t)], (jx(lax.exp, v), t), tol="flush")
    for e, m in [(5, 10), (8, 7), (4, 3), (5, 2), (8, 23), (11, 52), (2, 1), (3, 1)]:
        add_case("reduce_precision", [(vals, t)],
                 (jx(lambda x: lax.reduce_precision(x, exponent_bits=e, mantissa_bits=m), vals), t),
                 tol="flush", attrs={"exponent_bits": e, "mantissa_bits": m})

# ---------- narrow floats: through f32 with numpy, rounded back with ml_dtypes ----------

def np_max(x, y):
    r = np.where(x == y, np.where(np.signbit(x), y, x), np.maximum(x, y))
    return np.where(np.isnan(x) | np.isnan(y), np.float32(np.nan), r)


def np_min(x, y):
    r = np.where(x == y, np.where(np.signbit(x), x, y), np.minimum(x, y))
    return np.where(np.isnan(x) | np.isnan(y), np.float32(np.nan), r)


SMALL_BIN = {"add": (np.add, "exact"), "subtract": (np.subtract, "exact"),
             "multiply": (np.multiply, "exact"), "divide": (np.divide, "exact"),
             "remainder": (np.fmod, "exact"), "maximum": (np_max, "exact"),
             "minimum": (np_min, "exact"), "power": (np.power, "ulp:1"), "atan2": (np.arctan2, "ulp:1")}
SMALL_UN = {"negate": (np.negative, "exact"), "abs": (np.abs, "exact"), "sqrt": (np.sqrt, "exact"),
            "floor": (np.floor, "exact"), "ceil": (np.ceil, "exact"),
            "round_nearest_even": (np.rint, "exact"),
            "sign": (lambda x: np.where(np.isnan(x) | (x == 0), x, np.sign(x)), "exact"),
            "exponential": (np.exp, "ulp:1"), "log": (np.log, "ulp:1"), "tanh": (np.tanh, "ulp:1"),
            "logistic": (lambda x: 1 / (1 + np.exp(-x)), "ulp:1"), "cosine": (np.cos, "ulp:1"),
            "sine": (np.sin, "ulp:1"), "rsqrt": (lambda x: 1 / np.sqrt(x), "ulp:1")}


def small_codes(t):
    n = 1 << SMALL_BITS.get(t, 8)
    return np.arange(n, dtype=np.uint8).view(ALL[t])


for t, dt in SMALL.items():
    codes = small_codes(t)
    f = codes.astype(np.float32)
    # Formats without NaN turn a NaN result into a zero whose sign depends on
    # the NaN's sign bit, which hardware and libraries choose freely.
    zs = ",zsign" if t in SMALL_BITS else ""
    for name, (fn, tol) in SMALL_UN.items():
        add_case(name, [(codes, t)], (fn(f).astype(np.float32).astype(dt), t), tol=tol + zs)
    a, b = pairs(codes, codes)
    fa, fb = a.astype(np.float32), b.astype(np.float32)
    for name, (fn, tol) in SMALL_BIN.items():
        add_case(name, [(a, t), (b, t)], (fn(fa, fb).astype(np.float32).astype(dt), t), tol=tol + zs)
    for d in ["EQ", "NE", "LT", "LE", "GT", "GE"]:
        cmpf = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "LE": np.less_equal,
                "GT": np.greater, "GE": np.greater_equal}[d]
        add_case("compare", [(a, t), (b, t)], (cmpf(fa, fb), "i1"), attrs={"comparison_direction": d})
    add_case("is_finite", [(codes, t)], (np.isfinite(f), "i1"))

# ---------- complex through XLA ----------

CPLX_BIN = {"add": (lax.add, "exact"), "subtract": (lax.sub, "exact"), "multiply": (lax.mul, "rel"),
            "divide": (lax.div, "rel"), "power": (lax.pow, "rel"), "maximum": (lax.max, "exact"),
            "minimum": (lax.min, "exact")}
CPLX_UN = {"negate": lax.neg, "sqrt": lax.sqrt, "rsqrt": lax.rsqrt, "exponential": lax.exp,
           "exponential_minus_one": lax.expm1, "log": lax.log, "log_plus_one": lax.log1p,
           "cosine": lax.cos, "sine": lax.sin, "tan": lax.tan, "tanh": lax.tanh,
           "sign": lax.sign, "logistic": lax.logistic}
for t, dt in CPLX.items():
    re = rng.uniform(-4, 4, size=24)
    im = rng.uniform(-4, 4, size=24)
    z = (re + 1j * im).astype(dt)
    z = np.concatenate([z, np.array([0, 1, -1, 1j, -1j, 0.5 + 0.5j, 1e-3 + 2e-3j], dtype=dt)])
    a, b = pairs(z[:16], z[:16])
    rtol = "rel:%g" % (2e-6 if dt == np.complex64 else 1e-13)
    for name, (f, tol) in CPLX_BIN.items():
        add_case(name, [(a, t), (b, t)], (jx(f, a, b), t), tol=rtol if tol == "rel" else tol)
    for name, f in CPLX_UN.items():
        v = z[z != 0] if name in ("log", "rsqrt") else z
        add_case(name, [(v, t)], (jx(f, v), t), tol=rtol if name != "negate" else "exact")
    ft = "f32" if dt == np.complex64 else "f64"
    add_case("abs", [(z, t)], (jx(lax.abs, z), ft), tol=rtol)
    add_case("real", [(z, t)], (jx(lax.real, z), ft))
    add_case("imag", [(z, t)], (jx(lax.imag, z), ft))
    add_case("complex", [(re, ft), (im, ft)], (jx(lax.complex, re.astype(ALL[ft]), im.astype(ALL[ft])), t))
    for d in ["EQ", "NE"]:
        add_case("compare", [(a, t), (b, t)], (jx(lambda x, y: lax.eq(x, y) if d == "EQ" else lax.ne(x, y), a, b), "i1"),
                 attrs={"comparison_direction": d})

# ---------- compare, select, clamp on every XLA type ----------

CMP = {"EQ": lax.eq, "NE": lax.ne, "LT": lax.lt, "LE": lax.le, "GT": lax.gt, "GE": lax.ge}
for t in list(INTS) + list(FLOATS) + ["i1"]:
    if t == "i1":
        vals = np.array([False, True])
    elif t in INTS:
        vals = as_int(int_values(t), t)
    else:
        vals = float_values(t)
        vals = vals[nondenormal(vals)]
    a, b = pairs(vals, vals)
    for d, f in CMP.items():
        add_case("compare", [(a, t), (b, t)], (jx(f, a, b), "i1"), attrs={"comparison_direction": d})
    p = rng.integers(0, 2, size=a.shape).astype(bool)
    add_case("select", [(p, "i1"), (a, t), (b, t)], (jx(lax.select, p, a, b), t))
    if t != "i1":
        lo = np.minimum(a, b).astype(ALL[t]) if t in INTS else a
        hi = np.maximum(a, b).astype(ALL[t]) if t in INTS else b
        x = np.roll(a, 7)
        add_case("clamp", [(lo, t), (x, t), (hi, t)], (jx(lax.clamp, lo, x, hi), t),
                 tol="exact" if t in INTS else "flush")
        s_lo, s_hi = np.asarray(vals[1]), np.asarray(vals[-1])
        if t in INTS and s_lo > s_hi:
            s_lo, s_hi = s_hi, s_lo
        add_case("clamp", [(s_lo, t), (x, t), (s_hi, t)], (jx(lax.clamp, s_lo, x, s_hi), t),
                 tol="exact" if t in INTS else "flush")

# ---------- convert: every pair ----------

def source_values(t):
    if t == "i1":
        return np.array([False, True, True, False])
    if t in INTS:
        return as_int(int_values(t), t)
    if t in SMALL:
        c = small_codes(t)
        # 2^-127 is an f32 subnormal, which XLA's CPU backend flushes on the way.
        return c[1:] if t == "f8E8M0FNU" else c
    if t in CPLX:
        v = float_values("f32" if t == "complex<f32>" else "f64")
        return (v + 1j * v[::-1]).astype(ALL[t])
    v = float_values(t)
    extra = np.array([2.5e9, -2.5e9, 3e18, -3e18, 1e19, 300.7, -300.7, 65519.0, 65520.0, 448.0, 464.0,
                      240.0, 57344.0, 61440.0, 0.0625, 3.0517578125e-05, 1.1754944e-38, 5.9604645e-08,
                      0.004, -6.5, 7.25, 28.5, 30.0, 2**-126, 2**-127, 2**-140], np.float64)
    return np.concatenate([v, extra.astype(ALL[t])])


def to_f32_exact(x, t):
    return x.astype(np.float32)


def convert_expected(x, s, d):
    """Expected convert(x: s) -> d, plus the tolerance mode."""
    if s in SMALL or d in SMALL:
        if s in CPLX:
            x = np.real(x)
            s = "f32" if s == "complex<f32>" else "f64"
        if s in SMALL:
            f = x.astype(np.float32)  # exact
            if d in SMALL:
                return f.astype(ALL[d])
            return convert_expected(f, "f32", d)
        # d is narrow, s is not
        if s in FLOATS and s != "f64" or s in INTS or s == "i1":
            if s in INTS or s == "i1":
                return np.asarray(x).astype(np.float64).astype(ALL[d])
            return x.astype(np.float32).astype(ALL[d])
        if d.startswith("f8") and d != "f8E8M0FNU":
            return jx(lambda v: lax.convert_element_type(v, ALL[d]), x)  # XLA: f64 rounds directly
        return x.astype(np.float32).astype(ALL[d])  # callers keep f64 values exact in f32
    return jx(lambda v: lax.convert_element_type(v, ALL[d]), x)


for s in ALL:
    x = source_values(s)
    if s in FLOATS or s in CPLX:
        x = x[nondenormal(x)]
    for d in ALL:
        xs = x
        if s in ("f64", "complex<f64>") and (d in ("f4E2M1FN", "f6E2M3FN", "f6E3M2FN", "f8E8M0FNU")):
            xs = x.astype(np.complex64 if s == "complex<f64>" else np.float32).astype(ALL[s])
        try:
            y = convert_expected(xs, s, d)
        except Exception as e:  # a pair XLA cannot convert: nothing to compare with
            print("skip convert", s, d, str(e)[:80], file=sys.stderr)
            continue
        tol = "flush" if d in ("f32", "f64", "bf16", "complex<f32>", "complex<f64>") else "exact"
        add_case("convert", [(xs, s)], (y, d), tol=tol)

# ---------- f32 -> narrow formats at ties and on random bits (ml_dtypes) ----------

for t, dt in list(SMALL.items()) + [("bf16", ml_dtypes.bfloat16), ("f16", np.float16)]:
    if t in SMALL:
        v = np.sort(np.unique(small_codes(t).astype(np.float64)))
        v = v[np.isfinite(v)]
        mids = (v[:-1] + v[1:]) / 2
        x = np.concatenate([mids, np.nextafter(mids.astype(np.float32), np.float32(np.inf)).astype(np.float64),
                            np.nextafter(mids.astype(np.float32), np.float32(-np.inf)).astype(np.float64)]).astype(np.float32)
    else:
        x = rng.integers(0, 2**32, size=20000, dtype=np.uint64).astype(np.uint32).view(np.float32)
        x = x[nondenormal(x) | (t == "f16")]
    x = np.concatenate([x, rng.integers(0, 2**32, size=4000, dtype=np.uint64).astype(np.uint32).view(np.float32)])
    add_case("convert", [(x, "f32")], (x.astype(dt), t), tol="exact")

# ---------- bitcast_convert ----------

bc = [("f32", "i32"), ("i32", "f32"), ("f64", "ui64"), ("bf16", "i16"), ("f16", "ui16"),
      ("f32", "ui8"), ("ui8", "f32"), ("ui8", "ui4"), ("ui4", "ui8"), ("i8", "i4"), ("i4", "i8"),
      ("i16", "ui8"), ("f64", "f32"), ("f32", "f64"), ("f8E4M3FN", "i8"), ("i8", "f8E5M2"),
      ("complex<f32>", "f64"), ("i64", "i4"), ("ui16", "i2")]
for s, d in bc:
    x = source_values(s)
    sb, db = np.dtype(ALL[s]).itemsize * 8, np.dtype(ALL[d]).itemsize * 8
    if s in INTS:
        sb = BITS[s]
    if d in INTS:
        db = BITS[d]
    if sb < db:
        k = db // sb
        x = x[: (len(x) // k) * k].reshape(-1, k)
    try:
        y = jx(lambda v: lax.bitcast_convert_type(v, ALL[d]), x)
    except Exception as e:
        print("skip bitcast", s, d, str(e)[:80], file=sys.stderr)
        continue
    add_case("bitcast_convert", [(x, s)], (y, d), tol="bits")

with open(os.path.join(OUT, "manifest.json"), "w") as f:
    json.dump(cases, f)
print(len(cases), "cases", file=sys.stderr)
