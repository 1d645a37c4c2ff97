#!/usr/bin/env bash
# The Python package: builds its abi3 wheel and source distribution with maturin,
# installs the wheel into a fresh virtual environment, runs the pytest suite against it
# (the corpus compared with the command's `info --json` and `check --json`), and prints
# the comparison with vgio (the pure-Python reader on PyPI).
#
#   ci/python.sh            (from the repository root; IDMODEL_CORPUS for the corpus tests)
#
# Without python3 (3.8 or later) it prints "skipped" and exits 0, unless
# IDMODEL_REQUIRE_CORPUS=1 (CI), where that is a failure. The wheel is left in
# target/wheels/ for the Blender add-on's tests.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

if ! command -v python3 >/dev/null 2>&1 || ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 8))'; then
  if [ "${IDMODEL_REQUIRE_CORPUS:-}" = 1 ]; then
    echo "error: python3 (3.8 or later) is required for the Python package's tests" >&2
    exit 1
  fi
  echo "skipped: the Python package (no python3 3.8 or later)"
  exit 0
fi

out="$root/target/wheels"
tools="$root/target/python-tools"
fresh="$root/target/python-fresh"
rm -rf "$out" "$fresh"
mkdir -p "$out"

# Build tools in their own environment (maturin; vgio and numpy for the comparison).
if [ ! -x "$tools/bin/maturin" ]; then
  python3 -m venv "$tools"
  "$tools/bin/pip" install --quiet --disable-pip-version-check "maturin>=1.7,<2" numpy vgio
fi

echo "-- wheel and sdist (maturin)"
"$tools/bin/maturin" build --release -m python/Cargo.toml -o "$out" 2>&1 | grep -E "Built|warning|error" || true
"$tools/bin/maturin" sdist -m python/Cargo.toml -o "$out" 2>&1 | grep -E "Built|warning|error" || true
wheel=$(ls "$out"/idmodel-*-abi3-*.whl)
ls "$out"/idmodel-*.tar.gz >/dev/null
echo "built $(basename "$wheel") and $(basename "$(ls "$out"/idmodel-*.tar.gz)")"

echo "-- a fresh virtual environment installs the wheel"
python3 -m venv "$fresh"
"$fresh/bin/pip" install --quiet --disable-pip-version-check "$wheel" pytest
"$fresh/bin/python" -c 'import idmodel; print("idmodel", idmodel.__version__, "from", idmodel.__file__)'

# The command the tests compare with: the release build (the static-build and sweep
# steps have built its dependencies).
cargo build --release -p idmodel-cli --quiet
export IDMODEL_BIN="$root/target/release/idmodel"

echo "-- pytest"
# From the root, so that the installed package is imported, not python/idmodel.
"$fresh/bin/python" -m pytest -q -p no:cacheprovider python/tests

echo "-- every frame of MDL and MD2 into numpy, against vgio (informative: speed is not a test)"
if [ -n "${IDMODEL_CORPUS:-}" ]; then
  PYTHONPATH="$("$fresh/bin/python" -c 'import idmodel, os; print(os.path.dirname(os.path.dirname(idmodel.__file__)))')" \
    "$tools/bin/python" benches/compare/python_vs_vgio.py || true
else
  echo "skipped: the vgio comparison (no IDMODEL_CORPUS)"
fi
