"""The environment is part of the product (issue 30): the installed set is the lock, package for package;
the declared ranges hold; the lock is read the way uv itself reads it.

These tests fail, naming the package, when the venv drifts from uv.lock (e.g. filelock 4 forced in, which
breaks every lmms-eval 0.7.3 evaluation): `make test` is then red before any user meets the breakage.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from streamgaze_hf.util import environment as env

REPO = Path(__file__).resolve().parents[2]
LOCK = REPO / "uv.lock"


def test_the_lock_is_found_beside_the_source():
    assert env.find_lock() == LOCK


def test_installed_set_equals_the_lock():
    assert env.lock_differences() == [], "the venv differs from uv.lock (`make setup FORCE=1` installs the lock again):\n" + "\n".join(
        env.lock_differences())


def test_installed_packages_meet_the_declared_ranges():
    problems = env.unmet_requirements(env.SETUP_EXTRAS)
    assert problems == [], "\n".join(problems)


def _uv_export(extras) -> dict[str, str]:
    """The set `uv export` (uv's own reading of the lock) installs on this interpreter."""
    uv = Path(sys.executable).parent / "uv"
    uv_bin = str(uv) if uv.is_file() else shutil.which("uv")
    if not uv_bin:
        pytest.skip("uv is not installed (the dev extra installs it)")
    args = [uv_bin, "export", "--frozen", "--no-hashes", "--no-emit-project", "--no-header", "--no-annotate",
            *[a for e in extras for a in ("--extra", e)]]
    out = subprocess.run(args, cwd=REPO, capture_output=True, text=True, check=True).stdout
    found = {}
    for line in out.splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        req = Requirement(line)
        if req.marker is None or req.marker.evaluate():
            (version,) = [s.version for s in req.specifier]
            found[env.canonical_name(req.name)] = version
    return found


@pytest.mark.parametrize("extras", [(), ("eval",), env.SETUP_EXTRAS])
def test_the_lock_walk_gives_what_uv_export_gives(extras):
    """locked_versions() follows markers and extras as uv does: the same packages at the same versions."""
    ours = env.locked_versions(LOCK, extras)
    assert ours == _uv_export(extras)
    assert ours["numpy"] and ("lmms-eval" in ours) == ("eval" in extras)


def test_the_lock_pins_the_harness_and_a_filelock_it_can_import():
    locked = env.locked_versions(LOCK, ("eval",))
    assert locked["lmms-eval"] == "0.7.3"
    assert int(locked["filelock"].split(".")[0]) < 4
    assert (locked["torch"], locked["torchvision"]) == ("2.14.1", "0.29.1")


def test_a_drifted_package_is_named(tmp_path):
    installed = env.locked_versions(LOCK)
    installed["filelock"] = "4.3.1"
    installed["left-behind"] = "1.0"
    del installed["tqdm"]
    assert env.lock_differences(LOCK, installed=installed) == [
        "filelock: 4.3.1 installed, locked " + env.locked_versions(LOCK)["filelock"],
        "left-behind: 1.0 installed, not in the lock",
        "tqdm: locked " + env.locked_versions(LOCK)["tqdm"] + ", not installed",
    ]


def test_an_unknown_extra_is_an_error():
    with pytest.raises(env.StreamGazeError, match="no extra nosuch"):
        env.locked_versions(LOCK, ("nosuch",))


def test_the_declared_eval_extra_excludes_filelock_4():
    """The bound a user without the lock gets from `pip install -e .[eval]` (the reason sits beside it)."""
    extras = env._load_toml(REPO / "pyproject.toml")["project"]["optional-dependencies"]
    (filelock,) = [Requirement(r) for r in extras["eval"] if Requirement(r).name == "filelock"]
    assert not filelock.specifier.contains("4.0.0") and filelock.specifier.contains("3.32.7")
