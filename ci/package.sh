#!/usr/bin/env bash
# Packages every publishable crate of the workspace as `cargo publish` would, checks each
# tarball and prints one line per crate with its size. Exits non-zero on any problem.
#
#   ci/package.sh
#
# Each tarball must exist, hold README.md, LICENSE-MIT and LICENSE-APACHE (the licence files
# are symlinks in the crate folders: the tarball must hold the root files' content), and
# nothing outside the crate's sources and front matter (no tests, benches, samples,
# pictures, ci/, web/ or fuzz/). `cargo package` itself refuses a dependency with a version
# on an unpublished crate and a dev-dependency cycle (see the hint printed when it fails).
#
# Members with `publish = false` (idmodel-test-support, idmodel-web, idmodel-fuzz) are
# excluded. The tarballs land in the target directory's `package/` folder
# (`${CARGO_TARGET_DIR:-target}/package`). Nothing is compiled (`--no-verify`); the crates.io
# index is read to write each package's Cargo.lock.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

say() { echo "== $*"; }

# name, version and `publish` of every workspace member, as "name version yes|no" lines.
say "listing the workspace members (cargo metadata --no-deps)"
metadata="$(cargo metadata --no-deps --format-version 1)"
if command -v jq >/dev/null 2>&1; then
  members="$(jq -r '.packages[] | "\(.name) \(.version) \(if .publish == [] then "no" else "yes" end)"' <<<"$metadata")"
  target_dir="$(jq -r '.target_directory' <<<"$metadata")"
elif command -v python3 >/dev/null 2>&1; then
  members="$(python3 -c '
import json, sys
m = json.load(sys.stdin)
for p in m["packages"]:
    print(p["name"], p["version"], "no" if p.get("publish") == [] else "yes")
' <<<"$metadata")"
  target_dir="$(python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])' <<<"$metadata")"
else
  echo "error: ci/package.sh needs jq or python3 to read cargo metadata" >&2
  exit 1
fi
package_dir="$target_dir/package"

publishable=()
unpublished=()
while read -r name version publish; do
  if [ "$publish" = yes ]; then publishable+=("$name $version"); else unpublished+=("$name"); fi
done <<<"$members"
echo "publishable: $(printf '%s\n' "${publishable[@]}" | cut -d' ' -f1 | tr '\n' ' ')"
echo "unpublished: ${unpublished[*]}"

# Stale tarballs would hide a crate that failed to package.
for entry in "${publishable[@]}"; do
  read -r name version <<<"$entry"
  rm -f "$package_dir/$name-$version.crate"
done

excludes=()
for name in "${unpublished[@]}"; do excludes+=(--exclude "$name"); done
say "cargo package --workspace --no-verify --allow-dirty ${excludes[*]}"
# The "ignoring test/benchmark/example … not included in the published package" warnings are
# expected: tests and benches need the workspace's samples and unpublished test helpers.
set +e
cargo package --workspace --no-verify --allow-dirty "${excludes[@]}" 2>&1 \
  | grep -v '^warning: ignoring \(test\|benchmark\|example\) `'
status=("${PIPESTATUS[@]}")
set -e
if [ "${status[0]}" -ne 0 ]; then
  cat >&2 <<'EOF'
error: cargo package failed. "no matching package named `X` found" usually means a
dependency with a `version` on an unpublished crate (idmodel-test-support, idmodel-web), or
a dev-dependency with a `version` on a workspace crate that depends back on this one
(idmodel-scene -> idmodel-gltf): write such dev-dependencies as `{ path = "..." }` only,
so that cargo strips them from the published manifest.
EOF
  exit 1
fi

say "checking the tarballs in $package_dir"
problems=0
problem() { echo "  problem: $*" >&2; problems=$((problems + 1)); }

# What a tarball may hold, relative to its top folder.
allowed='^(Cargo\.toml|Cargo\.toml\.orig|Cargo\.lock|\.cargo_vcs_info\.json|README\.md|CHANGELOG\.md|LICENSE-MIT|LICENSE-APACHE|cbindgen\.toml|src/.*\.rs|examples/.*\.rs|include/.*\.h)$'

for entry in "${publishable[@]}"; do
  read -r name version <<<"$entry"
  crate="$package_dir/$name-$version.crate"
  if [ ! -f "$crate" ]; then
    problem "$name: no $crate"
    continue
  fi
  files="$(tar tzf "$crate" | sed "s|^$name-$version/||")"
  for need in Cargo.toml README.md LICENSE-MIT LICENSE-APACHE; do
    grep -qx "$need" <<<"$files" || problem "$name: $need missing from the tarball"
  done
  for licence in LICENSE-MIT LICENSE-APACHE; do
    if grep -qx "$licence" <<<"$files" \
      && ! tar xzf "$crate" -O "$name-$version/$licence" | cmp -s - "$root/$licence"; then
      problem "$name: $licence in the tarball differs from the workspace root's"
    fi
  done
  stray="$(grep -Ev "$allowed" <<<"$files" || true)"
  [ -z "$stray" ] || problem "$name: unexpected files in the tarball: $(tr '\n' ' ' <<<"$stray")"
  size=$(wc -c <"$crate")
  printf '%-22s %-8s %8d bytes  %3d files  %s\n' "$name" "$version" "$size" \
    "$(wc -l <<<"$files")" "$crate"
done

if [ "$problems" -ne 0 ]; then
  echo "ci/package.sh: $problems problem(s)" >&2
  exit 1
fi
say "ok: ${#publishable[@]} crates packaged with README.md, LICENSE-MIT and LICENSE-APACHE"
