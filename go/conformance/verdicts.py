"""Which is closer to the true value: gojax or XLA (the corpus' expected)?

For testdata cases that fail only by numerics (most disabled upstream as
"inaccurate"), this computes the exact result (fractions.Fraction) or an
extended-precision one (numpy longdouble, 64-bit mantissa on x86) and
measures, per output component, the error of gojax's output (dumped by
TestDumpOutputs) and of the expected values in ULPs of the output type.

Usage:
  GOJAX_CONFORMANCE_DUMP=/tmp/dump go test ./go/conformance -run TestDumpOutputs -case NAME
  python verdicts.py --dump /tmp/dump NAME...
(--src defaults to testdata/stablehlo/testdata at the repository root)

Round-trip cases (roundtrip.py: f32 programs checked against XLA:CPU) use
the same program run by XLA in f64 as the reference.
"""
import argparse
import os
import re
from fractions import Fraction as Fr

import numpy as np

# The corpus in the repository's test data, found from this file (go/conformance/).
DEFAULT_SRC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..",
                           "testdata", "stablehlo", "testdata")

LD = np.longdouble
CLD = np.clongdouble
DT = {"f32": "<f4", "f64": "<f8", "complex<f32>": "<c8", "complex<f64>": "<c16"}
CONST_RE = re.compile(r"stablehlo\.constant dense<(.*?)> : tensor<([0-9x]+)x(f32|f64|complex<f32>|complex<f64>)>")


def constants(path):
  """Non-scalar float constants in file order (inputs, then expected)."""
  out = []
  for body, shape, et in CONST_RE.findall(open(path).read()):
    shp = [int(d) for d in shape.split("x")]
    if body.startswith('"0x'):
      a = np.frombuffer(bytes.fromhex(body[3:-1]), dtype=DT[et])
    else:
      txt = re.sub(r"\(([^,()]+),([^()]+)\)", r"complex(\1,\2)", body)
      a = np.array(eval(txt), dtype=DT[et])
    out.append(a.reshape(shp))
  return out


def ulps(a, exact, dt):
  """|a - exact| in ULPs of dt at exact (per real component)."""
  a = np.asarray(a)
  if np.iscomplexobj(a):
    return np.maximum(ulps(a.real, np.real(exact), dt), ulps(a.imag, np.imag(exact), dt))
  ex = np.asarray(exact, dtype=LD)
  rounded = ex.astype(dt)
  spacing = np.spacing(np.abs(rounded)).astype(LD)
  spacing = np.where(spacing == 0, np.finfo(dt).smallest_subnormal, spacing)
  return np.abs(a.astype(LD) - ex) / spacing


def exact_conv(lhs, rhs):  # feature_group_count 3, rhs_dilate 2, [b,f,0]x[o,i,0]
  b, _, w = lhs.shape
  o, _, k = rhs.shape
  ow = w - 2 * (k - 1)
  out = np.empty((b, o, ow), dtype=LD)
  for bi in range(b):
    for oi in range(o):
      g = oi // (o // 3)
      for x in range(ow):
        out[bi, oi, x] = LD(sum((Fr(float(lhs[bi, g, x + 2 * j])) * Fr(float(rhs[oi, 0, j])) for j in range(k)), Fr(0)))
  return out


def exact_cumprod(x):  # along dim 0, complex, exact rationals
  out = np.empty(x.shape, dtype=CLD)
  for c in range(x.shape[1]):
    re_, im = Fr(1), Fr(0)
    for r in range(x.shape[0]):
      a, b = Fr(float(x[r, c].real)), Fr(float(x[r, c].imag))
      re_, im = re_ * a - im * b, re_ * b + im * a
      out[r, c] = CLD(LD(re_)) + CLD(1j) * LD(im)
  return out


def dft_matrix(n, m, sign):  # e^{sign 2 pi i k j / n}, k < m rows
  k = np.arange(m, dtype=LD)[:, None] * np.arange(n, dtype=LD)[None, :]
  ang = sign * 2 * LD(np.pi) * k / n
  ang = (np.mod(k, n) * sign * 2 * np.arccos(LD(-1))) / n
  return np.cos(ang) + CLD(1j) * np.sin(ang)


def exact_rfft(x, n):
  m = n // 2 + 1
  return x.astype(LD) @ dft_matrix(n, m, -1).T


def exact_irfft_last(X, n):
  """c2r along the last axis: Hermitian extension of X[..., :n//2+1]."""
  X = X.astype(CLD)
  m = X.shape[-1]
  ks = np.arange(m)
  w = np.where((ks == 0) | ((n % 2 == 0) & (ks == n // 2)), 1, 2).astype(LD)
  Xr = X.real.copy()
  Xi = X.imag.copy()
  # imaginary parts of the DC (and Nyquist) bins do not contribute
  Xi[..., 0] = 0
  if n % 2 == 0:
    Xi[..., n // 2] = 0
  k = np.arange(m, dtype=LD)[:, None] * np.arange(n, dtype=LD)[None, :]
  ang = (np.mod(k, n) * 2 * np.arccos(LD(-1))) / n
  C, S = np.cos(ang) * w[:, None], np.sin(ang) * w[:, None]
  return (Xr @ C - Xi @ S) / n


def exact_ifft_axis(X, axis):
  n = X.shape[axis]
  M = dft_matrix(n, n, +1) / n
  return np.moveaxis(np.moveaxis(X.astype(CLD), axis, -1) @ M.T, -1, axis)


def exact_pow(a, b):
  a, b = a.astype(CLD), b.astype(CLD)
  la = np.log(np.abs(a)) + CLD(1j) * np.arctan2(a.imag.astype(LD), a.real.astype(LD))
  return np.exp(b * la)


def exact_sin(z):
  x, y = z.real.astype(LD), z.imag.astype(LD)
  return np.sin(x) * np.cosh(y) + CLD(1j) * (np.cos(x) * np.sinh(y))


def exact_trsm_right_upper(a, b):  # X A = B, A upper triangular
  out = np.empty(b.shape, dtype=LD)
  for bi in range(a.shape[0]):
    A = [[Fr(float(v)) for v in row] for row in a[bi]]
    for r in range(b.shape[1]):
      x = []
      for j in range(a.shape[1]):
        s = Fr(float(b[bi, r, j])) - sum((x[i] * A[i][j] for i in range(j)), Fr(0))
        x.append(s / A[j][j])
      out[bi, r] = [LD(v) for v in x]
  return out


CASES = {
    "conv_general_dilated_float32_2_3_9_float32_12_1_3": (2, lambda i: exact_conv(*i)),
    "cumprod_complex64_8_9": (1, lambda i: exact_cumprod(i[0])),
    "fft_complex128_14_15_16_17": (1, lambda i: exact_irfft_last(i[0], 33)),
    "fft_complex64_14_15_16_17": (1, lambda i: exact_irfft_last(exact_ifft_axis(exact_ifft_axis(i[0], 1), 2), 32)),
    "fft_float32_14_15_16_17": (1, lambda i: exact_rfft(i[0], 17)),
    "fft_float64_14_15_16_17": (1, lambda i: exact_rfft(i[0], 17)),
    "pow_complex64_20_30_complex64_20_30": (2, lambda i: exact_pow(*i)),
    "sin_complex64_20_20": (1, lambda i: exact_sin(i[0])),
    "triangular_solve_float32_2_8_8_float32_2_10_8": (2, lambda i: exact_trsm_right_upper(*i)),
}


def roundtrip_reference(src, name):
  """For an f32 round-trip case (roundtrip.py): its inputs, XLA's f32
  outputs, and the same refined program run by XLA in f64 (products of f32
  values are exact in f64, sums nearly so: a reference to ~1e-16)."""
  import roundtrip
  import serialize
  from jax._src.interpreters import mlir as jax_mlir
  from jax._src.lib.mlir import ir
  text = open(f"{src}/{name}.mlir").read()
  for size in roundtrip.SIZES:
    try:
      refined = roundtrip.refine(text, size, jax_mlir.make_ir_context)
      break
    except Exception:
      continue
  with jax_mlir.make_ir_context():
    module = ir.Module.parse(refined)
    main = roundtrip._main(module, ir)
    ftype = ir.FunctionType(ir.TypeAttr(main.operation.attributes["function_type"]).value)
    inputs = roundtrip._inputs(list(ftype.inputs), serialize.base_seed(name), ir)
    f32_text = str(module)
  want = roundtrip._run_xla(refined, inputs)[0]
  f64_text = f32_text.replace("xf32>", "xf64>").replace("tensor<f32>", "tensor<f64>")
  ref = roundtrip._run_xla(f64_text, [a.astype(np.float64) if a.dtype == np.float32 else a for a in inputs])[0]
  return want, ref.astype(LD)


def verdict(src, dump, name):
  if name in CASES:
    nin, fn = CASES[name]
    consts = constants(f"{src}/{name}.mlir")
    ins, want = consts[:nin], consts[nin]
    exact = fn(ins)
  else:
    want, exact = roundtrip_reference(src, name)
  got = np.fromfile(f"{dump}/{name}.out0", dtype=want.dtype).reshape(want.shape)
  dt = np.float32 if want.dtype in (np.float32, np.complex64) else np.float64
  eg, ex = ulps(got, exact, dt), ulps(want, exact, dt)
  differ = got != want
  g_closer = int(np.sum(differ & (eg < ex)))
  x_closer = int(np.sum(differ & (ex < eg)))
  if min(g_closer, x_closer) >= 0.6 * max(g_closer, x_closer):
    who = "comparable:"  # neither is consistently closer
  else:
    who = ("gojax" if g_closer > x_closer else "XLA") + " closer to exact;"
  return (f"verdict: {who} where they differ ({int(differ.sum())} elts) gojax closer on "
          f"{g_closer}, XLA on {x_closer}; max err gojax {float(eg.max()):.3g} ULP, XLA {float(ex.max()):.3g} ULP")


if __name__ == "__main__":
  ap = argparse.ArgumentParser()
  ap.add_argument("--src", default=DEFAULT_SRC)
  ap.add_argument("--dump", required=True)
  ap.add_argument("names", nargs="*")
  args = ap.parse_args()
  for name in args.names or sorted(CASES):
    print(f"{name}\t{verdict(args.src, args.dump, name)}", flush=True)
