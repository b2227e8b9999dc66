# Helpers sourced by the .ci scripts: find the tools on a fresh machine.

# find_python312 prints the path of a working CPython 3.12 (GOJAX_PYTHON wins).
find_python312() {
  local c
  local roots=("${PYENV_ROOT:-}" "$HOME/.pyenv" /root/.pyenv)
  local candidates=("${GOJAX_PYTHON:-}" python3.12)
  for r in "${roots[@]}"; do
    [ -n "$r" ] && [ -d "$r/versions" ] || continue
    while IFS= read -r c; do candidates+=("$c"); done < <(
      ls -d "$r"/versions/3.12.*/bin/python3.12 2>/dev/null | sort -rV)
  done
  candidates+=(/usr/local/bin/python3.12 /usr/bin/python3.12)
  for c in "${candidates[@]}"; do
    [ -n "$c" ] || continue
    if command -v "$c" >/dev/null 2>&1 &&
      "$c" -c 'import sys, venv; sys.exit(sys.version_info[:2] != (3, 12))' >/dev/null 2>&1; then
      command -v "$c"
      return 0
    fi
  done
  echo "no Python 3.12 found (set GOJAX_PYTHON=/path/to/python3.12)" >&2
  return 1
}

# find_go prints the path of the go command.
find_go() {
  if command -v go >/dev/null 2>&1; then command -v go; return 0; fi
  if [ -x /usr/local/go/bin/go ]; then echo /usr/local/go/bin/go; return 0; fi
  echo "no Go toolchain found (gojax needs Go 1.26)" >&2
  return 1
}
