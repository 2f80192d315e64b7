#!/usr/bin/env bash
# What `make test` says before it runs: the system packages some tests need and this machine lacks, each with what
# it turns off and how to get it. Installs nothing (`make system-deps` does, with the system's package manager).
# Exit 0 always: a test whose package is missing is skipped (unless STREAMGAZE_REQUIRE_BROWSER=1 /
# STREAMGAZE_REQUIRE_FFMPEG=1, as CI sets, turn the skip into a failure).
CHROMIUM=${STREAMGAZE_CHROMIUM:-/usr/bin/chromium}
missing=0
if [ ! -x "$CHROMIUM" ]; then
  echo "[test] no Chromium at $CHROMIUM: the browser tests will be skipped; \`make system-deps\` installs it" \
       "(apt-get install chromium, as root or with sudo)" >&2
  missing=1
fi
for lib in libavcodec libavformat libavutil libswscale libswresample libavdevice libavfilter; do
  if ! /sbin/ldconfig -p 2>/dev/null | grep -q "$lib\.so\.[0-9]"; then
    echo "[test] no FFmpeg shared libraries ($lib not found): the previews decoding test will be skipped;" \
         "\`make system-deps\` installs them (apt-get, as root or with sudo)" >&2
    missing=1
    break
  fi
done
exit 0
