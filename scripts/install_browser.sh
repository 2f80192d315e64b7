#!/usr/bin/env bash
# Headless Chromium for the leaderboard browser test (tests/integration/test_leaderboard_browser.py), from Debian.
# Idempotent: does nothing when /usr/bin/chromium exists. Playwright drives this browser; never run
# `playwright install` (it would download its own browsers).
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
. "$(dirname "$0")/apt_preflight.sh"
apt_preflight "$CHROMIUM" "sudo apt-get install -y chromium"
echo "[install_browser] apt-get install chromium" >&2
apt-get update -qq
apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
if [ ! -x "$CHROMIUM" ]; then
  echo "install_browser.sh: apt-get finished but $CHROMIUM does not exist" >&2
  exit 1
fi
"$CHROMIUM" --version >&2 || true
