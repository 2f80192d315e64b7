"""User strings as table-cell text: Markdown cells (HTML- and Markdown-escaped) and CSV cells (spreadsheet
formulas neutralised). Shared by the leaderboard tables and the streaming table."""

from __future__ import annotations

__all__ = ["md_escape", "csv_safe"]

_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_[]|~"})


def md_escape(text: str) -> str:
    """A user string as literal Markdown table-cell text (HTML-escaped, Markdown specials escaped)."""
    flat = " ".join(str(text).split())
    return flat.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").translate(_MD_SPECIAL)


def csv_safe(text: str) -> str:
    """Neutralise spreadsheet formulas in user strings (a leading = + - @ tab or CR)."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
