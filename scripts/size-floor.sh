#!/usr/bin/env bash
# Issue 19's floor: the gzip size of the first answer's own code and data
# with no page at all (examples/core_floor.rs: the link, the bundled
# catalog, the whole evaluation and every sentence of the first answer;
# no Yew, no wasm-bindgen, no DOM), through the same wasm-opt passes as
# index.html's page module. Any page built on this core downloads at least
# this for its first answer, plus its own view code, glue, html and css.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
source "$root/scripts/env.sh"
cd "$root"
cargo build --locked --release --features ui --example core_floor --target wasm32-unknown-unknown >&2
dir=target/core-floor
rm -rf "$dir"
wasm-bindgen --target web --no-typescript --out-dir "$dir" target/wasm32-unknown-unknown/release/examples/core_floor.wasm
in=$dir/core_floor_bg.wasm
out=$dir/core_floor.opt.wasm
# The page module's passes, read from index.html so the two stay the same.
params=$(grep 'data-type="main"' index.html | sed -n 's/.*data-wasm-opt-params="\([^"]*\)".*/\1/p')
# shellcheck disable=SC2086
wasm-opt "$in" $params --strip-debug --enable-bulk-memory --enable-nontrapping-float-to-int \
  --enable-sign-ext --enable-mutable-globals -o "$out"
r=$(stat -c%s "$out"); g=$(gzip -9c "$out" | wc -c)
printf '[floor] the first answer with no page: %d B raw, %d B gzip (issue 19 goal for the whole page: 150 KB)\n' "$r" "$g"
