#!/usr/bin/env bash
# Names the on-demand worker's files by their content, so that a browser
# never runs a cached worker from an older build beside a newer page (its
# replies are rebuilt answers: a stale worker would write launch texts or a
# CSV for another estimator). Trunk names a worker's files by the binary
# alone (whichgpu-worker_loader.js, whichgpu-worker.js,
# whichgpu-worker_bg.wasm); this renames them whichgpu-worker-<stamp>…,
# <stamp> the first 16 hex digits of the SHA-256 of the glue and the Wasm,
# points the loader at the new names, and writes the loader's name into
# index.html as <meta name="whichgpu-worker" content="…">, which the page
# reads before it starts the worker (`web::ondemand`). Trunk runs it after
# every build (Trunk.toml [[hooks]] post_build, with TRUNK_STAGING_DIR
# set); by hand:
#   bash scripts/worker-names.sh [DIR]   (default: $TRUNK_STAGING_DIR, else dist)
# Re-running on renamed files changes nothing.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dir="${1:-${TRUNK_STAGING_DIR:-$root/dist}}"
html="$dir/index.html"
[ -f "$html" ] || { echo "[worker-names] $html not found: build first" >&2; exit 1; }
glue="$dir/whichgpu-worker.js"; wasm="$dir/whichgpu-worker_bg.wasm"; loader="$dir/whichgpu-worker_loader.js"
if [ ! -f "$loader" ]; then
  # Already renamed: the meta must name a loader that is there.
  name=$(sed -n 's/.*<meta name="whichgpu-worker" content="\([^"]*\)".*/\1/p' "$html" | head -n1)
  [ -n "$name" ] && [ -f "$dir/$name" ] || { echo "[worker-names] no worker loader in $dir" >&2; exit 1; }
  exit 0
fi
[ -f "$glue" ] && [ -f "$wasm" ] || { echo "[worker-names] the worker's glue or Wasm is missing in $dir" >&2; exit 1; }
stamp=$(cat "$glue" "$wasm" | sha256sum | cut -c1-16)
base="whichgpu-worker-$stamp"
rm -f "$dir"/whichgpu-worker-*
mv "$glue" "$dir/$base.js"
mv "$wasm" "$dir/${base}_bg.wasm"
sed -e "s#\./whichgpu-worker\.js#./$base.js#; s#\./whichgpu-worker_bg\.wasm#./${base}_bg.wasm#" "$loader" > "$dir/${base}_loader.js"
rm -f "$loader"
grep -q "$base.js" "$dir/${base}_loader.js" && grep -q "${base}_bg.wasm" "$dir/${base}_loader.js" \
  || { echo "[worker-names] the loader's file names were not rewritten: $(cat "$dir/${base}_loader.js")" >&2; exit 1; }
# One meta, before <title> (an earlier one is replaced; the CSP meta stays
# the first child of <head>).
sed -i -e '/<meta name="whichgpu-worker"/d' -e "0,/<title>/s##<meta name=\"whichgpu-worker\" content=\"${base}_loader.js\">\n  &#" "$html"
grep -q "content=\"${base}_loader.js\"" "$html" || { echo "[worker-names] could not write the meta into $html" >&2; exit 1; }
echo "[worker-names] $base: loader, glue and Wasm renamed; index.html names ${base}_loader.js"
