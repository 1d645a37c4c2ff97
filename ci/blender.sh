#!/usr/bin/env bash
# Blender (headless) reads the quantized GLBs (`convert --quantize`) of every corpus model
# as it reads the plain ones: ci/blender_quantized.py compares every vertex of every frame.
# Then every corpus MDL, MD2 and MD3 goes through Blender's glTF importer and exporter with
# their defaults and back (ci/blender_roundtrip.py, ci/blender_compare.py).
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

# The trip through Blender with its defaults (File > Import, File > Export: the idmodel
# extras are dropped): every corpus MDL, MD2 and MD3 comes back with the same frames,
# skins, tags and bounds. A model its own engine refuses is written back --unchecked.
rt="$out/trip"
mkdir -p "$rt"
trip=()
originals=()
i=0
while IFS= read -r -d '' f; do
  i=$((i + 1))
  "$bin" convert "$f" -o "$rt/$i.glb" -q 2>/dev/null || continue
  trip+=("$rt/$i.glb" "$rt/$i.blender.glb")
  originals+=("$i:$f")
done < <(find "$IDMODEL_CORPUS/mdl" "$IDMODEL_CORPUS/md2" "$IDMODEL_CORPUS/md3" -maxdepth 1 -type f \
  \( -iname '*.mdl' -o -iname '*.md2' -o -iname '*.md3' \) -print0 | sort -z)
blender -b --factory-startup --python-exit-code 1 --python ci/blender_roundtrip.py -- "${trip[@]}" \
  > "$rt/report.txt" 2>&1 || { grep -E 'FAIL|^blender:|Traceback|Error' "$rt/report.txt" | tail -40; exit 1; }
grep -E 'FAIL|^blender:' "$rt/report.txt"
compare=()
for entry in "${originals[@]}"; do
  n="${entry%%:*}"
  f="${entry#*:}"
  ext="${f##*.}"
  flags=()
  "$bin" check "$f" --fail-on refused >/dev/null 2>&1 || flags=(--unchecked)
  "$bin" convert "$rt/$n.blender.glb" -o "$rt/$n.back.$ext" -q "${flags[@]}"
  compare+=("$f" "$rt/$n.back.$ext")
done
python3 ci/blender_compare.py "$bin" "${compare[@]}"
