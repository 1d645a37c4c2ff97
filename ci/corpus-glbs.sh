# Sourced by ci/viewer.sh and ci/blender.sh: `corpus_glbs BIN OUT SUFFIX:FLAGS...` converts
# every corpus model (IDMODEL_CORPUS's mdl, md2, md3 and md5 folders) with the command BIN
# into OUT, once plainly (N.glb) and once per SUFFIX:FLAGS argument (N.SUFFIX.glb with
# FLAGS, space-separated), and fills the array `pairs` with "plain other" pairs. Models
# the command refuses are left out.
corpus_glbs() {
  local bin="$1" out="$2"
  shift 2
  pairs=()
  local i=0 f spec
  while IFS= read -r -d '' f; do
    i=$((i + 1))
    "$bin" convert "$f" -o "$out/$i.glb" -q 2>/dev/null || continue
    for spec in "$@"; do
      # shellcheck disable=SC2086 # FLAGS are words
      "$bin" convert "$f" -o "$out/$i.${spec%%:*}.glb" ${spec#*:} -q
      pairs+=("$out/$i.glb" "$out/$i.${spec%%:*}.glb")
    done
  done < <(find "$IDMODEL_CORPUS/mdl" "$IDMODEL_CORPUS/md2" "$IDMODEL_CORPUS/md3" "$IDMODEL_CORPUS/md5" \
    -type f \( -iname '*.mdl' -o -iname '*.md2' -o -iname '*.md3' -o -iname '*.md5mesh' \) -print0 | sort -z)
}
