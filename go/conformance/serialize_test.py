"""Tests of serialize.py's text rewriting (no jax needed).

Run: cd go/conformance && python -m unittest serialize_test
"""

import os
import tempfile
import unittest

import serialize


class TranslateTest(unittest.TestCase):

  def translate_line(self, line):
    return serialize.Translator().line(line)

  def test_expect_eq_const(self):
    out = self.translate_line("  check.expect_eq_const %2, dense<[0, 1]> : tensor<2xi2>")
    self.assertEqual(out.splitlines(), [
        "  %__check_const1 = stablehlo.constant dense<[0, 1]> : tensor<2xi2>",
        "  stablehlo.custom_call @check.expect_eq(%2, %__check_const1) {has_side_effect = true} "
        ": (tensor<2xi2>, tensor<2xi2>) -> ()",
    ])

  def test_almost_eq_const_default_and_trailing_tolerance(self):
    out = self.translate_line("check.expect_almost_eq_const %x, dense<1.0> : tensor<f64>")
    self.assertIn('backend_config = "tolerance=0.0001"', out)
    out = self.translate_line(
        "check.expect_almost_eq_const %operand, dense<5.1> : tensor<f64> {tolerance = 0.1 : f64}")
    self.assertIn('backend_config = "tolerance=0.1"', out)
    self.assertIn("stablehlo.constant dense<5.1> : tensor<f64>", out)

  def test_generic_const_form(self):
    out = self.translate_line(
        '    "check.expect_eq_const"(%0) <{value = dense<[1, 3]> : tensor<2xui2>}> : (tensor<2xui2>) -> ()')
    self.assertIn("@check.expect_eq(%0, %__check_const1)", out)
    self.assertIn("stablehlo.constant dense<[1, 3]> : tensor<2xui2>", out)

  def test_eq_and_close(self):
    out = self.translate_line("check.expect_eq %results#0, %b : tensor<3xi64>")
    self.assertIn("@check.expect_eq(%results#0, %b)", out)
    out = self.translate_line("check.expect_almost_eq %a, %b, tolerance = 0.1 : tensor<f64>")
    self.assertIn('tolerance=0.1', out)
    out = self.translate_line(
        "check.expect_close %a, %b, max_ulp_difference = 3 : tensor<f16>, tensor<f16>")
    self.assertIn('backend_config = "max_ulp_difference=3"', out)
    self.assertIn(": (tensor<f16>, tensor<f16>) -> ()", out)

  def test_multiline_check_is_joined(self):
    text = ("func.func @t() {\n  %r = stablehlo.constant dense<1.0> : tensor<2x2xf64>\n"
            "  check.expect_almost_eq_const %r,\n      dense<[[1.0, 2.0],\n"
            "             [3.0, 4.0]]> : tensor<2x2xf64>\n  func.return\n}\n")
    out, entry = serialize.translate("interpret", text)
    self.assertEqual(entry, "t")
    self.assertIn("dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf64>", out)
    self.assertNotIn("check.expect_almost_eq_const", out)

  def test_unknown_check_op_fails_loudly(self):
    with self.assertRaises(ValueError):
      self.translate_line("check.expect_something %a : tensor<f32>")

  def test_custom_calls_are_left_alone(self):
    line = "stablehlo.custom_call @check.expect_close(%2, %1) {has_side_effect = true} : (tensor<f32>, tensor<f32>) -> ()"
    self.assertEqual(self.translate_line(line), line)

  def test_effectless_check_call_gets_the_side_effect_flag(self):
    line = "    %4 = stablehlo.custom_call @check.eq(%cst_1, %3) : (tensor<11xf32>, tensor<11xf32>) -> tensor<i1>"
    self.assertEqual(
        self.translate_line(line),
        "    %4 = stablehlo.custom_call @check.eq(%cst_1, %3) {has_side_effect = true} : "
        "(tensor<11xf32>, tensor<11xf32>) -> tensor<i1>")


class ProbeTest(unittest.TestCase):

  def test_probe_and_serialized_eq(self):
    tr = serialize.Translator()
    self.assertEqual(
        tr.line('    %3 = interpreter.probe %2, probe_id = "p/0" : tensor<3xi64>'),
        '    %3 = stablehlo.custom_call @interpreter.probe(%2) {has_side_effect = true, '
        'backend_config = "p/0"} : (tensor<3xi64>) -> tensor<3xi64>')
    self.assertEqual(
        tr.line('  check.expect_serialized_eq %one, probe_id = "it", iter = 1 : tensor<i64>'),
        '  stablehlo.custom_call @check.expect_serialized_eq(%one) {has_side_effect = true, '
        'backend_config = "iter=1,probe_id=it"} : (tensor<i64>) -> ()')
    self.assertIn('"iter=0,probe_id=x"', tr.line('check.expect_serialized_eq %v, probe_id = "x" : tensor<i1>'))

  def test_trailing_comment_on_a_check(self):
    out = serialize.Translator().line("  check.expect_eq_const %r#0, dense<1> : tensor<2xi64> // process0")
    self.assertIn(": (tensor<2xi64>, tensor<2xi64>) -> ()", out)


class ParallelTest(unittest.TestCase):

  TEXT = """module @m {
  func.func @f(%x : tensor<2xi64>) -> tensor<2xi64> {
    %r = stablehlo.add %x, %x : tensor<2xi64>
    return %r : tensor<2xi64>
  }
  func.func @g() -> tensor<2xi64> {
    %c = stablehlo.constant dense<1> : tensor<2xi64>
    return %c : tensor<2xi64>
  }
  func.func @main() {
    %a = stablehlo.constant dense<[1, 2]> : tensor<2xi64>
    %res:3 = "interpreter.run_parallel"(%a, %a) {
      programs=[[@f, @g, @f]]
    } : (tensor<2xi64>, tensor<2xi64>) ->
        (tensor<2xi64>, tensor<2xi64>,
         tensor<2xi64>)
    check.expect_eq_const %res#2, dense<[2, 4]> : tensor<2xi64>
    func.return
  }
}
"""

  def test_split_into_inputs_programs_and_checks(self):
    parts = serialize.parallel_parts(self.TEXT)
    self.assertEqual(parts["grid"], [["f", "g", "f"]])
    self.assertIn("func.func @main() -> (tensor<2xi64>, tensor<2xi64>) {", parts["inputs"])
    self.assertIn("func.return %a, %a : tensor<2xi64>, tensor<2xi64>", parts["inputs"])
    self.assertNotIn("@f", parts["inputs"])
    check = parts["check"]
    self.assertIn("func.func @main(%__rp0: tensor<2xi64>, %__rp1: tensor<2xi64>, %__rp2: tensor<2xi64>) {", check)
    self.assertIn("check.expect_eq_const %__rp2,", check)
    self.assertNotIn("run_parallel", check)
    self.assertEqual(sorted(parts["programs"]), ["f", "g"])
    f = parts["programs"]["f"]
    self.assertIn("func.func @f(", f)
    self.assertIn("func.func private @g(", f)
    self.assertNotIn("@main", f)


class EntryTest(unittest.TestCase):

  def test_main_wins_and_others_become_private(self):
    text = "func.func @add_2(%arg0: tensor<i64>) -> tensor<i64> {\n}\nfunc.func @main() {\n}\n"
    out, entry = serialize.choose_entry(text)
    self.assertEqual(entry, "main")
    self.assertIn("func.func private @add_2(%arg0: tensor<i64>)", out)
    self.assertIn("func.func @main()", out)

  def test_last_argument_free_function(self):
    text = "func.func @helper(%a: tensor<f32>) {\n}\nfunc.func @test_it() {\n}\n"
    out, entry = serialize.choose_entry(text)
    self.assertEqual(entry, "test_it")
    self.assertIn("func.func private @helper", out)


class CasesTest(unittest.TestCase):

  def write(self, text):
    fd, path = tempfile.mkstemp(suffix=".mlir")
    with os.fdopen(fd, "w") as f:
      f.write(text)
    self.addCleanup(os.remove, path)
    return path

  def test_split_and_skips(self):
    path = self.write(
        "// RUN: stablehlo-translate --interpret -split-input-file %s\n\n"
        "func.func @a() {\n  func.return\n}\n\n// -----\n\n"
        "func.func @b() {\n  interpreter.print %x : tensor<i32>\n  func.return\n}\n")
    cases = list(serialize.cases_for_file("interpret", path))
    self.assertEqual([c[0].split("#")[1] for c in cases], ["0:a", "1:b"])
    self.assertIsNone(cases[0][3])
    self.assertIsNone(cases[0][4])
    self.assertIn("interpreter.print", cases[1][3])

  def test_upstream_disabled_is_run_with_a_note(self):
    path = self.write("// RUN-DISABLED(inaccurate) stablehlo-opt -inline %s | stablehlo-translate --interpret\n"
                      "func.func @main() {\n}\n")
    (case,) = list(serialize.cases_for_file("testdata", path))
    self.assertIsNone(case[3])
    self.assertEqual(case[4], "upstream RUN-DISABLED(inaccurate)")

  def test_testdata_round_trip_becomes_differential(self):
    path = self.write("// RUN: stablehlo-opt %s\nfunc.func @main() {\n}\n")
    cases = list(serialize.cases_for_file("testdata", path))
    self.assertEqual(len(cases), 1)
    self.assertIsNone(cases[0][3])
    self.assertEqual(cases[0][4], serialize.ROUNDTRIP_NOTE)


POLY = """module @m {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?x2xf32>, %arg2: tensor<?x2xi32>) -> (tensor<?x2xf32>, tensor<?x2xi1>) {
    %0 = stablehlo.add %arg1, %arg1 : tensor<?x2xf32>
    %1 = stablehlo.convert %arg2 : (tensor<?x2xi32>) -> tensor<?x2xf32>
    %2 = stablehlo.compare GT, %arg1, %1 : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xi1>
    return %0, %2 : tensor<?x2xf32>, tensor<?x2xi1>
  }
}
"""


class RoundTripTest(unittest.TestCase):
  """roundtrip.py with jaxlib (skipped without jax)."""

  def setUp(self):
    try:
      from jax._src.interpreters import mlir as jax_mlir
    except ImportError:
      self.skipTest("jax is not installed")
    import roundtrip
    self.rt, self.ctx = roundtrip, jax_mlir.make_ir_context

  def test_self_checking_program(self):
    program, checks = self.rt.self_checking(POLY, 7, self.ctx)
    self.assertEqual(checks, 2)
    self.assertEqual(self.rt.count_results(POLY, self.ctx), 2)
    self.assertIn("func.func public @main() -> (tensor<3x2xf32>, tensor<3x2xi1>)", program)
    self.assertIn('@check.expect_allclose(%r#0, %want0) {backend_config = "rtol=1e-06,atol=1e-06"', program)
    self.assertIn("@check.expect_eq(%r#1, %want1)", program)
    self.assertIn("tensor<3x2xi8>) -> tensor<3x2xi1>", program)  # booleans go through i8
    # The result is a valid module, and the same seed gives the same program.
    from jaxlib.mlir import ir
    with self.ctx():
      ir.Module.parse(program)
    self.assertEqual(program, self.rt.self_checking(POLY, 7, self.ctx)[0])
    self.assertNotEqual(program, self.rt.self_checking(POLY, 8, self.ctx)[0])

  def test_unrefinable_program_is_not_runnable(self):
    # The iota is twice the dimension argument long, the argument is not:
    # no single size satisfies both, so refinement fails.
    bad = """module @m {
  func.func public @main(%arg0: tensor<i64>, %arg1: tensor<?xf32>) -> tensor<?xf32> {
    %c = stablehlo.constant dense<2> : tensor<i64>
    %0 = stablehlo.multiply %arg0, %c : tensor<i64>
    %1 = stablehlo.reshape %0 : (tensor<i64>) -> tensor<1xi64>
    %2 = stablehlo.dynamic_iota %1, dim = 0 : (tensor<1xi64>) -> tensor<?xf32>
    %3 = stablehlo.add %2, %arg1 : tensor<?xf32>
    return %3 : tensor<?xf32>
  }
}
"""
    with self.assertRaises(self.rt.NotRunnable) as e:
      self.rt.self_checking(bad, 7, self.ctx)
    self.assertIn("shape refinement failed for sizes 3, 4, 8", str(e.exception))

if __name__ == "__main__":
  unittest.main()
