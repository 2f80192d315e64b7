"""Scene consistency of a fixation (paper §3.2 eq. 4, appendix A.2).

Frames sampled uniformly in the fixation (decoded by seeking, never by reading the whole video) are
reduced to Hue-Saturation histograms (50 x 60 bins over H in [0, 180), S in [0, 256), normalised to
sum 1); S_min is the minimum Pearson correlation of consecutive histograms. A fixation is kept iff
S_min >= tau_scene (default 0.9): a cut or an abrupt change of view inside it discards it.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence

import cv2
import numpy as np
from tqdm import tqdm

from ..video import read_frames_at
from .fixations import Fixation

HS_BINS = (50, 60)
HS_RANGES = (0, 180, 0, 256)
DEFAULT_TAU_SCENE = 0.9
DEFAULT_SAMPLES_PER_SECOND = 2.0
MIN_SAMPLES = 5


def hs_histogram(frame_bgr: np.ndarray) -> np.ndarray:
    """Normalised (sum 1) Hue-Saturation histogram of a BGR frame, shape (50, 60), float32."""
    hsv = cv2.cvtColor(frame_bgr, cv2.COLOR_BGR2HSV)
    hist = cv2.calcHist([hsv], [0, 1], None, list(HS_BINS), list(HS_RANGES))
    total = float(hist.sum())
    return hist / total if total > 0 else hist


def histogram_correlation(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two histograms (1.0 when both are constant and equal)."""
    return float(cv2.compareHist(a.astype(np.float32), b.astype(np.float32), cv2.HISTCMP_CORREL))


def sample_times(start: float, end: float, samples_per_second: float = DEFAULT_SAMPLES_PER_SECOND,
                 min_samples: int = MIN_SAMPLES) -> np.ndarray:
    n = max(min_samples, int(math.ceil((end - start) * samples_per_second)) + 1)
    return np.linspace(start, end, n)


def scene_scores(video_path: str | os.PathLike[str], fixations: Sequence[Fixation],
                 samples_per_second: float = DEFAULT_SAMPLES_PER_SECOND, min_samples: int = MIN_SAMPLES,
                 progress: bool = False) -> list[float]:
    """S_min of every fixation. All sampled frames of a video are read in one seeking pass."""
    per_fix = [sample_times(f.start, f.end, samples_per_second, min_samples) for f in fixations]
    if not per_fix:
        return []
    all_times = np.unique(np.concatenate(per_fix))
    frames = read_frames_at(video_path, all_times)
    hist_by_time = {}
    for t, (_, img) in zip(tqdm(all_times, desc="scene check", unit="frame", disable=not progress,
                                leave=False), frames):
        hist_by_time[float(t)] = hs_histogram(img)
    scores = []
    for times in per_fix:
        hists = [hist_by_time[float(t)] for t in times]
        scores.append(min(histogram_correlation(a, b) for a, b in zip(hists, hists[1:])))
    return scores
