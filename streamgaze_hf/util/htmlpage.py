"""The pieces every generated HTML page shares (leaderboard, review pages): the escaped document
head with its Content-Security-Policy, and attribute escaping."""

from __future__ import annotations

from html import escape


def attr(value: object) -> str:
    """A value escaped for an HTML attribute (quotes included)."""
    return escape(str(value), quote=True)


def page_head(title: str, csp: str, css: str) -> str:
    """``<!DOCTYPE html>`` up to and including ``<body>``: charset, CSP, viewport, title, inline CSS."""
    return f"""<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{attr(csp)}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
<style>{css}</style>
</head>
<body>
"""
