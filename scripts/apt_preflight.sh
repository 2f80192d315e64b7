# Sourced by the scripts that install system packages from Debian (install_browser.sh, install_ffmpeg_libs.sh):
# `apt_preflight WHAT MANUAL` stops with one line when WHAT cannot be installed here (not root, or no apt-get),
# naming MANUAL (the command a user runs instead); otherwise apt-get runs without questions.
apt_preflight() {
  local script what=$1 manual=$2
  script=$(basename "$0")
  if [ "$(id -u)" -ne 0 ]; then
    echo "$script: missing $what; installing needs root: run as root, or '$manual'" >&2
    exit 1
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$script: missing $what, and apt-get is not available (Debian/Ubuntu only): '$manual' or the" \
         "system's own package manager" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
}
