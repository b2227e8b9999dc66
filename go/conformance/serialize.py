"""Turn the StableHLO text corpora into portable artifacts for gojax's runner.

The conformance runner (go/conformance) executes portable artifacts, the form a
PJRT plugin receives. The corpora under testdata/stablehlo at the repository
root are MLIR text, so this script serializes them with jaxlib's own serializer
(`_jax.mlir.serialize_portable_artifact`, the function JAX's PJRT path uses:
it legalizes CHLO and writes VHLO bytecode for a target version).

Corpora:
  testdata   one program per file (a few split with `// -----`); each @main
             checks its result with custom_call @check.* targets.
  interpret  104 files of small tests split by `// -----`. Their `check.*` ops
             are not StableHLO; they are rewritten textually into
             `stablehlo.custom_call @check.*` calls the runner implements,
             as are `interpreter.probe` and `check.expect_serialized_eq`
             (custom calls @interpreter.probe / @check.expect_serialized_eq).
             A test whose @main runs `interpreter.run_parallel` becomes
             several artifacts (parallel_parts): one per program it runs,
             one computing the programs' operands and one checking their
             results, which it takes as arguments.

Output: <out>/<corpus>/<sha256>.bc per case (cached by content hash, target
version and this script's version) and <out>/<corpus>-manifest.json listing
every case with its artifact, or why it was skipped or failed to serialize.

Usage: python serialize.py --corpus testdata [--src DIR] --out DIR --target 1.20.0
(--src defaults to the corpus in the repository's testdata/stablehlo)
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import sys
import tempfile
import time

# The repository's test data, found from this file (go/conformance/).
DATA_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "testdata")

# Bump when the translation changes, so cached artifacts are rebuilt.
SCRIPT_VERSION = "5"

# Note on testdata round-trip cases run differentially (see roundtrip.py).
ROUNDTRIP_NOTE = "round-trip test refined to static shapes; expected values from XLA:CPU"

SPLIT_RE = re.compile(r"^// -----.*$", re.M)
VALUE = r"%[\w.$#-]+"
DENSE = r"dense<.*?>"


def check_call(target, lhs, rhs, ty_l, ty_r, config, indent):
  cfg = f', backend_config = "{config}"' if config else ""
  return (f"{indent}stablehlo.custom_call @{target}({lhs}, {rhs}) "
          f"{{has_side_effect = true{cfg}}} : ({ty_l}, {ty_r}) -> ()")


class Translator:
  """Rewrites check dialect ops into custom calls, one line at a time."""

  # check.expect_eq_const %x, dense<...> : tensor<...>
  CONST_RE = re.compile(
      rf"^(\s*)check\.(expect_eq_const|expect_almost_eq_const)\s+({VALUE})\s*,\s*"
      rf"(dense<.*>)\s*:\s*(\S.*?)\s*$")
  # check.expect_almost_eq_const %x, dense<...>, tolerance = 0.1 : tensor<...>
  CONST_TOL_RE = re.compile(
      rf"^(\s*)check\.expect_almost_eq_const\s+({VALUE})\s*,\s*(dense<.*>)\s*,\s*"
      rf"tolerance\s*=\s*([^\s:]+)(?:\s*:\s*f64)?\s*:\s*(\S.*?)\s*$")
  # check.expect_eq %a, %b : tensor<...>
  EQ_RE = re.compile(
      rf"^(\s*)check\.(expect_eq|expect_almost_eq)\s+({VALUE})\s*,\s*({VALUE})"
      rf"(?:\s*,\s*tolerance\s*=\s*([^\s:]+)(?:\s*:\s*f64)?)?\s*:\s*(\S.*?)\s*$")
  # check.expect_close %a, %b, max_ulp_difference = 3 : T1, T2
  CLOSE_RE = re.compile(
      rf"^(\s*)check\.expect_close\s+({VALUE})\s*,\s*({VALUE})\s*((?:,\s*\w+\s*=\s*\d+(?:\s*:\s*\w+)?\s*)*)"
      rf":\s*(\S.*?)\s*$")

  # %r = stablehlo.custom_call @check.eq(%a, %b) : (T, T) -> tensor<i1>
  EFFECTLESS_CHECK_RE = re.compile(
      rf"^(\s*(?:{VALUE}\s*=\s*)?stablehlo\.custom_call\s+@check\.\w+\([^)]*\))(\s*:.*)$")

  # "check.expect_eq_const"(%x) <{value = dense<...> : T}> : (T) -> ()
  GEN_CONST_RE = re.compile(
      rf'^(\s*)"check\.(expect_eq_const|expect_almost_eq_const)"\(({VALUE})\)\s*<?\{{\s*'
      rf'(?:tolerance\s*=\s*([^\s:,]+)\s*(?::\s*f64)?\s*,\s*)?value\s*=\s*(dense<.*>)\s*:\s*(tensor<[^}}]*?>)'
      rf'(?:\s*,\s*tolerance\s*=\s*([^\s:}}]+)[^}}]*)?\s*\}}>?\s*:\s*\(.*\)\s*->\s*\(\)\s*$')

  # %y = interpreter.probe %x, probe_id = "id" : tensor<...>
  PROBE_RE = re.compile(
      rf'^(\s*)({VALUE})\s*=\s*interpreter\.probe\s+({VALUE})\s*,\s*probe_id\s*=\s*"([^"]*)"\s*:\s*(\S.*?)\s*$')
  # check.expect_serialized_eq %x, probe_id = "id"[, iter = N] : tensor<...>
  SERIALIZED_RE = re.compile(
      rf'^(\s*)check\.expect_serialized_eq\s+({VALUE})\s*,\s*probe_id\s*=\s*"([^"]*)"'
      rf'(?:\s*,\s*iter\s*=\s*(\d+))?\s*:\s*(\S.*?)\s*$')

  def __init__(self):
    self.counter = 0

  def const(self, indent, dense, ty):
    self.counter += 1
    name = f"%__check_const{self.counter}"
    return name, f"{indent}{name} = stablehlo.constant {dense} : {ty}"

  def line(self, ln):
    """Returns the translated line(s), or raises ValueError for an unknown check op."""
    m = self.PROBE_RE.match(ln)
    if m:
      # The reference interpreter's probe records its operand (per
      # execution) and returns it; the runner's kernel does the same.
      indent, res, x, pid, ty = m.groups()
      return (f'{indent}{res} = stablehlo.custom_call @interpreter.probe({x}) '
              f'{{has_side_effect = true, backend_config = "{pid}"}} : ({ty}) -> {ty}')
    m = self.EFFECTLESS_CHECK_RE.match(ln)
    if m and not ln.lstrip().startswith("//"):
      # A check call written as a plain custom call (the quantized programs'
      # `%r = stablehlo.custom_call @check.eq(...)`, its result unused) is a
      # side effect of the test, as in the interpreter: without the flag the
      # compiler may fold it away with its constant operands.
      return f"{m.group(1)} {{has_side_effect = true}}{m.group(2)}"
    if "check." not in ln or ln.lstrip().startswith("//") or "@check." in ln:
      return ln
    ln = re.sub(r'\s+//[^"]*$', '', ln)  # a trailing comment
    m = self.SERIALIZED_RE.match(ln)
    if m:
      # Compares a value with what probe_id recorded at execution `iter`.
      indent, x, pid, it, ty = m.groups()
      return (f'{indent}stablehlo.custom_call @check.expect_serialized_eq({x}) '
              f'{{has_side_effect = true, backend_config = "iter={it or 0},probe_id={pid}"}} : ({ty}) -> ()')
    m = self.GEN_CONST_RE.match(ln)
    if m:
      indent, kind, x, tol1, dense, ty, tol2 = m.groups()
      name, c = self.const(indent, dense, ty)
      if kind == "expect_eq_const":
        return c + "\n" + check_call("check.expect_eq", x, name, ty, ty, "", indent)
      tol = tol1 or tol2 or "0.0001"
      return c + "\n" + check_call("check.expect_almost_eq", x, name, ty, ty, f"tolerance={tol}", indent)
    m = self.CONST_TOL_RE.match(ln)
    if m:
      indent, x, dense, tol, ty = m.groups()
      name, c = self.const(indent, dense, ty)
      return c + "\n" + check_call("check.expect_almost_eq", x, name, ty, ty, f"tolerance={tol}", indent)
    m = self.CONST_RE.match(ln)
    if m:
      indent, kind, x, dense, ty = m.groups()
      tol = "0.0001"
      t = re.match(r"^(.*?)\s*\{\s*tolerance\s*=\s*([^\s:}]+)[^}]*\}$", ty)
      if t:
        ty, tol = t.group(1), t.group(2)
      name, c = self.const(indent, dense, ty)
      target = "check.expect_eq" if kind == "expect_eq_const" else "check.expect_almost_eq"
      cfg = "" if kind == "expect_eq_const" else f"tolerance={tol}"
      return c + "\n" + check_call(target, x, name, ty, ty, cfg, indent)
    m = self.EQ_RE.match(ln)
    if m:
      indent, kind, a, b, tol, ty = m.groups()
      if kind == "expect_eq":
        return check_call("check.expect_eq", a, b, ty, ty, "", indent)
      return check_call("check.expect_almost_eq", a, b, ty, ty, f"tolerance={tol or '0.0001'}", indent)
    m = self.CLOSE_RE.match(ln)
    if m:
      indent, a, b, opts, tys = m.groups()
      parts = [t.strip() for t in split_types(tys)]
      if len(parts) == 1:
        parts = parts * 2
      cfg = ",".join(
          f"{k}={v}" for k, v in re.findall(r"(\w+)\s*=\s*(\d+)", opts))
      return check_call("check.expect_close", a, b, parts[0], parts[1], cfg, indent)
    raise ValueError(f"unsupported check op: {ln.strip()[:200]}")


def split_types(s):
  """Splits 'tensor<2x3xf32>, tensor<...>' at top-level commas."""
  out, depth, cur = [], 0, ""
  for ch in s:
    if ch == "<":
      depth += 1
    elif ch == ">":
      depth -= 1
    if ch == "," and depth == 0:
      out.append(cur)
      cur = ""
    else:
      cur += ch
  out.append(cur)
  return out


FUNC_RE = re.compile(r"^(\s*)func\.func\s+(?:(public|private|nested)\s+)?@([\w.$-]+)\s*\(([^)]*)\)", re.M)


def choose_entry(text, entry=None):
  """Makes exactly one function public: `entry` if given, else @main if
  present, else the last function without arguments (the interpreter test).
  Returns (text, entry)."""
  funcs = FUNC_RE.findall(text)
  if not funcs:
    raise ValueError("no func.func in test")
  names = [f[2] for f in funcs]
  if entry is not None:
    if entry not in names:
      raise ValueError(f"no function @{entry}")
  elif "main" in names:
    entry = "main"
  else:
    noargs = [f[2] for f in funcs if not f[3].strip()]
    if not noargs:
      raise ValueError("no argument-free test function")
    entry = noargs[-1]

  def fix(m):
    indent, _vis, name, args = m.group(1), m.group(2), m.group(3), m.group(4)
    vis = "" if name == entry else "private "
    return f"{indent}func.func {vis}@{name}({args})"

  return FUNC_RE.sub(fix, text), entry


def func_spans(text):
  """[(name, start, body_start, body_end, end)] of each func.func: body_start
  is just past its opening brace, body_end at its closing brace, end past it."""
  out = []
  for m in FUNC_RE.finditer(text):
    ob = re.compile(r"\{[ \t]*\n").search(text, m.end())
    if not ob:
      raise ValueError(f"cannot find the body of @{m.group(3)}")
    depth, quoted, i = 0, False, ob.start()
    while i < len(text):
      ch = text[i]
      if ch == '"':
        quoted = not quoted
      elif not quoted and ch == "{":
        depth += 1
      elif not quoted and ch == "}":
        depth -= 1
        if depth == 0:
          break
      i += 1
    else:
      raise ValueError(f"unbalanced braces in @{m.group(3)}")
    out.append((m.group(3), m.start(), ob.end(), i, i + 1))
  return out


def replace_funcs(text, spans, repl):
  """Rebuilds text with each function's span replaced by repl[name] (missing:
  dropped; the value None keeps it)."""
  out, pos = "", 0
  for name, start, _bs, _be, end in spans:
    out += text[pos:start]
    r = repl.get(name, "")
    out += text[start:end] if r is None else r
    pos = end
  return out + text[pos:]


RUN_PARALLEL_RE = re.compile(r'^([ \t]*)(?:(%[\w.$-]+)(?::(\d+))?\s*=\s*)?"interpreter\.run_parallel"\(', re.M)


def parallel_parts(chunk):
  """Splits a test whose @main runs interpreter.run_parallel into modules
  the runner executes: {"inputs": a @main returning run_parallel's operands,
  "check": @main taking its results as arguments and running the checks,
  "programs": {name: module with @name as entry}, "grid": rows of program
  names (replicas x partitions)}."""
  spans = func_spans(chunk)
  main = [sp for sp in spans if sp[0] == "main"]
  if not main:
    raise ValueError("run_parallel outside @main")
  _, mstart, bstart, bend, _ = main[0]
  body = chunk[bstart:bend]
  # @main's results, if any (the checks module keeps returning them).
  results_sig = FUNC_RE.match(chunk, mstart)
  results_sig = chunk[results_sig.end():bstart].rstrip().rstrip("{").rstrip()
  m = RUN_PARALLEL_RE.search(body)
  if not m:
    raise ValueError("cannot parse interpreter.run_parallel")
  if len(RUN_PARALLEL_RE.findall(body)) > 1:
    raise ValueError("more than one interpreter.run_parallel")
  acc = ""
  for ln in body[m.start():].split("\n"):
    acc += ln + "\n"
    if "->" in acc:
      tail = acc[acc.rindex("->") + 2:].strip()
      if tail and balanced(tail) and tail.count("(") == tail.count(")") and not tail.endswith(","):
        break
  op = acc
  pre, post = body[:m.start()], body[m.start() + len(op):]
  sig = re.search(r"\}\s*:\s*\((.*?)\)\s*->\s*(.*?)\s*$", op, re.S)
  if not sig:
    raise ValueError("cannot parse the run_parallel signature")
  in_types = [t.strip() for t in split_types(sig.group(1))] if sig.group(1).strip() else []
  res = sig.group(2).strip()
  if res.startswith("(") and res.endswith(")"):
    res = res[1:-1].strip()
  out_types = [t.strip() for t in split_types(res)] if res else []
  args_text = op[m.end() - m.start():op.index(")")]
  operands = re.findall(VALUE, args_text)
  if len(operands) != len(in_types):
    raise ValueError(f"run_parallel has {len(operands)} operands but {len(in_types)} operand types")
  progs = re.search(r"programs\s*=\s*\[(.*?)\]\s*\]", op, re.S)
  if not progs:
    raise ValueError("run_parallel without programs")
  grid = [re.findall(r"@([\w.$-]+)", row) for row in re.findall(r"\[([^\[\]]*)", progs.group(1) + "]")]
  grid = [row for row in grid if row]
  if not grid or any(len(row) != len(grid[0]) for row in grid):
    raise ValueError("programs is not a rectangular grid")

  name, count = m.group(2), m.group(3)
  if name and count:
    post = re.sub(re.escape(name) + r"#(\d+)\b", lambda g: f"%__rp{g.group(1)}", post)
  elif name:
    post = re.sub(re.escape(name) + r"(?![\w.$#-])", "%__rp0", post)
  ret = ", ".join(operands)
  if operands:
    inputs_main = (f"func.func @main() -> ({', '.join(in_types)}) {{\n{pre}"
                   f"    func.return {ret} : {', '.join(in_types)}\n  }}")
  else:
    inputs_main = f"func.func @main() {{\n{pre}    func.return\n  }}"
  params = ", ".join(f"%__rp{i}: {t}" for i, t in enumerate(out_types))
  check_main = f"func.func @main({params}){(' ' + results_sig) if results_sig else ''} {{\n{pre}{post}}}"
  programs = {}
  for row in grid:
    for f in row:
      if f not in programs:
        text = replace_funcs(chunk, spans, {n: None for n, *_ in spans if n != "main"})
        programs[f] = choose_entry(text, f)[0]
  return {
      "inputs": replace_funcs(chunk, spans, {"main": inputs_main}),
      "check": replace_funcs(chunk, spans, {"main": check_main}),
      "programs": programs,
      "grid": grid,
  }


def skip_reason(text, header):
  if "interpreter.print" in text or "--interpreter-print-dense" in header:
    return "needs interpreter.print (output compared by FileCheck)"
  if "--args=" in header:
    return "takes --args inputs and is checked by FileCheck, not check ops"
  if "--verify-diagnostics" in header and "expected-error" in text:
    return "expects a diagnostic (negative test)"
  return None


def cases_for_file(corpus, path):
  """Yields (case_name, index, text, skip_reason, note) for one source file."""
  with open(path, encoding="utf-8") as f:
    src = f.read()
  # RUN-DISABLED lines count too: those programs are valid and self-checking;
  # upstream disabled them for the reference interpreter (e.g. "inaccurate").
  header = "\n".join(l for l in src.splitlines() if l.startswith("// RUN"))
  base = os.path.splitext(os.path.basename(path))[0]
  if corpus == "testdata" and "--interpret" not in header:
    # Upstream's serialize/deserialize round-trip tests: no inputs, expected
    # values or checks, and a shape-polymorphic @main in the old style
    # (dimension sizes passed as leading tensor<i64> arguments). The runner
    # makes them runnable as JAX would (refine.py: every dimension variable
    # set to one size, shapes refined) and checks them against XLA:CPU.
    yield base, 0, src, None, ROUNDTRIP_NOTE
    return
  disabled = re.search(r"^// RUN-DISABLED(\([^)]*\))?", src, re.M)
  note = f"upstream RUN-DISABLED{disabled.group(1) or ''}" if disabled else None
  chunks = SPLIT_RE.split(src) if "split-input-file" in header else [src]
  chunks = [c for c in chunks if "func.func" in c]
  for i, chunk in enumerate(chunks):
    name = base if len(chunks) == 1 else f"{base}#{i}"
    funcs = [f[2] for f in FUNC_RE.findall(chunk)]
    if len(chunks) > 1 and funcs:
      name = f"{base}#{i}:{funcs[-1]}"
    yield name, i, chunk, skip_reason(chunk, header), note


def balanced(s):
  depth = 0
  for ch in s:
    if ch in "<[({":
      depth += 1
    elif ch in ">])}":
      depth -= 1
  return depth <= 0


def join_checks(lines):
  """Joins check ops written over several lines into one line each."""
  out, i = [], 0
  while i < len(lines):
    ln = lines[i]
    if ln.lstrip().startswith("check."):
      while (not balanced(ln) or ln.rstrip().endswith(",")) and i + 1 < len(lines):
        i += 1
        ln = ln.rstrip() + " " + lines[i].strip()
    out.append(ln)
    i += 1
  return out


def translate(corpus, text):
  tr = Translator()
  lines = [tr.line(l) for l in join_checks(text.splitlines())]
  out = "\n".join(lines) + "\n"
  out, entry = choose_entry(out)
  return out, entry


def serialize(text, target, ctx_factory, ir, _jax):
  if "!quant." in text:
    # jaxlib's Python MLIR context has no quant dialect, so these programs
    # cannot be parsed there; StableHLO's own string entry point parses in a
    # context that has it. It does not legalize CHLO (no quantized program
    # uses CHLO; one that did fails here and is recorded as failed).
    from jaxlib.mlir._mlir_libs import _stablehlo
    return _stablehlo.serialize_portable_artifact_str(text, target)
  ctx = ctx_factory()
  module = ir.Module.parse(text, ctx)
  return _jax.mlir.serialize_portable_artifact(module, target, True)


def write_artifact(outdir, dst, data):
  fd, tmp = tempfile.mkstemp(dir=outdir)
  with os.fdopen(fd, "wb") as f:
    f.write(data)
  os.replace(tmp, dst)


def base_seed(name):
  """A deterministic per-case seed for generated inputs."""
  return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "little")


def main():
  ap = argparse.ArgumentParser()
  ap.add_argument("--corpus", required=True, choices=["testdata", "interpret"])
  ap.add_argument("--src", default="", help="corpus folder (default testdata/stablehlo/<corpus>)")
  ap.add_argument("--out", required=True)
  ap.add_argument("--target", required=True, help="requested StableHLO version, e.g. 1.20.0")
  ap.add_argument("--only", default="", help="substring filter on file names (debugging)")
  ap.add_argument("--manifest", default="", help="where to write the manifest (default <out>/<corpus>-manifest.json)")
  args = ap.parse_args()
  if not args.src:
    args.src = os.path.join(DATA_DIR, "stablehlo", args.corpus)

  # Imported late so --help works without jax.
  from jax._src.interpreters import mlir as jax_mlir
  from jax._src.lib import _jax
  from jaxlib.mlir import ir
  from jaxlib.mlir.dialects import stablehlo

  current = stablehlo.get_current_version()
  target = stablehlo.get_smaller_version(args.target, current)
  # One directory per script version: runs of different checkouts share the
  # cache (and may run at once), so a run only ever prunes its own version.
  vdir = os.path.join(args.corpus, "v" + SCRIPT_VERSION)
  outdir = os.path.join(args.out, vdir)
  os.makedirs(outdir, exist_ok=True)

  files = sorted(f for f in os.listdir(args.src) if f.endswith(".mlir") and args.only in f)
  manifest = {"corpus": args.corpus, "target": target, "jaxlib_current": current,
              "requested": args.target, "script_version": SCRIPT_VERSION, "cases": []}
  stats = {"cached": 0, "serialized": 0, "failed": 0, "skipped": 0}
  for fname in files:
    for name, index, text, skip, note in cases_for_file(args.corpus, os.path.join(args.src, fname)):
      case = {"name": name, "file": fname, "index": index}
      if note:
        case["note"] = note
      if skip:
        case["skip"] = skip
        stats["skipped"] += 1
        manifest["cases"].append(case)
        continue
      if note == ROUNDTRIP_NOTE:
        import roundtrip  # needs jax; imported only for these cases
        key = hashlib.sha256(f"{SCRIPT_VERSION}\0{roundtrip.VERSION}\0{target}\0roundtrip\0{text}".encode()).hexdigest()
        rel = os.path.join(vdir, key + ".bc")
        dst = os.path.join(args.out, rel)
        case["entry"] = "main"
        if os.path.exists(dst):
          stats["cached"] += 1
          case["artifact"] = rel
          case["checks"] = roundtrip.count_results(text, jax_mlir.make_ir_context)
          manifest["cases"].append(case)
          continue
        try:
          program, checks = roundtrip.self_checking(text, base_seed(name), jax_mlir.make_ir_context)
          data = serialize(program, target, jax_mlir.make_ir_context, ir, _jax)
        except roundtrip.NotRunnable as e:
          case["skip"] = f"round-trip test not runnable: {e}"
          stats["skipped"] += 1
          manifest["cases"].append(case)
          continue
        except Exception as e:  # parse/refine/serialize errors: record and go on.
          msg = " ".join(str(e).split())
          case["error"] = f"roundtrip: {msg[:600]}"
          stats["failed"] += 1
          manifest["cases"].append(case)
          continue
        case["checks"] = checks
        write_artifact(outdir, dst, data)
        stats["serialized"] += 1
        case["artifact"] = rel
        manifest["cases"].append(case)
        continue
      if "interpreter.run_parallel" in text:
        # Multi-process test: its programs, the inputs they get and the
        # checks on their results become separate artifacts (runner.go).
        def artifact(t):
          key = hashlib.sha256(f"{SCRIPT_VERSION}\0{target}\0{t}".encode()).hexdigest()
          rel = os.path.join(vdir, key + ".bc")
          dst = os.path.join(args.out, rel)
          if os.path.exists(dst):
            stats["cached"] += 1
          else:
            write_artifact(outdir, dst, serialize(t, target, jax_mlir.make_ir_context, ir, _jax))
            stats["serialized"] += 1
          return rel
        try:
          parts = parallel_parts(text)
          check_text, entry = translate(args.corpus, parts["check"])
          par = {"grid": parts["grid"], "inputs": artifact(translate(args.corpus, parts["inputs"])[0]), "programs": {}}
          for fn, t in parts["programs"].items():
            tr = Translator()
            t = "\n".join(tr.line(l) for l in join_checks(t.splitlines())) + "\n"
            par["programs"][fn] = artifact(t)
          case["artifact"] = artifact(check_text)
        except ValueError as e:
          case["error"] = f"translate: {e}"
          stats["failed"] += 1
          manifest["cases"].append(case)
          continue
        except Exception as e:  # MLIR parse/serialize errors: record and go on.
          msg = " ".join(str(e).split())
          case["error"] = f"serialize: {msg[:600]}"
          stats["failed"] += 1
          manifest["cases"].append(case)
          continue
        case["entry"] = entry
        case["checks"] = check_text.count("@check.")
        case["parallel"] = par
        manifest["cases"].append(case)
        continue
      try:
        translated, entry = translate(args.corpus, text)
      except ValueError as e:
        case["error"] = f"translate: {e}"
        stats["failed"] += 1
        manifest["cases"].append(case)
        continue
      case["entry"] = entry
      case["checks"] = translated.count("@check.")
      key = hashlib.sha256(f"{SCRIPT_VERSION}\0{target}\0{translated}".encode()).hexdigest()
      rel = os.path.join(vdir, key + ".bc")
      dst = os.path.join(args.out, rel)
      if os.path.exists(dst):
        stats["cached"] += 1
        case["artifact"] = rel
        manifest["cases"].append(case)
        continue
      try:
        data = serialize(translated, target, jax_mlir.make_ir_context, ir, _jax)
      except Exception as e:  # MLIR parse/serialize errors: record and go on.
        msg = " ".join(str(e).split())
        case["error"] = f"serialize: {msg[:600]}"
        stats["failed"] += 1
        manifest["cases"].append(case)
        continue
      write_artifact(outdir, dst, data)
      stats["serialized"] += 1
      case["artifact"] = rel
      manifest["cases"].append(case)

  if not args.only:
    # Drop this version's artifacts of other targets or corpus contents, so
    # the cache does not grow without bound; other versions' directories
    # (and the flat layout of versions before 5) only once a day old, since
    # another checkout may be using them.
    live = {os.path.basename(c["artifact"]) for c in manifest["cases"] if "artifact" in c}
    for c in manifest["cases"]:
      par = c.get("parallel")
      if par:
        live.add(os.path.basename(par["inputs"]))
        live.update(os.path.basename(a) for a in par["programs"].values())
    for f in os.listdir(outdir):
      if f.endswith(".bc") and f not in live:
        os.remove(os.path.join(outdir, f))
        stats["pruned"] = stats.get("pruned", 0) + 1
    stale = time.time() - 86400
    base = os.path.join(args.out, args.corpus)
    for f in os.listdir(base):
      path = os.path.join(base, f)
      try:
        if os.path.getmtime(path) > stale or path == outdir:
          continue
        if f.endswith(".bc"):
          os.remove(path)
        elif f.startswith("v") and os.path.isdir(path):
          shutil.rmtree(path, ignore_errors=True)
      except OSError:
        pass  # removed by a concurrent run

  mpath = args.manifest or os.path.join(args.out, f"{args.corpus}-manifest.json")
  fd, tmp = tempfile.mkstemp(dir=os.path.dirname(mpath))
  with os.fdopen(fd, "w") as f:
    json.dump(manifest, f, indent=1)
  os.replace(tmp, mpath)
  print(f"{args.corpus}: target {target}: {len(manifest['cases'])} cases, "
        + ", ".join(f"{v} {k}" for k, v in stats.items()), file=sys.stderr)


if __name__ == "__main__":
  main()
