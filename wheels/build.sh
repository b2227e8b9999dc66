#!/usr/bin/env bash
# Builds the gojax wheel for Python 3.12 into dist/, checks it (tag matches
# the glibc symbol versions the library needs, exports, RECORD hashes), then
# installs it into a clean venv and imports it.
# Usage: bash wheels/build.sh [--with-jax]   (--with-jax: also install the
#        pinned jax and check that JAX finds the gojax devices)
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
"$tmp/clean/bin/python" -m pip install --no-deps "$whl"
(cd "$tmp" && "$tmp/clean/bin/python" -c '
import gojax
print("installed", gojax.__version__, gojax.library_path())
assert gojax.api_pointer() != 0
')
if [ "${1:-}" = "--with-jax" ]; then
  "$tmp/clean/bin/python" -m pip install --quiet --requirement .ci/requirements.txt
  (cd "$tmp" && "$tmp/clean/bin/python" -c '
import jax
print("gojax devices:", jax.devices("gojax"))
')
fi
echo "wheel OK: $whl"
