#!/usr/bin/env bash
# Create (or refresh) the project's virtual environment in .venv with one coherent CPU install:
#   torch 2.13.0 (CPU) + lmms-eval 0.7.3 + this project (editable) with its dev extras,
#   and *without* torchvision: the PyPI torchvision wheel does not import against the CPU torch
#   ("torchvision::nms does not exist"), and transformers would try to import a broken one.
# Idempotent: skips the install when pyproject.toml and the constraints have not changed.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
VENV=.venv
stamp_src=$(cat pyproject.toml scripts/constraints.txt scripts/setup.sh | sha256sum | cut -c1-16)
if [ -x "$VENV/bin/python" ] && [ "$(cat "$VENV/.setup-stamp" 2>/dev/null)" = "$stamp_src" ]; then
  exit 0
fi
echo "[setup] creating $VENV (first run takes about 3 minutes)" >&2
[ -x "$VENV/bin/python" ] || "$PY" -m venv "$VENV"
export PIP_DISABLE_PIP_VERSION_CHECK=1
"$VENV/bin/python" -m pip install -q -c scripts/constraints.txt torch==2.13.0 2>&1 | grep -v "is ignored" >&2 || true
"$VENV/bin/python" -m pip install -q -c scripts/constraints.txt -e ".[dev,eval]" 2>&1 | grep -v "is ignored" >&2 || true
"$VENV/bin/python" -m pip uninstall -y -q torchvision >/dev/null 2>&1 || true
# Fail loudly if the install is not what we expect.
"$VENV/bin/python" - <<'PYEOF'
import importlib.util, sys
import av, cv2, numpy, datasets, streamgaze_hf  # noqa: F401
assert "libx264" in av.codecs_available, "PyAV without libx264"
assert importlib.util.find_spec("torchvision") is None, "torchvision must not be installed (see scripts/setup.sh)"
for mod in ("lmms_eval", "decord", "pytest"):
    assert importlib.util.find_spec(mod) is not None, f"{mod} missing after install"
PYEOF
echo "$stamp_src" > "$VENV/.setup-stamp"
echo "[setup] done" >&2
