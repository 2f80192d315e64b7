#!/usr/bin/env bash
# FFmpeg's shared libraries (libavcodec, libavformat, libavutil, libswscale, libswresample, libavdevice,
# libavfilter) from the system's package manager, for torchcodec: `datasets` decodes `Video` columns through
# it, and the `previews` test (tests/integration/test_previews.py) decodes them as a visitor's
# `load_dataset(ROOT, "previews")` does. The toolkit's own video I/O (PyAV) carries its own FFmpeg and does
# not need them. Debian/Ubuntu only: the package names carry the library's major version (Debian 12:
# libavcodec59, Debian 13: libavcodec61), so they are looked up with apt-cache; torchcodec takes FFmpeg 4 to 8.
# Idempotent: does nothing when the dynamic loader already finds all seven.
set -euo pipefail
have_libs() {
  local lib
  for lib in libavcodec libavformat libavutil libswscale libswresample libavdevice libavfilter; do
    /sbin/ldconfig -p | grep -q "$lib\.so\.[0-9]" || return 1
  done
}
if have_libs; then
  exit 0
fi
. "$(dirname "$0")/apt_preflight.sh"
apt_preflight "FFmpeg's shared libraries (4 to 8)" "sudo apt-get install -y ffmpeg"
apt-get update -qq
# the runtime packages by name, e.g. libavcodec59 (apt-cache also lists the -extra variants that provide them)
mapfile -t packages < <(apt-cache search --names-only \
  '^lib(avcodec|avformat|avutil|swscale|swresample|avdevice|avfilter)[0-9]+$' | cut -d' ' -f1 \
  | grep -E '^lib(avcodec|avformat|avutil|swscale|swresample|avdevice|avfilter)[0-9]+$' | sort)
if [ "${#packages[@]}" -lt 7 ]; then
  echo "install_ffmpeg_libs.sh: apt-cache found only: ${packages[*]:-nothing} (expected the seven FFmpeg" \
       "libraries)" >&2
  exit 1
fi
echo "[install_ffmpeg_libs] apt-get install ${packages[*]}" >&2
apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
# the loader's cache, in case dpkg's trigger that refreshes it was deferred (it was once here: the libraries were
# installed, and found only after ldconfig ran)
/sbin/ldconfig || true
if ! have_libs; then
  echo "install_ffmpeg_libs.sh: apt-get finished but the dynamic loader does not find FFmpeg's libraries" >&2
  exit 1
fi
