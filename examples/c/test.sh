#!/usr/bin/env bash
# The C API's test suite (run by .ci/run):
#  1. every model file of $IDMODEL_CORPUS/{mdl,md2,md3,md5} through examples/c/idmodel_info
#     prints the format, frames, vertices and triangles `idmodel info --json` prints;
#  2. test_capi exercises every call on each of them (short arrays, null and misaligned
#     pointers, overlaps, released handles, every prefix of the file);
#  3. every file of $IDMODEL_CORPUS/malformed is refused with an error (never a crash) where
#     `idmodel info` refuses it; the few that idmodel reads because the engine loads them
#     (ARCHITECTURE.md rule 1) must agree with `idmodel info --json` and get a hazard from
#     idmodel_check;
#  4. all of it again built with -fsanitize=address,undefined -fno-sanitize-recover=all,
#     which must report nothing.
# Without IDMODEL_CORPUS only the samples/ files and the self checks run.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
target="${CARGO_TARGET_DIR:-$root/target}"
# Two builds, not one: built together, the CLI's features would change the library's.
cargo build --release -q -p idmodel-capi
cargo build --release -q -p idmodel-cli
cli="$target/release/idmodel"
lib="$target/release/libidmodel_capi.a"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

build() { # name flags...
  local name="$1"; shift
  ${CC:-cc} -std=c99 -Wall -Wextra -Werror -O1 -g "$@" -I crates/capi/include \
    "$here/$name.c" "$lib" -lpthread -ldl -lm -o "$out/$name$suffix"
}
suffix="" build idmodel_info
suffix="" build test_capi
san=(-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
suffix="-san" build idmodel_info "${san[@]}"
suffix="-san" build test_capi "${san[@]}"
OUT="$here/idmodel_info" "$here/build.sh"

models=()
while IFS= read -r -d '' f; do models+=("$f"); done < <(
  { find samples -maxdepth 1 -type f -print0
    if [ -n "${IDMODEL_CORPUS:-}" ]; then
      find "$IDMODEL_CORPUS"/mdl "$IDMODEL_CORPUS"/md2 "$IDMODEL_CORPUS"/md3 "$IDMODEL_CORPUS"/md5 \
        -type f -print0
    fi; } | grep -zaiE '\.(mdl|md2|md3|md5mesh|md5anim|md5camera)$' | sort -z)
malformed=()
if [ -n "${IDMODEL_CORPUS:-}" ]; then
  while IFS= read -r -d '' f; do malformed+=("$f"); done < <(
    find "$IDMODEL_CORPUS/malformed" -type f -print0 | sort -z)
else
  echo "notice: IDMODEL_CORPUS is not set; only samples/ and the self checks run"
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1" UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
# The four keys the example prints, from the CLI's JSON, in the example's spelling.
declare -A counts=()
# Sets $want (each file's CLI answer is computed once for both passes).
json_counts() {
  if [ -z "${counts[$1]:-}" ]; then counts[$1]=$(json_counts_of "$1"); fi
  want="${counts[$1]}"
}
json_counts_of() {
  "$cli" info --json "$1" | python3 -c \
    'import json,sys; j=json.load(sys.stdin); print(json.dumps({k: j[k] for k in ("format","frames","vertices","triangles")}, separators=(",",":")))'
}
fails=0
started=$(date +%s)
for s in "" "-san"; do
  "$out/test_capi$s" --self || { echo "FAIL: self checks ($s)"; fails=$((fails + 1)); }
  for f in "${models[@]}"; do
    json_counts "$f"
    got=$("$out/idmodel_info$s" "$f") || { echo "FAIL: idmodel_info$s $f"; fails=$((fails + 1)); continue; }
    if [ "$got" != "$want" ]; then
      echo "FAIL: $f: C API $got, idmodel info --json $want"; fails=$((fails + 1))
    fi
    "$out/test_capi$s" "$f" || { echo "FAIL: test_capi$s $f"; fails=$((fails + 1)); }
  done
  for f in "${malformed[@]}"; do
    if "$cli" info --json "$f" >/dev/null 2>&1; then
      # Read by idmodel because the engine loads it: the same counts, and a hazard.
      json_counts "$f"
      got=$("$out/idmodel_info$s" "$f") || { echo "FAIL: idmodel_info$s $f"; fails=$((fails + 1)); }
      [ "$got" = "$want" ] || { echo "FAIL: $f: C API $got, idmodel info --json $want"; fails=$((fails + 1)); }
    elif "$out/idmodel_info$s" "$f" >/dev/null 2>"$out/err"; then
      echo "FAIL: $f is refused by idmodel info, but idmodel_info$s printed counts"; fails=$((fails + 1))
    elif [ "$(wc -l <"$out/err")" != 1 ]; then
      echo "FAIL: $f: idmodel_info$s did not fail with one line:"; cat "$out/err"; fails=$((fails + 1))
    fi
    r=$("$out/test_capi$s" --error "$f") || { echo "FAIL: test_capi$s --error $f"; fails=$((fails + 1)); }
    [ -n "$s" ] || echo "  ${f#"${IDMODEL_CORPUS}"/}: $r"
  done
done
echo "C API: ${#models[@]} models and ${#malformed[@]} malformed files, plain and under ASan+UBSan, in $(( $(date +%s) - started )) s: $fails failures"
[ "$fails" = 0 ]
