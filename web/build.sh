#!/usr/bin/env bash
# Builds the viewer into web/dist/ (index.html, main.js, the wasm): a static site that
# works offline from any static server. Installs what is missing: the wasm32 target,
# the wasm-bindgen CLI at exactly the version of the wasm-bindgen crate in Cargo.lock,
# and the npm packages of package-lock.json.
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
root="$(dirname "$web")"
cd "$root"

if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
    rustup target add wasm32-unknown-unknown
fi

version="$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)"
if [ -z "$version" ]; then
    echo "build.sh: no wasm-bindgen in Cargo.lock" >&2
    exit 1
fi
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }')" != "$version" ]; then
    # --locked first; without it if the registry no longer has a locked dependency.
    cargo install wasm-bindgen-cli --version "$version" --locked ||
        cargo install wasm-bindgen-cli --version "$version"
fi

cargo build --release --target wasm32-unknown-unknown -p idmodel-web
rm -rf "$web/pkg"
wasm-bindgen --target web --no-typescript --out-dir "$web/pkg" \
    "${CARGO_TARGET_DIR:-target}/wasm32-unknown-unknown/release/idmodel_web.wasm"

cd "$web"
if [ ! -x node_modules/.bin/esbuild ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
fi
rm -rf dist
mkdir -p dist
node_modules/.bin/esbuild src/main.js --bundle --format=esm --target=es2022 --minify \
    --outfile=dist/main.js --log-level=warning
cp index.html style.css dist/
cp pkg/idmodel_web_bg.wasm dist/
echo "build.sh: web/dist/ is ready ($(du -sh dist | cut -f1)); serve it with web/serve.sh"
