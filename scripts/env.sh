# Sourced by the scripts: puts the pinned tools on PATH.
export PATH="$HOME/.cargo/bin:${WHICHGPU_TOOLS:-$HOME/.local/share/whichgpu-tools}/node_modules/.bin:$PATH"
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
