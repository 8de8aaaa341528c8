#!/usr/bin/env bash
# Installs what agentwire's build and tests need on a fresh machine, and skips each
# piece that is already there at the right version (a warm run takes a second).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$HOME/.cargo/bin:$PWD/node_modules/.bin:$PATH"
say() { printf '[setup] %s\n' "$*" >&2; }
as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
has_version() { command -v "$1" >/dev/null 2>&1 && "$1" --version 2>/dev/null | grep -qF "$2"; }

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  say "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  if ! rustup component list --installed | grep -q "^$component"; then
    say "adding the $component component"
    rustup component add "$component"
  fi
done
if ! has_version wasm-pack 0.15.1; then
  say "installing wasm-pack 0.15.1"
  cargo install wasm-pack --version 0.15.1 --locked
fi
# Without --locked: one of its locked dependencies is not served by the registry here.
if ! has_version wasm-bindgen 0.2.130; then
  say "installing wasm-bindgen-cli 0.2.130 (must match the pinned wasm-bindgen crate)"
  cargo install wasm-bindgen-cli --version 0.2.130
fi
# Browsers from Debian: Chromium, Firefox ESR, and WebKitGTK's WebDriver with its MiniBrowser
# (under xvfb-run: it needs a display).
apt_install() {
  say "installing Debian $*"
  as_root apt-get update -q
  # dpkg sometimes fails once on a new machine; the second try succeeds.
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" \
    || as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@"
}
have() { command -v "$1" >/dev/null 2>&1; }
have chromium && have chromedriver || apt_install chromium chromium-driver
have firefox-esr || apt_install firefox-esr
have WebKitWebDriver && have xvfb-run || apt_install webkit2gtk-driver xvfb
# Firefox's WebDriver: geckodriver from crates.io.
if ! has_version geckodriver 0.36.0; then
  say "installing geckodriver 0.36.0"
  cargo install geckodriver --version 0.36.0 --locked
fi
# npm ci only when package-lock.json changed since the last install.
if ! cmp -s package-lock.json node_modules/.agentwire-installed-lock 2>/dev/null; then
  say "installing npm packages (npm ci)"
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.agentwire-installed-lock
fi
# The MCP conformance suite and the Node 22 it needs, kept apart from the package's own.
c=tests/conformance
if ! cmp -s $c/package-lock.json $c/node_modules/.agentwire-installed-lock 2>/dev/null; then
  say "installing the MCP conformance suite and Node 22 (npm ci in $c)"
  npm ci --no-audit --no-fund --prefix $c
  cp $c/package-lock.json $c/node_modules/.agentwire-installed-lock
fi
