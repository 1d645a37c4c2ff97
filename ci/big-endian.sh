#!/usr/bin/env bash
# Runs the library crates' tests (unit, integration with the corpus, doc tests excluded)
# on a big-endian machine: s390x-unknown-linux-gnu, linked with Debian's
# gcc-s390x-linux-gnu and run under qemu-user. Installs what it needs when run as root.
#
#   ci/big-endian.sh            # the library crates
#   CRATES="-p idmodel-md3" ci/big-endian.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
target=s390x-unknown-linux-gnu

qemu_major() { qemu-s390x --version 2>/dev/null | head -1 | sed -E 's/.*version ([0-9]+).*/\1/'; }
# QEMU before 8.0 emulates MDEBR/MDEB (f32 x f32 -> f64 multiply) wrongly (fixed upstream
# in 8.0), and LLVM selects them from opt-level 1 up: Doom's InvSqrt then gives 0.575 for
# 1.0. Debian 12 ships QEMU 7.2, so take bookworm-backports' QEMU where that is the case.
if ! command -v s390x-linux-gnu-gcc >/dev/null || ! command -v qemu-s390x >/dev/null \
  || [ "$(qemu_major)" -lt 8 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    if grep -qs 'VERSION_CODENAME=bookworm' /etc/os-release; then
      echo 'deb http://deb.debian.org/debian bookworm-backports main' \
        > /etc/apt/sources.list.d/bookworm-backports.list
      apt-get update -qq
      apt-get install -y -qq -t bookworm-backports qemu-user >/dev/null
    fi
    apt-get install -y -qq gcc-s390x-linux-gnu libc6-dev-s390x-cross >/dev/null
    command -v qemu-s390x >/dev/null || apt-get install -y -qq qemu-user >/dev/null
  else
    echo "big-endian: needs gcc-s390x-linux-gnu and qemu-user"; exit 1
  fi
fi
rustup target list --installed | grep -q "^$target\$" || rustup target add "$target"

export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_LINKER=s390x-linux-gnu-gcc
export CARGO_TARGET_S390X_UNKNOWN_LINUX_GNU_RUNNER="qemu-s390x -L /usr/s390x-linux-gnu"
crates="${CRATES:--p idmodel-core -p idmodel-mdl -p idmodel-md2 -p idmodel-md3 -p idmodel-md5 -p idmodel-scene}"

if [ "$(qemu_major)" -lt 8 ]; then
  # An old QEMU is all there is: build without the optimisations that select MDEBR.
  echo "big-endian: QEMU $(qemu_major) mis-emulates MDEBR; testing at opt-level 0"
  export CARGO_PROFILE_TEST_OPT_LEVEL=0
fi
echo "qemu: $(qemu-s390x --version | head -1)"
echo "target $target: $(rustc --print cfg --target "$target" | grep target_endian)"
# shellcheck disable=SC2086
if [ -n "${CRATES:-}" ]; then
  cargo test --target "$target" $crates --lib --tests
else
  cargo test --target "$target" -p idmodel-core -p idmodel-mdl -p idmodel-md2 -p idmodel-md3 \
    -p idmodel-md5 --lib --tests
  # The scene's own tests and the adapters' checks of bounded, finite output; the corpus
  # round trips back to MD2/MDL/MD3/md5 (tests/back.rs, md3_back.rs, md5_back.rs) run
  # natively only: emulated they take longer than the rest of CI, and the writers they
  # drive are the format crates', whose round-trip tests run above.
  cargo test --target "$target" -p idmodel-scene --lib --test conversion_bounds --test finite \
    --test md2_sidecars
fi
# The facade's corpus test too (the sweeps and resource bounds take far longer emulated;
# they test the same parsers the crates' own tests cover).
[ -n "${CRATES:-}" ] || cargo test --target "$target" -p idmodel --test corpus
