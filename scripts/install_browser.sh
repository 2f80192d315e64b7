#!/usr/bin/env bash
# Headless Chromium for the leaderboard browser test (tests/integration/test_leaderboard_browser.py), from Debian.
# Idempotent: does nothing when /usr/bin/chromium exists. Playwright drives this browser; never run
# `playwright install` (it would download its own browsers).
set -euo pipefail
CHROMIUM=/usr/bin/chromium
if [ -x "$CHROMIUM" ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install_browser.sh: $CHROMIUM is missing and installing it needs root: run as root, or" \
       "'sudo apt-get install -y chromium'" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "install_browser.sh: $CHROMIUM is missing and apt-get is not available (Debian/Ubuntu only)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
echo "[install_browser] apt-get install chromium" >&2
apt-get update -qq
apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
if [ ! -x "$CHROMIUM" ]; then
  echo "install_browser.sh: apt-get finished but $CHROMIUM does not exist" >&2
  exit 1
fi
"$CHROMIUM" --version >&2 || true
