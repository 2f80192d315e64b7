"""What environment the toolkit runs in, against the lock it was tested on (``uv.lock``, ``make lock``).

The lock pins every package of the project's declared dependencies, transitive ones included, for each
Python version the project claims (a package may have several locked versions, one per marker range).
:func:`locked_versions` walks the lock from the project's own entry the way an installer does: the
project's dependencies and those of the chosen extras, then each dependency's own, keeping an edge only
where its marker holds for *this* interpreter. The result is the exact set ``uv sync`` installs here, so
:func:`lock_differences` can compare it package for package with what is installed.

A toolkit installed without a clone (``pip install`` of a wheel) has no lock beside it: :func:`find_lock`
returns None and ``streamgaze doctor`` only lists versions.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.utils import canonicalize_name

from .errors import StreamGazeError

__all__ = [
    "KEY_PACKAGES", "LOCK_FILE", "PROJECT", "SETUP_EXTRAS", "find_lock", "locked_versions", "installed_versions",
    "lock_differences", "PackageState", "key_package_states", "canonical_name", "unmet_requirements",
]

LOCK_FILE = "uv.lock"
PROJECT = "streamgaze-toolkit"
# the extras scripts/setup.sh installs (the README's `make demo` / `make test` environment)
SETUP_EXTRAS = ("dev", "eval", "video", "leaderboard", "bids", "ray")
# the packages whose versions change what a run does (doctor lists them; submissions record some)
KEY_PACKAGES = ("lmms-eval", "datasets", "huggingface-hub", "transformers", "torch", "av", "decord", "filelock")


def canonical_name(name: str) -> str:
    """PEP 503 normalisation (packaging's): ``Huggingface_Hub`` and ``huggingface-hub`` are one package."""
    return str(canonicalize_name(name))


def find_lock() -> Path | None:
    """The lock of the source tree this package was imported from (an editable install or a clone)."""
    candidate = Path(__file__).resolve().parents[2] / LOCK_FILE  # the clone: streamgaze_hf/util/ -> ../../
    return candidate if candidate.is_file() else None


def _load_toml(path: Path) -> dict:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover - Python 3.10
        import tomli as tomllib
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, ValueError) as exc:
        raise StreamGazeError(f"{path}: cannot read the lock: {exc}") from exc


def _marker_holds(marker: str | None, extras: frozenset[str] = frozenset()) -> bool:
    if not marker:
        return True
    from packaging.markers import Marker

    m = Marker(marker)
    if not extras:
        return m.evaluate({"extra": ""})
    return any(m.evaluate({"extra": e}) for e in extras)


def locked_versions(lock: Path, extras: tuple[str, ...] = SETUP_EXTRAS) -> dict[str, str]:
    """``{canonical name: version}`` of every package the lock installs on this interpreter with ``extras``
    (the project itself left out)."""
    data = _load_toml(lock)
    packages = data.get("package", [])
    by_key: dict[tuple[str, str | None], dict] = {}
    by_name: dict[str, list[dict]] = {}
    for pkg in packages:
        name = canonical_name(pkg["name"])
        by_key[(name, pkg.get("version"))] = pkg
        by_name.setdefault(name, []).append(pkg)
    roots = by_name.get(PROJECT)
    if not roots:
        raise StreamGazeError(f"{lock}: the lock has no entry for {PROJECT}: regenerate it with `make lock`")
    unknown = sorted(set(extras) - set(roots[0].get("optional-dependencies", {})))
    if unknown:
        raise StreamGazeError(f"{lock}: the project has no extra {', '.join(unknown)}")

    def resolve(dep: dict) -> dict:
        name = canonical_name(dep["name"])
        candidates = by_name.get(name, [])
        if "version" in dep:
            return by_key[(name, dep["version"])]
        if len(candidates) != 1:
            raise StreamGazeError(f"{lock}: dependency {name} is ambiguous in the lock")
        return candidates[0]

    result: dict[str, str] = {}
    seen: set[tuple[str, str | None, frozenset[str]]] = set()
    stack: list[tuple[dict, frozenset[str]]] = [(roots[0], frozenset(extras))]
    while stack:
        pkg, pkg_extras = stack.pop()
        key = (canonical_name(pkg["name"]), pkg.get("version"), pkg_extras)
        if key in seen:
            continue
        seen.add(key)
        if key[0] != PROJECT:
            result[key[0]] = pkg["version"]
        deps = list(pkg.get("dependencies", []))
        for extra in sorted(pkg_extras):
            deps += pkg.get("optional-dependencies", {}).get(extra, [])
        for dep in deps:
            if _marker_holds(dep.get("marker")):
                stack.append((resolve(dep), frozenset(dep.get("extra", []))))
    return dict(sorted(result.items()))


def installed_versions() -> dict[str, str]:
    """``{canonical name: version}`` of every distribution importable here (the project left out)."""
    found: dict[str, str] = {}
    for dist in metadata.distributions():
        name = dist.metadata["Name"]
        if name and canonical_name(name) != PROJECT:
            found.setdefault(canonical_name(name), dist.version)
    return dict(sorted(found.items()))


def lock_differences(lock: Path | None = None, extras: tuple[str, ...] = SETUP_EXTRAS,
                     installed: dict[str, str] | None = None) -> list[str]:
    """One line per package where the installed set and the lock differ ([] when they are equal)."""
    lock = lock or find_lock()
    if lock is None:
        raise StreamGazeError(f"no {LOCK_FILE} beside the toolkit's source: the lock is checked in a clone")
    return _differences(locked_versions(lock, extras), installed_versions() if installed is None else installed)


def _differences(want: dict[str, str], have: dict[str, str]) -> list[str]:
    lines = []
    for name in sorted(set(want) | set(have)):
        if name not in have:
            lines.append(f"{name}: locked {want[name]}, not installed")
        elif name not in want:
            lines.append(f"{name}: {have[name]} installed, not in the lock")
        elif have[name] != want[name]:
            lines.append(f"{name}: {have[name]} installed, locked {want[name]}")
    return lines


@dataclass(frozen=True)
class PackageState:
    name: str
    installed: str | None   # None: not installed
    locked: str | None      # None: not in the lock (or no lock)

    @property
    def differs(self) -> bool:
        return self.locked is not None and self.installed != self.locked


def key_package_states(want: dict[str, str], have: dict[str, str]) -> list[PackageState]:
    """The installed (``have``) and locked (``want``; {} without a lock) versions of :data:`KEY_PACKAGES`."""
    return [PackageState(n, have.get(n), want.get(n)) for n in KEY_PACKAGES]


def unmet_requirements(extras: tuple[str, ...] = (), installed: dict[str, str] | None = None) -> list[str]:
    """One line per declared requirement of the installed toolkit (its own and those of ``extras``) that the
    installed packages do not satisfy, e.g. ``filelock 4.3.1 is installed; the toolkit declares filelock<4``.

    The declared ranges exclude versions known to break (pyproject.toml says why next to each bound), so this
    catches an environment a user assembled themselves, without the lock."""
    from packaging.requirements import Requirement

    try:
        declared = metadata.requires(PROJECT) or []
    except metadata.PackageNotFoundError:
        return []
    have = installed_versions() if installed is None else installed
    env_extras = frozenset(extras)
    lines = []
    for text in declared:
        req = Requirement(text)
        if req.marker is not None and not _marker_holds(str(req.marker), env_extras):
            continue
        name = canonical_name(req.name)
        version = have.get(name)
        if version is None:
            lines.append(f"{req.name} is not installed; the toolkit declares {req}")
        elif not req.specifier.contains(version, prereleases=True):
            lines.append(f"{req.name} {version} is installed; the toolkit declares {req.name}{req.specifier} "
                         f"(pyproject.toml says why)")
    return lines


def environment_report() -> tuple[list[str], int]:
    """``streamgaze doctor`` without a dataset: the toolkit, Python, the key packages' installed and locked
    versions (each that differs flagged), how many installed packages differ from the lock, and the declared
    ranges.

    Returns:
        ``(lines, problems)``: the report's lines, and the number of problems (key packages that differ from
        the lock, other installed packages that differ from it, unmet declared ranges of the ``eval`` extra).

    Raises:
        StreamGazeError: the lock beside the source cannot be read, or has no entry for the toolkit or for an
            extra it installs.
    """
    import platform

    from .provenance import toolkit_description

    lock = find_lock()
    have = installed_versions()
    want = locked_versions(lock) if lock is not None else {}
    states = key_package_states(want, have)
    lines = [toolkit_description(), f"python {platform.python_version()} ({sys.executable})",
             f"lock {lock} (extras {', '.join(SETUP_EXTRAS)})" if lock else
             f"lock: none ({LOCK_FILE} is beside a clone's source; this install has no lock to compare with)", ""]
    width = max(len(s.name) for s in states)
    lines.append(f"{'package':<{width}}  {'installed':<12} locked")
    for s in states:
        flag = "  differs from the lock" if s.differs else ""
        lines.append(f"{s.name:<{width}}  {s.installed or '-':<12} {s.locked or '-':<12}{flag}".rstrip())
    problems = sum(s.differs for s in states)
    if lock is not None:
        diff = _differences(want, have)
        others = [d for d in diff if d.split(":")[0] not in KEY_PACKAGES]
        lines += ["", f"installed set against the lock: {'equal' if not diff else f'{len(diff)} differ'}"]
        lines += [f"  {d}" for d in others]
        problems += len(others)
    unmet = unmet_requirements(("eval",), installed=have)
    lines += ["", "declared ranges: " + ("met" if not unmet else f"{len(unmet)} unmet")] + [f"  {u}" for u in unmet]
    return lines, problems + len(unmet)
