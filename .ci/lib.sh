# Helpers sourced by the .ci scripts: find the tools on a fresh machine.

# The CPython versions gojax is tested on, oldest first: .ci/run runs the
# suite on the first and the last, wheels/build.sh builds one wheel for each.
GOJAX_PYTHONS=(3.12 3.13)

# find_python VERSION prints the path of a working CPython VERSION (e.g.
# 3.12). GOJAX_PYTHON wins when it is that version.
find_python() {
  local want=$1 c
  local roots=("${PYENV_ROOT:-}" "$HOME/.pyenv" /root/.pyenv)
  local candidates=("${GOJAX_PYTHON:-}" "python$want")
  for r in "${roots[@]}"; do
    [ -n "$r" ] && [ -d "$r/versions" ] || continue
    while IFS= read -r c; do candidates+=("$c"); done < <(
      ls -d "$r"/versions/"$want".*/bin/python"$want" 2>/dev/null | sort -rV)
  done
  candidates+=("/usr/local/bin/python$want" "/usr/bin/python$want")
  for c in "${candidates[@]}"; do
    [ -n "$c" ] || continue
    if command -v "$c" >/dev/null 2>&1 &&
      "$c" -c 'import sys, venv; sys.exit("%d.%d" % sys.version_info[:2] != sys.argv[1])' \
        "$want" >/dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  echo "no Python $want found (set GOJAX_PYTHON=/path/to/python$want)" >&2
  return 1
}

# find_go prints the path of the go command.
find_go() {
  if command -v go >/dev/null 2>&1; then command -v go; return 0; fi
  if [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go; return 0; fi
  echo "no Go toolchain found (gojax needs Go 1.26)" >&2
  return 1
}
