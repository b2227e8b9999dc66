"""Tests of roundtrip.py's error bounds for accumulating programs (needs jax).

Run: cd go/conformance && python -m unittest roundtrip_test
"""

import re
import unittest

import numpy as np

import roundtrip

# Old-style shape-polymorphic programs, as the testdata round-trip tests are.
DOT = """
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x16xf32>, %arg2: tensor<16x3xf32>) -> tensor<?x3xf32> {
  %0 = stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x3xf32>) -> tensor<?x3xf32>
  return %0 : tensor<?x3xf32>
}
"""

SUM = """
func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x5xf32>) -> tensor<?xf32> {
  %cst = stablehlo.constant dense<0.0> : tensor<f32>
  %0 = stablehlo.reduce(%arg1 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<?x5xf32>, tensor<f32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}
"""


def _ctx():
  from jax._src.interpreters import mlir as jax_mlir
  return jax_mlir.make_ir_context()


def _plan(text):
  from jax._src.lib.mlir import ir
  with _ctx():
    return roundtrip._bound_plan(ir.Module.parse(text), ir)


class BoundPlanTest(unittest.TestCase):

  def test_accumulating_programs_get_a_bound(self):
    self.assertEqual(_plan(DOT), (2.0**-24, 1))
    self.assertEqual(_plan(SUM), (2.0**-24, 0))

  def test_other_programs_keep_allclose(self):
    elementwise = DOT.replace("stablehlo.dot_general %arg1, %arg2, contracting_dims = [1] x [0] : (tensor<?x16xf32>, tensor<16x3xf32>) -> tensor<?x3xf32>",
                              "stablehlo.add %arg1, %arg1 : tensor<?x16xf32>").replace("?x3", "?x16")
    self.assertIsNone(_plan(elementwise))  # nothing accumulates
    self.assertIsNone(_plan(SUM.replace("applies stablehlo.add", "applies stablehlo.multiply")))  # a product
    self.assertIsNone(_plan(SUM.replace("dense<0.0>", "dense<-1.0>")))  # a term of unknown sign
    cancel = SUM.replace("return %0", "%1 = stablehlo.subtract %0, %0 : tensor<?xf32>\n  return %1")
    self.assertIsNone(_plan(cancel))  # cancellation hides the terms' size
    self.assertIsNotNone(_plan(SUM.replace("dense<0.0>", "dense<0xFF800000>")))  # -inf identity


class ErrorBoundTest(unittest.TestCase):

  def test_formula(self):
    u = 2.0**-24
    b = roundtrip.error_bound(np.float32([10, 0]), np.float32([4, 4]), u, 1, np.dtype(np.float32))
    n = 5  # four terms, one product rounding each
    gamma = n * u / (1 - n * u)
    tiny = float(np.finfo(np.float32).tiny)
    np.testing.assert_allclose(b, [2 * gamma * 10 / (1 - gamma) + tiny, tiny], rtol=1e-15)

  def test_useless_bound_is_inf(self):
    b = roundtrip.error_bound(np.float32([1]), np.float32([300]), 2.0**-8, 0, np.dtype(np.float32))
    self.assertTrue(np.isinf(b).all())

  def test_complex_bound_is_wider(self):
    real = roundtrip.error_bound(np.float32([1]), np.float32([4]), 2.0**-24, 1, np.dtype(np.float32))
    cplx = roundtrip.error_bound(np.complex64([1]), np.complex64([4]), 2.0**-24, 1, np.dtype(np.complex64))
    self.assertGreater(cplx[0], real[0])

  def test_xla_lies_within_half_the_bound_of_the_exact_value(self):
    # Each engine is within gamma_n * sum|a||b| of the exact result: XLA's
    # own dot, against float64, with inputs chosen to cancel.
    refined = roundtrip.refine(DOT, 8, _ctx)
    rng = np.random.default_rng(0)
    a = (rng.standard_normal((8, 16)) * 1000).astype(np.float32)
    b = rng.standard_normal((16, 3)).astype(np.float32)
    a[:, 8:] = -a[:, :8]  # large terms that cancel
    b[8:] = b[:8] * np.float32(1 + 2.0**-20)
    [got], [mag], [cnt] = roundtrip._run_xla(refined, [a, b], [np.abs(a), np.abs(b)], [np.ones_like(a), np.ones_like(b)])
    exact = a.astype(np.float64) @ b.astype(np.float64)
    bound = roundtrip.error_bound(mag, cnt, 2.0**-24, 1, np.dtype(np.float32))
    np.testing.assert_array_equal(cnt, 16)
    self.assertTrue(np.all(np.abs(got - exact) <= bound / 2), np.max(np.abs(got - exact) / bound))
    # A wrong element (one term dropped) is far outside.
    wrong = got.copy()
    wrong[3, 1] -= a[3, 0] * b[0, 1]
    self.assertFalse(np.all(np.abs(wrong - got) <= bound))


class SelfCheckingTest(unittest.TestCase):

  def test_program_checks_within_the_bound(self):
    program, checks = roundtrip.self_checking(DOT, 1, _ctx)
    self.assertEqual(checks, 1)
    m = re.search(r"@check\.expect_within\(%r, %want0, %bound0\).*: \((tensor<\dx3xf32>), \1, (tensor<\dx3xf64>)\)", program)
    self.assertIsNotNone(m, program[-800:])
    self.assertIn("%bound0 = stablehlo.constant", program)

  def test_elementwise_program_keeps_allclose(self):
    text = ("func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {\n"
            "  %0 = stablehlo.tanh %arg1 : tensor<?xf32>\n  return %0 : tensor<?xf32>\n}\n")
    program, _ = roundtrip.self_checking(text, 1, _ctx)
    self.assertIn("@check.expect_allclose", program)
    self.assertNotIn("expect_within", program)


if __name__ == "__main__":
  unittest.main()
