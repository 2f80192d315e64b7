#!/usr/bin/env bash
# The README's demo command: everything on the embedded synthetic world, nothing downloaded.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-demo_out}
SG=".venv/bin/streamgaze"
export HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1
echo "== 1/4 demo world -> $OUT/world"
"$SG" world --out "$OUT/world" --videos 3 --seed 0
echo "== 2/4 gaze-overlay videos -> $OUT/overlay"
for d in "$OUT"/world/*/; do
  vid=$(basename "$d")
  "$SG" overlay "$d/video.mp4" "$d/gaze.csv" --out "$OUT/overlay/$vid.mp4"
done
echo "== 3/4 versioned dataset -> $OUT/streamgaze"
"$SG" build --raw "$OUT/world" --out "$OUT/streamgaze" --version 0.1.0 --force \
  --changelog "Demo build from the synthetic world (seed 0)."
"$SG" stats "$OUT/streamgaze"
echo "== 4/4 evaluate the random baseline through lmms-eval -> $OUT/runs/random"
rm -rf "$OUT/runs/random"
STREAMGAZE_CLIP_CACHE="$OUT/clip_cache" "$SG" eval --root "$OUT/streamgaze" -- \
  --model streamgaze_random --model_args seed=0 --tasks streamgaze \
  --log_samples --output_path "$OUT/runs/random" --timezone UTC --verbosity WARNING
ls "$OUT"/runs/random/*_results.json >/dev/null  # lmms-eval exits 0 on failure: check its output
echo "demo done: $OUT"
