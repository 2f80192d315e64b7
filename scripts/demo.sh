#!/usr/bin/env bash
# The README's demo command: everything on the embedded synthetic world, nothing downloaded.
#   1. generate the demo world (3 videos: video.mp4, gaze.csv, actions.json, objects.json)
#   2. render the gaze-overlay video of each
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-demo_out}
SG=".venv/bin/streamgaze"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
echo "== 1/2 demo world -> $OUT/world"
"$SG" world --out "$OUT/world" --videos 3 --seed 0
echo "== 2/2 gaze-overlay videos -> $OUT/overlay"
for d in "$OUT"/world/*/; do
  vid=$(basename "$d")
  "$SG" overlay "$d/video.mp4" "$d/gaze.csv" --out "$OUT/overlay/$vid.mp4"
done
echo "demo done: $OUT"
