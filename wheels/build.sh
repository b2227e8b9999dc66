#!/usr/bin/env bash
# Builds one gojax wheel per tested CPython (GOJAX_PYTHONS in .ci/lib.sh)
# into dist/, checks each (interpreter tag, platform tag against the glibc
# symbol versions the library needs, exports, RECORD hashes), then installs
# it with the dependencies it declares into a clean venv of that interpreter,
# imports it and checks that JAX finds the gojax devices and runs a program
# on them.
# Usage: bash wheels/build.sh [PYTHON_VERSION...]   (default: all tested)
set -euo pipefail
cd "$(dirname "$0")/.."
source .ci/lib.sh
go=$(find_go)
export PATH="$(dirname "$go"):$PATH"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p dist

# build_one VERSION: build, check, install and smoke-test the wheel for it.
build_one() {
  local ver=$1 py whl dir="$tmp/$1"
  py=$(find_python "$ver")
  mkdir -p "$dir"
  "$py" -m venv "$dir/build"
  "$dir/build/bin/python" -m pip wheel --no-deps --wheel-dir "$dir/out" .
  whl=$(ls "$dir"/out/gojax-*.whl)
  cp "$whl" dist/
  whl="dist/$(basename "$whl")"
  "$py" wheels/check_wheel.py "$whl"

  "$py" -m venv "$dir/clean"
  # What the wheel declares, and nothing else: a missing dependency fails the
  # import below. The pins of .ci/requirements.txt keep the versions the
  # suite tested (pip installs only what the wheel asks for).
  PIP_DISABLE_PIP_VERSION_CHECK=1 "$dir/clean/bin/python" -m pip install --quiet \
    --constraint .ci/requirements.txt "$whl"
  (cd "$dir" && "$dir/clean/bin/python" -c '
import gojax, platform
print("installed", gojax.__version__, "on CPython", platform.python_version(), gojax.library_path())
assert gojax.api_pointer() != 0
import jax, jax.numpy as jnp
devices = jax.devices("gojax")
print("gojax devices:", devices)
assert jax.devices()[0] == devices[0], (jax.devices(), devices)
assert float(jax.jit(lambda x: (x * 2).sum())(jnp.arange(4.0))) == 12.0
')
  echo "wheel OK: $whl"
}

versions=("$@")
[ "${#versions[@]}" -gt 0 ] || versions=("${GOJAX_PYTHONS[@]}")
for ver in "${versions[@]}"; do
  build_one "$ver"
done
