"""`make check-latest`: would the newest versions the declared ranges allow still pass? Run before `make lock`.

1. Resolves pyproject.toml afresh into a scratch lock (.check-latest/uv.lock): `uv lock --upgrade` on a copy of
   the project files, without the lock's torch/torchvision hold ([tool.uv] constraint-dependencies), so every
   package moves to the newest version its declared range allows.
2. Installs that set into a scratch venv (.check-latest/venv; uv links from its cache, so it costs little disk),
   with this checkout installed editable on top.
3. Runs the fast tests (tests/unit) and the evaluation smoke test (tests/integration/test_eval_smoke.py) in it.
4. Prints every package whose newest resolution differs from uv.lock, and every declared upper bound that holds
   a package below its newest release on the index (e.g. filelock<4).

Exit status: 0 when the tests passed on the newest set (then `make lock UPGRADE=1` is safe to try), 1 otherwise.
Nothing outside .check-latest/ changes: not uv.lock, not .venv.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from streamgaze_hf.util.environment import (  # noqa: E402
    PROJECT,
    SETUP_EXTRAS,
    _load_toml,
    canonical_name,
    locked_versions,
)

FAST_TESTS = ["tests/unit", "tests/integration/test_eval_smoke.py"]
# the lock's own comparison is what this script reports instead of failing on
DESELECT = ["tests/unit/test_environment.py::test_installed_set_equals_the_lock",
            "tests/integration/test_eval_smoke.py::test_doctor_lists_the_key_packages_against_the_lock"]


def run(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    print("+", " ".join(map(str, cmd)), flush=True)
    return subprocess.run(list(map(str, cmd)), check=True, **kw)


def scratch_project(work: Path) -> Path:
    """A copy of pyproject.toml and README.md (the build reads it) without the lock's torch hold."""
    proj = work / "project"
    if proj.exists():
        shutil.rmtree(proj)
    proj.mkdir(parents=True)
    text = (REPO / "pyproject.toml").read_text()
    text = re.sub(r"^constraint-dependencies = .*\n", "", text, flags=re.M)
    (proj / "pyproject.toml").write_text(text)
    shutil.copy(REPO / "README.md", proj / "README.md")
    return proj


def newest_on_index(uv: str, name: str) -> str:
    """The newest release of ``name`` on the index (resolved alone, no bound)."""
    out = subprocess.run([uv, "pip", "compile", "-", "--no-deps", "--no-header", "--no-annotate", "--quiet"],
                         input=name + "\n", capture_output=True, text=True, check=True).stdout
    line = next(ln for ln in out.splitlines() if ln.strip() and not ln.startswith("#"))
    return line.split("==", 1)[1].split(";")[0].strip()


def held_back(uv: str, latest: dict[str, str]) -> list[str]:
    """Declared requirements with an upper bound whose package has a newer release than the bound allows."""
    from packaging.requirements import Requirement

    project = _load_toml(REPO / "pyproject.toml")["project"]
    declared = list(project["dependencies"])
    for extra in SETUP_EXTRAS:
        declared += project["optional-dependencies"].get(extra, [])
    lines = []
    for text in declared:
        req = Requirement(text)
        if not any(s.operator in ("<", "<=", "==", "~=", "===") for s in req.specifier):
            continue
        newest = newest_on_index(uv, req.name)
        if not req.specifier.contains(newest, prereleases=False):
            got = latest.get(canonical_name(req.name), "-")
            lines.append(f"{req.name}: {newest} is on the index; the declared {req.name}{req.specifier} keeps {got}")
    return lines


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--work", default=str(REPO / ".check-latest"), help="scratch directory (default: .check-latest)")
    ap.add_argument("--no-tests", action="store_true", help="resolve and report only")
    a = ap.parse_args()
    work = Path(a.work).resolve()
    uv = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    if not uv:
        print("check-latest: uv is not installed (the dev extra installs it: make setup)", file=sys.stderr)
        return 2
    proj = scratch_project(work)
    run([uv, "lock", "--upgrade", "--quiet", "--directory", proj])
    latest = locked_versions(proj / "uv.lock")
    current = locked_versions(REPO / "uv.lock")

    tests_ok = True
    if not a.no_tests:
        venv = work / "venv"
        reqs = work / "requirements.txt"
        extras = [x for e in SETUP_EXTRAS for x in ("--extra", e)]
        run([uv, "export", "--frozen", "--no-emit-project", "--quiet", "--directory", proj, *extras, "-o", reqs])
        run([uv, "venv", "--quiet", "--allow-existing", "--python", sys.executable, venv])
        py = venv / "bin" / "python"
        run([uv, "pip", "sync", "--quiet", "--python", py, reqs])
        run([uv, "pip", "install", "--quiet", "--no-deps", "--python", py, "-e", REPO])
        env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1",
               "PATH": f"{venv / 'bin'}{os.pathsep}{os.environ.get('PATH', '')}"}
        args = [py, "-m", "pytest", "-q", "-n", "auto", "--basetemp", work / "pytest", *FAST_TESTS]
        args += [x for d in DESELECT for x in ("--deselect", d)]
        print("+", " ".join(map(str, args)), flush=True)
        tests_ok = subprocess.run(list(map(str, args)), cwd=REPO, env=env).returncode == 0

    print("\n== packages whose newest allowed version differs from uv.lock (this interpreter, extras "
          f"{', '.join(SETUP_EXTRAS)})")
    diff = [(n, current.get(n, "-"), latest.get(n, "-")) for n in sorted(set(current) | set(latest))
            if current.get(n) != latest.get(n) and n != PROJECT]
    width = max([len(n) for n, _, _ in diff] + [7])
    print(f"{'package':<{width}}  {'uv.lock':<14} newest allowed")
    for name, old, new in diff:
        print(f"{name:<{width}}  {old:<14} {new}")
    print(f"{len(diff)} package(s) differ" if diff else "none: the lock is the newest allowed set")
    print("\n== declared bounds holding a package back (pyproject.toml says why beside each)")
    back = held_back(uv, latest)
    print("\n".join(back) if back else "none")
    verdict = "passed" if tests_ok else "FAILED"
    print(f"\n== fast tests and the evaluation smoke test on the newest set: "
          f"{'not run' if a.no_tests else verdict}")
    return 0 if tests_ok else 1


if __name__ == "__main__":
    sys.exit(main())
