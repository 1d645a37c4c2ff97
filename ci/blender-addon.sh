#!/usr/bin/env bash
# The Blender add-on (blender/), headless, on corpus models: blender/build.py packages it
# with the idmodel wheel; Blender 3.4 (Debian's `blender`) installs the plain add-on zip,
# the `bpy` 4.5 LTS module installs the 4.2+ extension zip; each runs
# blender/tests/run_addon.py (import, export, compare; an over-limit model refused, then
# fitted). See docs/blender.md.
#
#   IDMODEL_CORPUS=../shared/corpus ci/blender-addon.sh
#
# IDMODEL_WHEEL: the idmodel wheel (default: the newest idmodel-*.whl in
#   ${CARGO_TARGET_DIR:-target}/wheels or /tmp/idmodel-wheel).
# IDMODEL_BPY_VENV: a CPython 3.11 venv with bpy 4.5 (default
#   ~/.cache/idmodel/bpy-4.5; made here with `pip install bpy==4.5.* numpy` when absent).
# Without the corpus, the wheel, Blender or CPython 3.11 it prints "skipped: ..." and
# exits 0, unless IDMODEL_REQUIRE_CORPUS is set: then it fails.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

skip() {
  if [ -n "${IDMODEL_REQUIRE_CORPUS:-}" ]; then
    echo "ci/blender-addon.sh: $1 (IDMODEL_REQUIRE_CORPUS is set)" >&2
    exit 1
  fi
  echo "skipped: $1"
}

if [ -z "${IDMODEL_CORPUS:-}" ]; then
  skip "the Blender add-on tests (IDMODEL_CORPUS is not set)"
  exit 0
fi
corpus="$(cd "$root" && realpath "$IDMODEL_CORPUS")"

wheel="${IDMODEL_WHEEL:-}"
if [ -z "$wheel" ]; then
  wheel="$(ls -t "${CARGO_TARGET_DIR:-target}"/wheels/idmodel-*.whl /tmp/idmodel-wheel/idmodel-*.whl 2>/dev/null | head -1 || true)"
fi
if [ -z "$wheel" ] || [ ! -f "$wheel" ]; then
  skip "the Blender add-on tests (no idmodel wheel: maturin build --release -m python/Cargo.toml, or set IDMODEL_WHEEL)"
  exit 0
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
python3 blender/build.py --wheel "$wheel" --out "$out/dist" >/dev/null
addon_zip="$(ls "$out"/dist/idmodel_blender-*-addon.zip)"
extension_zip="$(ls "$out"/dist/idmodel-*-extension.zip)"
failed=0

# run LABEL LOG COMMAND...: the test, its result lines, the log's end on a failure.
run() {
  local label="$1" log="$2"
  shift 2
  echo "== $label"
  if "$@" >"$log" 2>&1; then
    grep -E '^(ok|FAIL|summary|blender )' "$log" || true
  else
    grep -E '^(ok|FAIL|summary|blender )' "$log" || true
    grep -E 'Traceback|Error|^  File' "$log" | grep -v Draco | tail -20 || true
    echo "FAIL: $label" >&2
    failed=1
  fi
}

# Blender 3.x: the plain add-on zip, installed through Preferences > Add-ons > Install
# into a scratch user folder; `idmodel` comes from the zip's vendor/ folder.
if command -v blender >/dev/null 2>&1; then
  mkdir -p "$out/b3-user/scripts" "$out/b3-user/config"
  run "$(blender --version | head -1), plain add-on zip" "$out/b3.log" \
    env BLENDER_USER_SCRIPTS="$out/b3-user/scripts" BLENDER_USER_CONFIG="$out/b3-user/config" \
    IDMODEL_ADDON_ZIP="$addon_zip" \
    blender -b --factory-startup --python-exit-code 1 --python blender/tests/run_addon.py -- \
    "$corpus" "$out/b3"
else
  skip "Blender 3.x add-on tests (no blender: apt-get install blender python3-numpy)"
fi

# bpy 4.5 LTS (Blender as a Python module, CPython 3.11): the 4.2+ extension zip,
# installed by Blender's extension system, which installs the wheel into its Python.
venv="${IDMODEL_BPY_VENV:-${XDG_CACHE_HOME:-$HOME/.cache}/idmodel/bpy-4.5}"
if [ ! -x "$venv/bin/python" ]; then
  py=""
  for c in python3.11 python3; do
    if command -v "$c" >/dev/null 2>&1 && [ "$("$c" -c 'import sys; print(sys.version_info[:2] == (3, 11))')" = True ]; then
      py="$c"
      break
    fi
  done
  if [ -n "$py" ]; then
    echo "== making $venv (bpy 4.5 for CPython 3.11)"
    "$py" -m venv "$venv"
    "$venv/bin/pip" install --quiet "bpy==4.5.*" numpy
  fi
fi
if [ -x "$venv/bin/python" ]; then
  mkdir -p "$out/b4-user"
  run "bpy $("$venv/bin/pip" show bpy 2>/dev/null | sed -n 's/^Version: //p') module, extension zip" "$out/b4.log" \
    env BLENDER_USER_RESOURCES="$out/b4-user" IDMODEL_ADDON_ZIP="$extension_zip" \
    "$venv/bin/python" blender/tests/run_addon.py "$corpus" "$out/b4"
else
  skip "bpy 4.5 add-on tests (no CPython 3.11 to make a venv with bpy 4.5)"
fi

exit "$failed"
