"""Text and table forms of the streaming alert metrics (CLI output, ``validate`` report, leaderboard)."""

from __future__ import annotations

from .metrics import TOLERANCES_S, tolerance_key

__all__ = ["format_streaming", "streaming_columns"]


def _fmt(v) -> str:
    return "-" if v is None else f"{v:.3f}"


def _pct(v) -> str:
    return "-" if v is None else f"{100.0 * v:.1f}"


def format_streaming(scores: dict) -> str:
    """A small per-task table: P / R / F1 at each tolerance, latency median / p90."""
    lines = ["streaming alerts (time-aware; hit = first alert in [event, event + tol]; P / R / F1 in percent):",
             f"{'task':<5} {'tol':>4} {'precision':>9} {'recall':>7} {'f1':>6} {'tp':>4} {'fp':>4} {'fn':>4}"]
    for task, s in scores.items():
        for tol in TOLERANCES_S:
            m = s["tolerances"][tolerance_key(tol)]
            lines.append(f"{task:<5} {tol:>3g}s {_pct(m['precision']):>9} {_pct(m['recall']):>7} {_pct(m['f1']):>6} "
                         f"{m['tp']:>4} {m['fp']:>4} {m['fn']:>4}")
        lat = s["latency"]
        lines.append(f"{task:<5} latency: median {_fmt(lat['median'])} s, p90 {_fmt(lat['p90'])} s over {lat['n']} of "
                     f"{s['n']} questions; {s['n_alerts']} alerts")
    return "\n".join(lines)


def streaming_columns() -> list[tuple[str, str, object]]:
    """(key, label, getter over one task's scores) of the leaderboard's streaming table, per task."""
    cols: list[tuple[str, str, object]] = []
    for tol in TOLERANCES_S:
        k = tolerance_key(tol)
        cols.append((f"f1@{k}", f"F1@{k}s", lambda s, k=k: s["tolerances"][k]["f1"]))
    mid = tolerance_key(TOLERANCES_S[len(TOLERANCES_S) // 2])
    cols.append((f"precision@{mid}", f"P@{mid}s", lambda s: s["tolerances"][mid]["precision"]))
    cols.append((f"recall@{mid}", f"R@{mid}s", lambda s: s["tolerances"][mid]["recall"]))
    cols.append(("latency_median", "Lat. med (s)", lambda s: s["latency"]["median"]))
    cols.append(("latency_p90", "Lat. p90 (s)", lambda s: s["latency"]["p90"]))
    return cols
