#!/usr/bin/env bash
# Hashes every file the CLI writes for every model in the corpus and the samples:
# `convert` to .glb, .gltf (+ .bin), .obj (+ .mtl, PNG skins), `render` to .png, the
# player folders assembled, and md5meshes with each md5anim of their folder. Prints one
# line per output, `sha256  input -> output` (exit codes and stderr too), sorted, so two
# builds can be compared with `diff`:
#
#   ci/output-hashes.sh target/release/idmodel > before.txt
#   # ...change...
#   ci/output-hashes.sh target/release/idmodel > after.txt && diff before.txt after.txt
#
# It is how the scene-layer refactor proved that every output stayed byte-identical.
set -u
bin="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
corpus="${IDMODEL_CORPUS:-$root/../shared/corpus}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

run() { # label, then the command's arguments (output paths inside $out)
  local label="$1"; shift
  rm -rf "$work/out"; mkdir -p "$work/out"
  (cd "$work/out" && "$bin" "$@" >"$work/stdout" 2>"$work/stderr"; echo "exit $?" >"$work/rc")
  echo "$(cat "$work/rc")  $label"
  echo "$(sed "s#$work/out/##g; s#$corpus/##g; s#$root/##g" "$work/stderr" "$work/stdout" | sha256sum | cut -c1-16)  $label -> messages"
  (cd "$work/out" && find . -type f | sort | while read -r f; do
    echo "$(sha256sum "$f" | cut -c1-64)  $label -> ${f#./}"
  done)
}

{
  files=$( (find "$corpus/mdl" "$corpus/md2" "$corpus/md3" "$corpus/md5" "$corpus/assets" -type f \
      \( -iname '*.mdl' -o -iname '*.md2' -o -iname '*.md3' -o -iname '*.md5mesh' -o -iname '*.md5anim' -o -iname '*.md5camera' \) 2>/dev/null;
    find "$root/samples" -type f) | sort)
  for f in $files; do
    rel="${f#$corpus/}"; rel="${rel#$root/}"
    run "$rel glb" convert "$f" -o m.glb
    run "$rel gltf" convert "$f" -o m.gltf
    run "$rel keep-axes glb" convert "$f" -o k.glb --keep-axes
    run "$rel obj" convert "$f" -o m.obj
    run "$rel png" render "$f" -o m.png --size 160x120
  done
  # Player folders (lower/upper/head.md3 side by side).
  for d in $(find "$corpus" -name lower.md3 -exec dirname {} \; | sort); do
    rel="${d#$corpus/}"
    if [ -f "$d/upper.md3" ] && [ -f "$d/head.md3" ]; then
      run "$rel player glb" convert "$d" -o p.glb
      run "$rel player frame obj" convert "$d" -o p.obj
    fi
  done
  # md5meshes with each md5anim beside them.
  for m in $(find "$corpus/md5" "$root/samples" -name '*.md5mesh' | sort); do
    for a in $(find "$(dirname "$m")" -maxdepth 1 -name '*.md5anim' | sort); do
      run "${m#$corpus/} + $(basename "$a") glb" convert "$m" --anim "$a" -o a.glb
      run "${m#$corpus/} + $(basename "$a") frame 1 png" render "$m" --anim "$a" --frame 1 -o a.png --size 96x96
    done
  done
  # A folder batch.
  run "samples batch" convert "$root/samples" -o batch
} | sed "s#$root/##g"
