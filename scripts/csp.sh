#!/usr/bin/env bash
# Puts a Content-Security-Policy <meta> into the built index.html, as the
# first child of <head>. Trunk runs it after every build (Trunk.toml
# [[hooks]] post_build, with TRUNK_STAGING_DIR set); by hand:
#   bash scripts/csp.sh [DIR]        (default: $TRUNK_STAGING_DIR, else dist)
# Re-running replaces the meta, so it is idempotent.
#
# The policy:
#   default-src 'self'          nothing from other origins, ever;
#   script-src 'self' 'wasm-unsafe-eval' 'sha256-…'
#                               our own JS glue; 'wasm-unsafe-eval' because
#                               compiling WebAssembly needs it (and it allows
#                               no JS eval); Trunk's inline loader <script
#                               type="module"> by the hash of its exact text,
#                               which changes with every build — hence this
#                               step after the build. No 'unsafe-inline'.
#   style-src 'self'            our stylesheet; inline <style> elements (none
#                               today) would be allowed by their hash, too;
#   style-src-attr 'unsafe-inline'
#                               the only inline allowance, and for style
#                               *attributes* only: Yew sets the memory bar's
#                               legend swatches as `style="background:…"`
#                               and the cost chart's tooltip position as
#                               `style="left:…%;top:…%"`
#                               (src/web/charts.rs), which `style-src 'self'`
#                               blocks. Attributes cannot run script; <style>
#                               elements and stylesheets stay 'self'. Once the
#                               swatches use classes (or the CSSOM), drop it.
#   img-src 'self' data: blob:  images, data: and blob: URLs we create;
#   connect-src 'self'          fetching the .wasm (and trunk serve's reload
#                               socket) — same origin only;
#   object-src 'none'; base-uri 'none'.
# frame-ancestors is left out: browsers ignore it in a <meta> (it only works
# as an HTTP header), and the page is meant to be embedded anyway.
#
# Inline event handlers (onload=…) and javascript: URLs cannot be allowed by
# hashes; the script fails if the built page has any.
set -euo pipefail
dir="${1:-${TRUNK_STAGING_DIR:-}}"
if [ -z "$dir" ]; then
  dir="$(dirname "$0")/../dist"
fi
html="$dir/index.html"
[ -f "$html" ] || { echo "[csp] $html not found: build first (trunk build --release)" >&2; exit 1; }

node - "$html" <<'JS'
const fs = require("fs");
const crypto = require("crypto");
const file = process.argv[2];
let html = fs.readFileSync(file, "utf8");

// Drop a meta from an earlier run.
html = html.replace(/[ \t]*<meta http-equiv="Content-Security-Policy"[^>]*>\n?/gi, "");

// What the browser hashes: the element's text as parsed, after the HTML
// parser turned CRLF and lone CR into LF; UTF-8; SHA-256; base64.
const hash = (text) =>
  "'sha256-" + crypto.createHash("sha256").update(text.replace(/\r\n?/g, "\n"), "utf8").digest("base64") + "'";

const scripts = [];
for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script\s*>/gi)) {
  if (/\bsrc\s*=/i.test(m[1])) continue;
  if (m[2].includes("{{__TRUNK_")) {
    // trunk serve's live-reload script, filled in per request: no hash can
    // match it, so it stays blocked (scripts/serve.sh turns it off).
    console.error("[csp] skipping trunk serve's reload script: run trunk serve --no-autoreload");
    continue;
  }
  scripts.push(hash(m[2]));
}
const styles = [];
for (const m of html.matchAll(/<style\b[^>]*>([\s\S]*?)<\/style\s*>/gi)) {
  styles.push(hash(m[1]));
}
const handlers = html.match(/<[^>]+\son[a-z]+\s*=/gi) || [];
const jsUrls = html.match(/\s(?:href|src|action)\s*=\s*["']?\s*javascript:/gi) || [];
if (handlers.length || jsUrls.length) {
  console.error("[csp] inline event handlers or javascript: URLs cannot be allowed by hashes:", handlers.concat(jsUrls));
  process.exit(1);
}
const external = html.match(/\s(?:href|src)\s*=\s*["']?(?:[a-z][a-z0-9+.-]*:)?\/\/[^"' >]+/gi) || [];
if (external.length) {
  console.error("[csp] the page refers to other origins, which the policy blocks:", external);
  process.exit(1);
}

const unique = (xs) => [...new Set(xs)];
const policy = [
  "default-src 'self'",
  ["script-src 'self' 'wasm-unsafe-eval'", ...unique(scripts)].join(" "),
  ["style-src 'self'", ...unique(styles)].join(" "),
  "style-src-attr 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
].join("; ");

const head = html.match(/<head\b[^>]*>/i);
if (!head) {
  console.error("[csp] no <head> in " + file);
  process.exit(1);
}
const at = head.index + head[0].length;
html = html.slice(0, at) + `\n  <meta http-equiv="Content-Security-Policy" content="${policy}">` + html.slice(at);
fs.writeFileSync(file, html);
console.log(`[csp] ${file}: ${scripts.length} inline script(s), ${styles.length} inline style(s) hashed`);
JS
