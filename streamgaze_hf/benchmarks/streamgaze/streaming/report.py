"""Text and table forms of the streaming alert metrics (CLI output, ``validate`` report, leaderboard)."""

from __future__ import annotations

from .metrics import TOLERANCES_S, tolerance_key

__all__ = ["format_streaming", "format_realtime", "streaming_columns"]


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
        if "streamingbench" in s:
            lines.append(f"{task:<5} StreamingBench +-2 s {_pct(s['streamingbench']['accuracy'])}% (its 1 s polling "
                         f"protocol {_pct(s['streamingbench_protocol']['accuracy'])}%); StreamGaze [t1, t2 + 3 s] "
                         f"{_pct(s['streamgaze_window']['accuracy'])}%; F1-tolerance area (0-10 s) "
                         f"{_pct(s['f1_curve']['area'])}%; duplicate alerts {_pct(s['duplicates']['rate'])}%")
    return "\n".join(lines)


def format_realtime(rt: dict) -> str:
    """The real-time clock's numbers: real-time factor, model seconds per response, looks kept, and the
    alert scores under the clock."""
    per = rt["response_seconds"]
    how = "measured" if rt["seconds_per_call"] is None else f"declared {rt['seconds_per_call']:g} s"
    head = (f"real time ({how} per call): real-time factor {_fmt(rt['rtf'])} model s per stream s; model seconds "
            f"per response median {_fmt(per['median'])}, p90 {_fmt(per['p90'])}; {rt['looks']} of {rt['calls']} "
            f"calls kept by the clock. Under the clock:")
    return head + "\n" + format_streaming(rt["streaming"])


def streaming_columns() -> list[tuple[str, str, object]]:
    """(key, label, getter over one task's scores) of the leaderboard's streaming table, per task: the
    headline scores (F1 at 2 s, StreamingBench's rule, StreamGaze's window, the F1-tolerance area, the
    duplicate-alert rate and the median alert latency)."""
    return [("f1@2", "F1@2s", lambda s: s["tolerances"]["2"]["f1"]),
            ("sb", "SB ±2s", lambda s: s["streamingbench"]["accuracy"]),
            ("sg", "SG win", lambda s: s["streamgaze_window"]["accuracy"]),
            ("auc", "F1 AUC", lambda s: s["f1_curve"]["area"]),
            ("dup", "Dup.", lambda s: s["duplicates"]["rate"]),
            ("latency_median", "Lat. (s)", lambda s: s["latency"]["median"])]
