#!/usr/bin/env bash
# Installs what is missing, builds the page and serves it at
# http://127.0.0.1:8080 with the bundled catalog.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh build
source scripts/env.sh
echo "[serve] trunk serve --release on http://127.0.0.1:8080 (Ctrl-C to stop)"
# No live reload: Trunk fills its reload script in per request, so no hash
# in the page's Content-Security-Policy (scripts/csp.sh) could allow it.
exec trunk serve --release --no-autoreload
