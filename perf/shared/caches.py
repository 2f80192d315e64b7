"""Every cache that code of ours (or lmms-eval, torch, matplotlib) may write, by its environment variable: the
tests point them all into a temporary folder (tests/fixtures/home_guard.py), and so do the timing scripts that run
the toolkit (never the user's caches)."""

from __future__ import annotations

from pathlib import Path

#: environment variable -> sub-directory of the session's temporary cache root
CACHE_VARIABLES = {
    "HF_HOME": "hf",
    "HF_DATASETS_CACHE": "hf/datasets",
    "HF_HUB_CACHE": "hf/hub",
    "XDG_CACHE_HOME": "xdg-cache",
    "XDG_CONFIG_HOME": "xdg-config",  # Chromium's profile (~/.config/chromium) in the browser tests
    "STREAMGAZE_CLIP_CACHE": "streamgaze/clips",
    "STREAMGAZE_VLM_CACHE": "streamgaze/vlm",
    "STREAMGAZE_SCENE_CACHE": "streamgaze/scene",  # joined multi-part Neon scene videos
    "STREAMGAZE_VERIFY_CACHE": "streamgaze/verified",  # the memo of files checked against a manifest
    "STREAMGAZE_TASKS_CACHE": "streamgaze/lmms_tasks",  # task files rendered for benchmarks of other packages
    "MPLCONFIGDIR": "matplotlib",
    "TORCH_HOME": "torch",
    "TRITON_CACHE_DIR": "triton",
}


def cache_env(root: Path) -> dict[str, str]:
    """Each cache variable pointed to its folder under ``root`` (the folders are made)."""
    env = {name: str(root / sub) for name, sub in CACHE_VARIABLES.items()}
    for path in env.values():
        Path(path).mkdir(parents=True, exist_ok=True)
    return env
