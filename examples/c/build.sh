#!/usr/bin/env bash
# Builds examples/c/idmodel_info against the static library of idmodel-capi (release).
#
#   examples/c/build.sh            # -> examples/c/idmodel_info
#   CFLAGS="-fsanitize=address,undefined" OUT=/tmp/x examples/c/build.sh
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
cargo build --release -q -p idmodel-capi
target="${CARGO_TARGET_DIR:-$root/target}"
# The default (std) build of the static library needs the system libraries Rust's std uses.
${CC:-cc} -std=c99 -Wall -Wextra -Werror -O2 ${CFLAGS:-} -I crates/capi/include \
  "$here/idmodel_info.c" "$target/release/libidmodel_capi.a" -lpthread -ldl -lm \
  -o "${OUT:-$here/idmodel_info}"
