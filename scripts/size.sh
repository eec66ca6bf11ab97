#!/usr/bin/env bash
# Prints what the browser downloads for the page, raw and gzip, and fails
# past the 400 KB gzip guard.
set -euo pipefail
cd "$(dirname "$0")/../dist"
raw=0; gz=0
for f in index.html *.js *.wasm *.css; do
  [ -f "$f" ] || continue
  r=$(stat -c%s "$f"); g=$(gzip -9c "$f" | wc -c)
  printf '[size] %-48s %8d B raw %8d B gzip\n' "$f" "$r" "$g"
  raw=$((raw + r)); gz=$((gz + g))
done
printf '[size] total %d B raw, %d B gzip (goal 300 KB, guard 400 KB)\n' "$raw" "$gz"
[ "$gz" -le 409600 ] || { echo "[size] over 400 KB gzip" >&2; exit 1; }
