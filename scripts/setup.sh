#!/usr/bin/env bash
# Installs what building and testing whichgpu needs, skipping whatever is
# already present at the pinned version. Idempotent; prints what it does.
# Usage: scripts/setup.sh [build|test]   (test also installs Chromium)
set -euo pipefail
cd "$(dirname "$0")/.."

TRUNK_VERSION=0.21.14
BINARYEN_VERSION=132
# axe-core: the accessibility checker the end-to-end test injects (test mode only; never shipped).
AXE_VERSION=4.10.2
# wasm-bindgen-cli must equal the wasm-bindgen crate in Cargo.lock exactly.
WASM_BINDGEN_VERSION=$(awk '/^name = "wasm-bindgen"$/ {getline; gsub(/[^0-9.]/, "", $0); print; exit}' Cargo.lock 2>/dev/null || true)
WASM_BINDGEN_VERSION=${WASM_BINDGEN_VERSION:-0.2.130}
TOOLS_DIR="${WHICHGPU_TOOLS:-$HOME/.local/share/whichgpu-tools}"
export PATH="$HOME/.cargo/bin:$TOOLS_DIR/node_modules/.bin:$PATH"

say() { printf '[setup] %s\n' "$*"; }

if rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "wasm32-unknown-unknown target: present"
else
  say "adding rustup target wasm32-unknown-unknown"
  rustup target add wasm32-unknown-unknown
fi

if command -v trunk >/dev/null && trunk --version | grep -q " $TRUNK_VERSION\$"; then
  say "trunk $TRUNK_VERSION: present"
else
  say "installing trunk $TRUNK_VERSION (cargo install, several minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked --no-default-features
fi

if command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q " $WASM_BINDGEN_VERSION\$"; then
  say "wasm-bindgen-cli $WASM_BINDGEN_VERSION: present"
else
  say "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (cargo install, a few minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION" --force
fi

if command -v wasm-opt >/dev/null && wasm-opt --version | grep -q "version $BINARYEN_VERSION"; then
  say "wasm-opt (binaryen $BINARYEN_VERSION): present"
else
  say "installing binaryen@$BINARYEN_VERSION from npm into $TOOLS_DIR"
  mkdir -p "$TOOLS_DIR"
  npm install --prefix "$TOOLS_DIR" --no-audit --no-fund "binaryen@$BINARYEN_VERSION" >/dev/null
fi

if [ "${1:-build}" = test ]; then
  if [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ] && fc-list 2>/dev/null | grep -qi "wqy\|noto sans cjk"; then
    say "chromium, chromedriver and a CJK font: present"
  else
    say "installing Debian chromium, chromium-driver and fonts-wqy-microhei (for Chinese screenshots)"
    SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO=sudo
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver fonts-wqy-microhei >/dev/null
  fi
  AXE_PKG="$TOOLS_DIR/node_modules/axe-core/package.json"
  if [ -f "$AXE_PKG" ] && grep -q "^  \"version\": \"$AXE_VERSION\"" "$AXE_PKG"; then
    say "axe-core $AXE_VERSION: present"
  else
    say "installing axe-core@$AXE_VERSION from npm into $TOOLS_DIR (read by the e2e test)"
    mkdir -p "$TOOLS_DIR"
    npm install --prefix "$TOOLS_DIR" --no-audit --no-fund --save-exact "axe-core@$AXE_VERSION" >/dev/null
  fi
fi
say "tools: $(trunk --version), $(wasm-bindgen --version), $(wasm-opt --version)"
