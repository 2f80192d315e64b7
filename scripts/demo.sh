#!/usr/bin/env bash
# The README's demo command: everything on the embedded synthetic world, nothing downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-demo_out}
SG=".venv/bin/streamgaze"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
echo "== 1/3 demo world -> $OUT/world"
"$SG" world --out "$OUT/world" --videos 3 --seed 0
echo "== 2/3 gaze-overlay videos -> $OUT/overlay"
for d in "$OUT"/world/*/; do
  vid=$(basename "$d")
  "$SG" overlay "$d/video.mp4" "$d/gaze.csv" --out "$OUT/overlay/$vid.mp4"
done
echo "== 3/3 versioned dataset -> $OUT/streamgaze"
"$SG" build --raw "$OUT/world" --out "$OUT/streamgaze" --version 0.1.0 --force \
  --changelog "Demo build from the synthetic world (seed 0)."
"$SG" stats "$OUT/streamgaze"
echo "demo done: $OUT"
