"""The toolkit as a wheel, from whatever is installed here: what a folder that must install it without a package
index holds (the leaderboard's Space: leaderboard/service/space_install.py).

* From a source tree (a clone, an editable install): the project's own build backend (``pyproject.toml``'s
  ``build-system``, setuptools) builds it in a child process, on a copy of the tree in a temporary directory
  (the tree gets no ``build/`` or ``*.egg-info``), without network (no build isolation).
* From an installed wheel (``pip install`` of the wheel or of a repository): the files its ``RECORD`` lists are
  packed again into a wheel (the same files, a new ``RECORD``).
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zipfile
from importlib import metadata
from pathlib import Path

from .errors import StreamGazeError
from .process_env import child_env
from .provenance import DISTRIBUTION

__all__ = ["toolkit_wheel", "source_tree"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]  # streamgaze_hf/


def source_tree() -> Path | None:
    """The project directory this package is imported from (``pyproject.toml`` naming the toolkit), or None."""
    root = _PACKAGE_DIR.parent
    project = root / "pyproject.toml"
    if project.is_file() and f'name = "{DISTRIBUTION}"' in project.read_text(encoding="utf-8"):
        return root
    return None


def _packages(project: str) -> list[str]:
    """The top-level packages ``[tool.setuptools.packages.find] include`` names (``streamgaze_hf*`` ...)."""
    section = project.split("[tool.setuptools.packages.find]", 1)[-1]
    found = re.search(r"^include\s*=\s*\[([^\]]*)\]", section, re.M)
    patterns = re.findall(r'"([^"]+)"', found.group(1)) if found else []
    return sorted({p.split(".")[0].rstrip("*") for p in patterns})


def _build_from_source(root: Path, dest: Path) -> Path:
    tops = _packages((root / "pyproject.toml").read_text(encoding="utf-8"))
    with tempfile.TemporaryDirectory(prefix=".wheel-", dir=dest) as tmp:
        work = Path(tmp) / "src"
        work.mkdir()
        for name in ("pyproject.toml", "README.md", "setup.cfg", "MANIFEST.in"):
            if (root / name).is_file():
                shutil.copy2(root / name, work / name)
        for top in tops:
            shutil.copytree(root / top, work / top, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        code = ("import sys, setuptools.build_meta as backend; "
                "print(backend.build_wheel(sys.argv[1]))")
        proc = subprocess.run([sys.executable, "-c", code, str(Path(tmp) / "out")], cwd=work, capture_output=True,
                              text=True, env=child_env({"PIP_NO_INDEX": "1"}))
        if proc.returncode != 0:
            raise StreamGazeError(f"could not build the toolkit's wheel from {root}: "
                                  f"{(proc.stderr.strip().splitlines() or ['?'])[-1]}")
        name = proc.stdout.strip().splitlines()[-1]
        return Path(shutil.move(str(Path(tmp) / "out" / name), dest / name))


def _record_hash(data: bytes) -> str:
    return "sha256=" + base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


#: what a wheel's .dist-info holds (an installer adds INSTALLER, REQUESTED, direct_url.json, uv_cache.json, ...)
_WHEEL_INFO = ("METADATA", "WHEEL", "entry_points.txt", "top_level.txt")


def _from_the_wheel(path: str) -> bool:
    """Whether an installed file came from the wheel (not a bytecode cache, a console script or an installer's
    record)."""
    parts = path.split("/")
    if path.startswith("..") or "__pycache__" in parts or path.endswith(".pyc"):
        return False
    if parts[0].endswith(".dist-info"):
        return len(parts) == 2 and parts[1] in _WHEEL_INFO or (len(parts) > 2 and parts[1] == "licenses")
    return True


def _repack_installed(dest: Path) -> Path:
    dist = metadata.distribution(DISTRIBUTION)
    files = [f for f in dist.files or [] if _from_the_wheel(str(f))]
    if not files:
        raise StreamGazeError(f"{DISTRIBUTION} is installed without a file list (RECORD): reinstall it from its "
                              "wheel or its repository")
    info = next(str(f).split("/")[0] for f in files if str(f).endswith(".dist-info/METADATA"))
    name = f"{DISTRIBUTION.replace('-', '_')}-{dist.version}-py3-none-any.whl"
    out = dest / name
    record = []
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(files, key=str):
            data = Path(f.locate()).read_bytes()
            zf.writestr(str(f), data)
            record.append(f"{f},{_record_hash(data)},{len(data)}")
        record.append(f"{info}/RECORD,,")
        zf.writestr(f"{info}/RECORD", "\n".join(record) + "\n")
    return out


def toolkit_wheel(dest: str | os.PathLike[str]) -> Path:
    """Write the toolkit's wheel into the directory ``dest``; returns its path (the module docstring)."""
    dest = Path(dest).resolve()
    root = source_tree()
    return _build_from_source(root, dest) if root is not None else _repack_installed(dest)
