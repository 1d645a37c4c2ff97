#!/usr/bin/env bash
# The viewer's browser test: installs what is missing (Debian's chromium when root, the
# npm packages of web/package-lock.json), builds the site (web/build.sh), builds the
# command the test compares against, and runs web/tests/viewer.mjs. Its last line is
# "N passed, N failed". Needs IDMODEL_CORPUS for the corpus files (else they are skipped).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

if [ ! -x /usr/bin/chromium ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
        echo "ci/viewer.sh: /usr/bin/chromium missing (apt-get install chromium as root)" >&2
        exit 1
    fi
fi
(cd web && npm ci --no-audit --no-fund --loglevel=error)
web/build.sh
cargo build --release -p idmodel-cli
bin="$(realpath "${CARGO_TARGET_DIR:-target}/release/idmodel")"
IDMODEL_BIN="$bin" node web/tests/viewer.mjs
# three.js outside the browser: GLTFLoader in Node, with real PNG and JPEG
# decoders, loads the textures of an OpenArena player and of UFO:AI models as converted.
if [ -n "${IDMODEL_CORPUS:-}" ] && [ -d "$IDMODEL_CORPUS/assets" ]; then
  out="$(mktemp -d)"
  a="$IDMODEL_CORPUS/assets"
  "$bin" convert "$a/openarena/baseoa/models/players/kyonshi" -o "$out/kyonshi.glb" -q
  "$bin" convert "$a/ufoai/base/models/aliens/bloodspider/bloodspider.md2" -o "$out/bloodspider.glb" -q
  "$bin" convert "$a/ufoai/base/models/civilians/female/body01.md2" -o "$out/body01.glb" -q
  node web/tests/three-node.mjs "$out/kyonshi.glb" "$out/bloodspider.glb" "$out/body01.glb"
  rm -rf "$out"
fi
# three.js reads the quantized GLBs (--quantize, and --quantize --meshopt through its
# MeshoptDecoder) of every corpus model as the plain ones: every vertex of every frame
# within half the quantization step, normals within 3°.
if [ -n "${IDMODEL_CORPUS:-}" ]; then
  out="$(mktemp -d)"
  . ci/corpus-glbs.sh
  corpus_glbs "$bin" "$out" q:--quantize "m:--quantize --meshopt"
  echo "three.js: $(( ${#pairs[@]} / 2 )) quantized or compressed files against plain ones"
  node web/tests/three-quantized.mjs "${pairs[@]}" > "$out/report.txt" || { cat "$out/report.txt"; exit 1; }
  echo "three.js: $(grep -c '^ok ' "$out/report.txt") quantized or compressed GLBs read as their plain GLBs"
  rm -rf "$out"
fi
