#!/usr/bin/env bash
# Builds the viewer and serves web/dist/ on http://127.0.0.1:${PORT:-8000}/ (no network needed).
set -euo pipefail
web="$(cd "$(dirname "$0")" && pwd)"
"$web/build.sh"
echo "serving on http://127.0.0.1:${PORT:-8000}/"
exec python3 -m http.server "${PORT:-8000}" --bind 127.0.0.1 -d "$web/dist"
