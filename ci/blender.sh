#!/usr/bin/env bash
# Blender (headless) reads the quantized GLBs (`convert --quantize`) of every corpus model
# as it reads the plain ones: ci/blender_quantized.py compares every vertex of every frame.
# Installs Debian's blender and python3-numpy when missing and root; needs IDMODEL_CORPUS
# (else it says it skipped) and the release command (built here).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ -z "${IDMODEL_CORPUS:-}" ]; then
  echo "skipped: the Blender check of quantized GLBs (IDMODEL_CORPUS is not set)"
  exit 0
fi
if ! command -v blender >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq blender python3-numpy >/dev/null
  else
    echo "ci/blender.sh: blender missing (apt-get install blender python3-numpy as root)" >&2
    exit 1
  fi
fi
cargo build --quiet --release -p idmodel-cli
bin="$(realpath "${CARGO_TARGET_DIR:-target}/release/idmodel")"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
. ci/corpus-glbs.sh
corpus_glbs "$bin" "$out" q:--quantize
blender --version | head -1
blender -b --factory-startup --python-exit-code 1 --python ci/blender_quantized.py -- "${pairs[@]}" \
  > "$out/report.txt" 2>&1 || { grep -E 'FAIL|^blender:|Traceback|Error' "$out/report.txt" | tail -40; exit 1; }
grep -E 'FAIL|^blender:' "$out/report.txt"
