"""Dataset references on the Hub: ``hf://datasets/ORG/NAME@REV`` (the form ``datasets`` and
``huggingface_hub`` use), REV a tag, a branch or a commit (default ``main``).

A reference is accepted wherever a dataset root is (``--root``, ``--dataset``, ``$STREAMGAZE_ROOT`` and
the other benchmarks' ``$..._ROOT``): :func:`streamgaze_hf.dataset.load.locate` (through ``open_dataset``) turns it into the
local snapshot directory of one commit in the standard Hugging Face cache
(``$HF_HUB_CACHE/datasets--ORG--NAME/snapshots/<commit>/``), and everything downstream reads local paths.
:func:`snapshot_of` maps such a directory back to its repository and commit, so a path handed to another
process (lmms-eval's task code, a worker, a rank) still knows where its missing files come from.

**One commit per run.** :func:`resolve_commit` asks the Hub once per process and records the answer in
``$STREAMGAZE_HF_PINS`` (JSON ``{"ORG/NAME@REV": "<commit>"}``), which child processes inherit. In a
distributed run launched by ``accelerate launch`` / ``torchrun`` (``WORLD_SIZE`` > 1 with the launcher's
agent store), rank 0 resolves and publishes the commit in the launcher's key-value store and the other
ranks read it from there, so every rank evaluates the same commit even if the tag moves meanwhile.
A commit id needs no resolution (and works offline); a tag or branch offline resolves through the
cache's ``refs/`` (written when it was first resolved online).
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..util.errors import StreamGazeError
from .client import PREFIX, reference_string

__all__ = ["HubRef", "PREFIX", "PINS_ENV", "is_reference", "parse_reference", "snapshot_of", "resolve_commit", "dataset_origin",
           "reference_string"]

PINS_ENV = "STREAMGAZE_HF_PINS"
DEFAULT_REVISION = "main"
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_COMMIT = re.compile(r"^[0-9a-f]{40}$")
_STORE_TIMEOUT_S = 600.0
_MEMO: dict[str, str] = {}


@dataclass(frozen=True)
class HubRef:
    """A dataset repository and a revision (tag, branch or commit)."""

    repo_id: str
    revision: str = DEFAULT_REVISION

    def __str__(self) -> str:
        return reference_string(self.repo_id, self.revision)

    @property
    def is_commit(self) -> bool:
        return bool(_COMMIT.match(self.revision))


def is_reference(value: object) -> bool:
    """Whether ``value`` is meant as a Hub reference (a string starting with ``hf://``)."""
    return isinstance(value, str) and value.startswith("hf://")


def parse_reference(value: str) -> HubRef:
    """``hf://datasets/ORG/NAME[@REV]`` -> :class:`HubRef` (StreamGazeError naming the expected form)."""
    form = "expected hf://datasets/ORG/NAME@REV (REV: a tag such as v1.0.0, a branch or a commit)"
    if not value.startswith(PREFIX):
        raise StreamGazeError(f"not a dataset reference: {form}", value)
    body = value[len(PREFIX):]
    repo, sep, revision = body.partition("@")
    repo = repo.rstrip("/")
    if not _REPO.match(repo) or ".." in repo:
        raise StreamGazeError(f"bad repository id {repo!r}: {form}", value)
    if sep and (not revision or revision.startswith("/") or ".." in revision or any(c.isspace() for c in revision)):
        raise StreamGazeError(f"bad revision {revision!r}: {form}", value)
    return HubRef(repo, revision if sep else DEFAULT_REVISION)


def snapshot_of(root: str | os.PathLike[str]) -> tuple[str, str] | None:
    """(repo id, commit) when ``root`` is a dataset snapshot directory of the Hugging Face cache
    (``.../datasets--ORG--NAME/snapshots/<commit>``), else None."""
    p = Path(root)
    if not _COMMIT.match(p.name) or p.parent.name != "snapshots":
        return None
    folder = p.parent.parent.name
    if not folder.startswith("datasets--"):
        return None
    parts = folder[len("datasets--"):].split("--")
    if len(parts) != 2:
        return None
    return f"{parts[0]}/{parts[1]}", p.name


def _pins() -> dict[str, str]:
    raw = os.environ.get(PINS_ENV, "")
    if not raw:
        return {}
    try:
        pins = json.loads(raw)
    except json.JSONDecodeError:
        raise StreamGazeError(f"${PINS_ENV} is not JSON: {raw[:80]!r}") from None
    return {str(k): str(v) for k, v in pins.items()} if isinstance(pins, dict) else {}


def _pin(ref: HubRef, commit: str) -> None:
    _MEMO[str(ref)] = commit
    pins = _pins()
    if pins.get(str(ref)) != commit:
        pins[str(ref)] = commit
        from ..util.process_env import configure

        configure({PINS_ENV: json.dumps(pins, sort_keys=True)})  # read back by this run's child processes


def resolve_commit(ref: HubRef) -> str:
    """The commit ``ref`` names in this run (see the module docstring: once per run, the same on every rank)."""
    if ref.is_commit:
        return ref.revision
    key = str(ref)
    commit = _MEMO.get(key) or _pins().get(key)
    if commit is None:
        commit = _resolve_across_ranks(ref)
    _pin(ref, commit)
    return commit


def _resolve_across_ranks(ref: HubRef) -> str:
    store = _launcher_store()
    if store is None:
        return _ask_hub(ref)
    key = f"streamgaze/hf-pin/{ref}"
    if int(os.environ.get("RANK", "0")) == 0:
        try:
            commit = _ask_hub(ref)
        except StreamGazeError as exc:
            store.set(key, "!" + str(exc))
            raise
        store.set(key, commit)
        return commit
    value = store.get(key).decode()
    if value.startswith("!"):
        raise StreamGazeError(f"rank 0 could not resolve {ref}: {value[1:]}")
    return value


def _launcher_store():
    """The key-value store of ``torchrun`` / ``accelerate launch`` (the agent's TCPStore, which torch's
    own process-group set-up connects to the same way), or None outside such a distributed launch."""
    try:
        world = int(os.environ.get("WORLD_SIZE", "1"))
    except ValueError:
        return None
    if world <= 1 or os.environ.get("TORCHELASTIC_USE_AGENT_STORE") != "True":
        return None
    host, port = os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT")
    if not host or not port:
        return None
    from datetime import timedelta

    try:
        from torch.distributed import TCPStore
    except ImportError:  # no torch: no launcher store to share (each process resolves for itself)
        return None
    return TCPStore(host, int(port), world, False, timedelta(seconds=_STORE_TIMEOUT_S))


def _ask_hub(ref: HubRef) -> str:
    """The commit of ``ref``: the snapshot folder its ``manifest.json`` lands in (a HEAD request online;
    the cache's ``refs/`` offline). The manifest is needed next anyway."""
    from .client import hub_download

    path = hub_download(ref.repo_id, "manifest.json", ref.revision)
    found = snapshot_of(Path(path).parent)
    if found is None:  # a cache layout we do not know: ask the API
        from huggingface_hub import HfApi

        return HfApi().dataset_info(ref.repo_id, revision=ref.revision).sha
    return found[1]


def dataset_origin(root: str | os.PathLike[str]) -> dict[str, str]:
    """``{"repo": ORG/NAME, "commit": <sha>}`` for a dataset read from the Hub (a snapshot root), else {}:
    what submissions record next to the dataset version and manifest digest."""
    found = snapshot_of(root)
    return {} if found is None else {"repo": found[0], "commit": found[1]}
