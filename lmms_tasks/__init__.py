"""lmms-eval glue for StreamGaze: task YAMLs, thin task functions, baseline model manifests.

``TASKS_DIR`` is the directory to pass as ``lmms-eval --include_path`` (``streamgaze tasks-dir``
prints it; ``streamgaze eval`` fills it in). The logic lives in ``streamgaze_hf.evaluation``.
"""

from pathlib import Path

TASKS_DIR = str(Path(__file__).resolve().parent / "tasks")
