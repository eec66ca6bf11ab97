#!/usr/bin/env bash
# Installs what is missing, builds the page and serves it at
# http://127.0.0.1:8080 with the bundled catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
source scripts/env.sh
echo "[serve] trunk serve --release on http://127.0.0.1:8080 (Ctrl-C to stop)"
exec trunk serve --release
