#!/usr/bin/env bash
# Copies the page's Chinese texts into the built page, as the file name the
# Wasm fetches (messages-zh-<stamp>.txt, next to index.html). `build.rs`
# writes them to the Wasm build's OUT_DIR (`build/texts.rs`); Trunk runs
# this after every build (Trunk.toml [[hooks]] post_build, with
# TRUNK_STAGING_DIR and TRUNK_PROFILE set); by hand:
#   bash scripts/messages-zh.sh [DIR]   (default: $TRUNK_STAGING_DIR, else dist)
# Of the Wasm builds of this profile, the newest build-script output is the
# one Trunk's cargo run just used; the stamp inside names the file, and the
# page checks it against the stamp compiled into the Wasm.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-${TRUNK_STAGING_DIR:-$root/dist}}"
target="${CARGO_TARGET_DIR:-$root/target}"
profile="${TRUNK_PROFILE:-release}"
src=$(ls -t "$target/wasm32-unknown-unknown/$profile/build/"whichgpu-*/out/messages-zh.txt 2>/dev/null | head -n1 || true)
[ -n "$src" ] || { echo "messages-zh.sh: no messages-zh.txt under $target/wasm32-unknown-unknown/$profile/build (has the Wasm been built?)" >&2; exit 1; }
stamp=$(head -n1 "$src" | cut -d' ' -f2)
[[ "$stamp" =~ ^[0-9a-f]{16}$ ]] || { echo "messages-zh.sh: $src has no stamp" >&2; exit 1; }
rm -f "$dir"/messages-zh-*.txt
cp "$src" "$dir/messages-zh-$stamp.txt"
