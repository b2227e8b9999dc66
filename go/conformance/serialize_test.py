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
        "func.func @b() {\n  %0 = \"interpreter.run_parallel\"() {programs=[[@b]]} : () -> ()\n  func.return\n}\n")
    cases = list(serialize.cases_for_file("interpret", path))
    self.assertEqual([c[0].split("#")[1] for c in cases], ["0:a", "1:b"])
    self.assertIsNone(cases[0][3])
    self.assertIsNone(cases[0][4])
    self.assertIn("run_parallel", cases[1][3])

  def test_upstream_disabled_is_run_with_a_note(self):
    path = self.write("// RUN-DISABLED(inaccurate) stablehlo-opt -inline %s | stablehlo-translate --interpret\n"
                      "func.func @main() {\n}\n")
    (case,) = list(serialize.cases_for_file("testdata", path))
    self.assertIsNone(case[3])
    self.assertEqual(case[4], "upstream RUN-DISABLED(inaccurate)")

  def test_testdata_without_interpret_is_skipped(self):
    path = self.write("// RUN: stablehlo-opt %s\nfunc.func @main() {\n}\n")
    cases = list(serialize.cases_for_file("testdata", path))
    self.assertEqual(len(cases), 1)
    self.assertIn("serialization-only", cases[0][3])


if __name__ == "__main__":
  unittest.main()
