"""The documentation stays true to the code: the CLI reference is the parser's, every command and make
target the docs show exists, and every relative link (file and heading anchor) resolves."""

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from streamgaze_hf.cli import build_parser
from streamgaze_hf.cli.clidoc import _anchor, render

REPO = Path(__file__).resolve().parents[2]
DOCS = sorted((REPO / "docs").glob("*.md"))
PAGES = [REPO / "README.md", *DOCS]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")


def _env():
    return {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}


def test_committed_cli_reference_equals_the_generated_one():
    assert (REPO / "docs" / "cli.md").read_text(encoding="utf-8") == render(), (
        "docs/cli.md is out of date: run `make docs` (python -m streamgaze_hf.cli.clidoc --out docs/cli.md)")


def test_the_reference_has_a_section_for_every_listed_command():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    headings = set(re.findall(r"^## (.+)$", render(parser), flags=re.M))
    listed = [c.dest for c in sub._choices_actions]
    assert len(listed) >= 20
    assert {f"streamgaze {name}" for name in listed} <= headings
    assert {"streamgaze review export", "streamgaze clips prune"} <= headings


def test_a_new_command_changes_the_reference_and_a_hidden_alias_does_not():
    parser = build_parser()
    before = render(parser)
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    new = sub.add_parser("frobnicate", help="a command added without regenerating the docs")
    new.add_argument("root", help="dataset root")
    new.add_argument("--level", type=int, default=3, choices=[1, 2, 3], help="how much | how far")
    sub.add_parser("old-name")  # an alias kept for compatibility: no help, not listed
    after = render(parser)
    assert after != before
    assert "| [`frobnicate`](#streamgaze-frobnicate) | a command added without regenerating the docs |" in after
    assert "streamgaze frobnicate root [--level LEVEL]\n" in after
    assert "| `--level LEVEL` | how much \\| how far (one of: `1`, `2`, `3`) | `3` |" in after
    assert "old-name" not in after


def test_clidoc_check_fails_on_a_stale_reference(tmp_path):
    stale = tmp_path / "cli.md"
    stale.write_text(render().replace("## streamgaze clips prune", "## streamgaze clips trim"), encoding="utf-8")
    cmd = [sys.executable, "-m", "streamgaze_hf.cli.clidoc", "--check"]
    bad = subprocess.run([*cmd, str(stale)], capture_output=True, text=True, env=_env(), cwd=tmp_path)
    assert bad.returncode == 1 and bad.stderr == f"{stale}: out of date; regenerate it with `make docs`\n"
    good = subprocess.run([*cmd, str(REPO / "docs" / "cli.md")], capture_output=True, text=True, env=_env())
    assert (good.returncode, good.stderr) == (0, "")


def _anchors(page: Path) -> set[str]:
    """GitHub's anchors of a Markdown page's headings (outside fenced code); repeats get -1, -2, ..."""
    seen: dict[str, int] = {}
    out, fenced = set(), False
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        m = None if fenced else re.match(r"#{1,6} (.+)$", line)
        if m:
            base = _anchor(re.sub(r"[`*]", "", m.group(1)).strip())
            n = seen.get(base, 0)
            seen[base] = n + 1
            out.add(base if n == 0 else f"{base}-{n}")
    return out


def _links(page: Path) -> list[str]:
    text = re.sub(r"^```.*?^```", "", page.read_text(encoding="utf-8"), flags=re.M | re.S)
    return LINK.findall(text)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_relative_links_point_to_existing_files_and_headings(page):
    broken = []
    for target in _links(page):
        if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
            continue
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    assert not broken, f"{page.name}: {broken}"


def _code(page: Path) -> str:
    """The page's code: fenced blocks and inline code spans."""
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"^```.*?^```", text, flags=re.M | re.S)
    rest = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return "\n".join(blocks + re.findall(r"`([^`\n]+)`", rest))


def test_every_command_the_docs_show_exists():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    groups = {name: next((a for a in p._actions if isinstance(a, argparse._SubParsersAction)), None)
              for name, p in sub.choices.items()}
    shown, unknown = set(), []
    for page in PAGES:
        for name, second in re.findall(r"(?:^|[\s`(;|&$])streamgaze ([a-z][\w-]*)(?: ([a-z][\w-]*))?", _code(page),
                                       flags=re.M):
            shown.add(name)
            if name not in sub.choices:
                unknown.append(f"{page.name}: streamgaze {name}")
            elif groups[name] is not None and second and second not in groups[name].choices:
                unknown.append(f"{page.name}: streamgaze {name} {second}")
    assert not unknown
    assert {"eval", "submit", "validate", "leaderboard", "build", "import", "stream-eval"} <= shown


def test_every_make_target_the_docs_show_exists():
    makefile = (REPO / "Makefile").read_text(encoding="utf-8")
    targets = set(re.findall(r"^([a-z][\w-]*):", makefile, flags=re.M))
    shown = {t for page in PAGES for t in re.findall(r"\bmake ([a-z][\w-]*)(?=[\s`]|$)", _code(page), flags=re.M)}
    assert {"demo", "test", "perf"} <= shown
    assert shown <= targets, sorted(shown - targets)


def test_the_readme_is_short():
    assert len((REPO / "README.md").read_text(encoding="utf-8").splitlines()) <= 220
