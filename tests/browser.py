"""Headless Chromium for the browser tests (Debian's /usr/bin/chromium driven by Playwright; never
``playwright install``). A test module calls :func:`require_browser` at import: it is skipped when
Chromium or Playwright is missing, unless ``STREAMGAZE_REQUIRE_BROWSER=1`` (CI), which turns the skip
into a failure of the ``browser`` fixture."""

from __future__ import annotations

import os

import pytest

CHROMIUM = os.environ.get("STREAMGAZE_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                 "--no-first-run", "--disable-sync"]
REQUIRED = os.environ.get("STREAMGAZE_REQUIRE_BROWSER") == "1"


def browser_problem() -> str | None:
    """Why a browser test cannot run here, or None."""
    if not os.path.isfile(CHROMIUM):
        return f"no Chromium at {CHROMIUM}: run scripts/install_browser.sh"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install -e '.[dev]')"
    return None


PROBLEM = browser_problem()


def require_browser() -> None:
    """Skip the calling module at collection (no fixture is built for nothing) unless required."""
    if PROBLEM and not REQUIRED:
        pytest.skip(PROBLEM, allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    if PROBLEM:
        pytest.fail(f"{PROBLEM} (STREAMGAZE_REQUIRE_BROWSER=1)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()
