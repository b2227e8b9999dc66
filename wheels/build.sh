#!/usr/bin/env bash
# Builds the gojax wheel for Python 3.12 into dist/, checks it (tag matches
# the glibc symbol versions the library needs, exports, RECORD hashes), then
# installs it with the dependencies it declares into a clean venv, imports it
# and checks that JAX finds the gojax devices and runs a program on them.
# Usage: bash wheels/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
go=$(find_go)
export PATH="$(dirname "$go"):$PATH"
py=$(find_python312)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

"$py" -m venv "$tmp/build"
mkdir -p dist
"$tmp/build/bin/python" -m pip wheel --no-deps --wheel-dir "$tmp/out" .
whl=$(ls "$tmp"/out/gojax-*.whl)
cp "$whl" dist/
whl="dist/$(basename "$whl")"
"$py" wheels/check_wheel.py "$whl"

"$py" -m venv "$tmp/clean"
# What the wheel declares, and nothing else: a missing dependency fails the
# import below. The pins of .ci/requirements.txt keep the versions the
# suite tested (pip installs only what the wheel asks for).
PIP_DISABLE_PIP_VERSION_CHECK=1 "$tmp/clean/bin/python" -m pip install --quiet \
  --constraint .ci/requirements.txt "$whl"
(cd "$tmp" && "$tmp/clean/bin/python" -c '
import gojax
print("installed", gojax.__version__, gojax.library_path())
assert gojax.api_pointer() != 0
import jax, jax.numpy as jnp
devices = jax.devices("gojax")
print("gojax devices:", devices)
assert jax.devices()[0] == devices[0], (jax.devices(), devices)
assert float(jax.jit(lambda x: (x * 2).sum())(jnp.arange(4.0))) == 12.0
')
echo "wheel OK: $whl"
