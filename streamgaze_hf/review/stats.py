"""Human-verification statistics (paper Table 5: inclusion and modification ratio per video source,
plus the inter-annotator agreement the paper reports as Fleiss' kappa).

Definitions (over *object rows*: ``gazed``/``fov``/``out`` rows naming an extracted object, one per
annotator and object):

* **inclusion ratio** = object rows the annotator kept (decision ``include`` and the fixation not
  excluded as a whole by the same annotator) / object rows;
* **modified ratio** = object rows whose identity (``corrected_object`` differing from ``object``) or
  caption (``corrected_caption``) the annotator corrected / object rows;
* **added** = ``gazed`` rows with no extracted object that the annotator filled in (not in the
  ratios' denominator: the model proposed nothing there);
* **Fleiss' kappa** on include/exclude over the objects rated by two or more annotators (the
  variable-raters form); ``None`` when no object has two raters or the ratings allow no chance
  correction (everybody always agrees on one answer).

Ratios are fractions in [0, 1]; :func:`format_stats` prints them as percentages like Table 5.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from .corrections import OBJECT_REGIONS, Corrections, ReviewRow

__all__ = ["fleiss_kappa", "format_stats", "verification_stats"]

UNKNOWN_SOURCE = "unknown"


def _fix_key(r: ReviewRow) -> tuple:
    """Which fixation a row is about, stable across annotators' CSVs of the same page."""
    t = None if r.start is None or r.end is None else (round(r.start, 2), round(r.end, 2))
    return (r.video_id, t if t is not None else r.fixation_index)


def _counts(rows: list[ReviewRow], excluded_fix: set[tuple]) -> dict[str, Any]:
    obj = [r for r in rows if r.region in OBJECT_REGIONS and r.object]
    kept = [r for r in obj if not r.excluded and (r.rater, _fix_key(r)) not in excluded_fix]
    fix = {(r.rater, _fix_key(r)) for r in rows}
    n = len(obj)
    return {
        "objects": n,
        "included": len(kept),
        "excluded": n - len(kept),
        "modified": sum(r.modified for r in obj),
        "renamed": sum(r.renamed for r in obj),
        "captioned": sum(bool(r.corrected_caption) for r in obj),
        "added": sum(1 for r in rows if r.region == "gazed" and not r.object and r.corrected_object),
        "fixations": len(fix),
        "fixations_excluded": len(fix & excluded_fix),
        "videos": len({r.video_id for r in rows}),
        "annotators": len({r.rater for r in rows}),
        "inclusion_ratio": len(kept) / n if n else None,
        "modified_ratio": sum(r.modified for r in obj) / n if n else None,
    }


def fleiss_kappa(ratings: Iterable[Mapping[str, int]]) -> float | None:
    """Fleiss' kappa for items rated by a varying number (>= 2) of raters.

    ``ratings``: per item, the count of raters per category. Items with fewer than 2 raters are ignored.
    """
    items = [dict(c) for c in ratings if sum(c.values()) >= 2]
    if not items:
        return None
    total = sum(sum(c.values()) for c in items)
    cats: Counter[str] = Counter()
    for c in items:
        cats.update(c)
    p_e = sum((v / total) ** 2 for v in cats.values())
    p_bar = sum((sum(v * v for v in c.values()) - sum(c.values())) / (sum(c.values()) * (sum(c.values()) - 1))
                for c in items) / len(items)
    if p_e >= 1.0 - 1e-12:
        return None
    return (p_bar - p_e) / (1.0 - p_e)


def verification_stats(corrections: Corrections, sources: Mapping[str, str] | None = None) -> dict[str, Any]:
    """Inclusion and modified ratios overall, per source, per video, per region and per annotator,
    and Fleiss' kappa (see the module docstring).

    A row's source is its ``source`` cell, else ``sources[video_id]`` (e.g. from the dataset's
    ``videos`` config), else ``"unknown"``.

    Args:
        corrections: the validated review rows (:func:`~streamgaze_hf.review.corrections.load_corrections`).
        sources: video id -> source, for rows without a ``source`` cell.

    Returns:
        ``files``, ``overall`` (the counts and both ratios, fractions or None without object rows),
        ``by_source``, ``by_video``, ``by_region`` (object regions only), ``by_annotator`` and
        ``agreement`` (``fleiss_kappa`` or None, ``objects_with_2plus_raters``).

    Raises:
        Nothing of its own: the rows were validated when read (``load_corrections`` raises
        ``StreamGazeError`` for a bad CSV); this only counts them.
    """
    rows = corrections.rows
    sources = sources or {}
    excluded_fix = {(r.rater, _fix_key(r)) for r in rows if r.region == "fixation" and r.excluded}

    def source(r: ReviewRow) -> str:
        return r.source or sources.get(r.video_id) or UNKNOWN_SOURCE

    def grouped(key) -> dict[str, dict[str, Any]]:
        groups: dict[str, list[ReviewRow]] = defaultdict(list)
        for r in rows:
            groups[key(r)].append(r)
        return {k: _counts(v, excluded_fix) for k, v in sorted(groups.items())}

    items: dict[tuple, Counter[str]] = defaultdict(Counter)
    for r in rows:
        if r.region in OBJECT_REGIONS and r.object:
            excluded = r.excluded or (r.rater, _fix_key(r)) in excluded_fix
            items[(_fix_key(r), r.region, r.object)]["exclude" if excluded else "include"] += 1
    multi = [c for c in items.values() if sum(c.values()) >= 2]
    return {
        "files": list(corrections.files),
        "overall": _counts(rows, excluded_fix),
        "by_source": grouped(source),
        "by_video": grouped(lambda r: r.video_id),
        "by_region": {k: v for k, v in grouped(lambda r: r.region).items() if k in OBJECT_REGIONS},
        "by_annotator": grouped(lambda r: r.rater),
        "agreement": {"fleiss_kappa": fleiss_kappa(multi), "objects_with_2plus_raters": len(multi)},
    }


def _pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.2f}"


def format_stats(stats: Mapping[str, Any]) -> str:
    """A Table-5 style text table: one line per source, then the overall line and the agreement."""
    header = ["source", "videos", "fixations", "objects", "Inclusion Ratio (%)", "Modified Ratio (%)"]
    lines = [[name, str(s["videos"]), str(s["fixations"]), str(s["objects"]), _pct(s["inclusion_ratio"]),
              _pct(s["modified_ratio"])] for name, s in stats["by_source"].items()]
    o = stats["overall"]
    lines.append(["overall", str(o["videos"]), str(o["fixations"]), str(o["objects"]),
                  _pct(o["inclusion_ratio"]), _pct(o["modified_ratio"])])
    widths = [max(len(row[i]) for row in [header, *lines]) for i in range(len(header))]

    def fmt(row: list[str]) -> str:
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

    out = [f"Human verification (paper Table 5): {len(stats['files'])} CSV file(s), {o['annotators']} "
           f"annotator(s), {o['videos']} video(s)", fmt(header), *map(fmt, lines[:-1]),
           "-" * len(fmt(header)), fmt(lines[-1])]
    out.append(f"excluded fixations: {o['fixations_excluded']} of {o['fixations']}; objects excluded "
               f"{o['excluded']}, identities corrected {o['renamed']}, captions written {o['captioned']}, "
               f"missing gazed objects added {o['added']}")
    reg = stats["by_region"]
    if reg:
        out.append("by region: " + ", ".join(f"{k} {_pct(v['inclusion_ratio'])}% kept of {v['objects']}"
                                             for k, v in reg.items()))
    ag = stats["agreement"]
    kappa = ag["fleiss_kappa"]
    out.append(f"Fleiss' kappa (include/exclude, {ag['objects_with_2plus_raters']} objects with 2+ annotators): "
               + ("n/a" if kappa is None else f"{kappa:.2f}"))
    return "\n".join(out)
