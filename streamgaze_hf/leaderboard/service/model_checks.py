"""Checks of the model a submission names on the Hub (``model.url`` = ``https://huggingface.co/ORG/NAME``,
which ``streamgaze submit --model-id ORG/NAME`` writes), through ``huggingface_hub`` only:

* the model exists and is public, else the submission is refused with the reason;
* its commit (``sha``) is resolved and recorded in the row (``model_commit``);
* a missing model card or licence is flagged in the row (``model_warnings``), not refused;
* ``model.params`` is checked against the parameter count the Hub computes from the safetensors weights
  (``model_params_hub``): a declared size more than :data:`PARAMS_TOLERANCE` away from it is refused (names
  round: Qwen2.5-VL-7B holds 8.3 B parameters).

A model URL of another site (a paper, a GitHub repository) names no Hub model: none of this applies.

An evaluation request (the leaderboard runs the model itself) also pins a commit: :func:`check_revision` refuses a
commit the repository does not have, and a model whose ``config.json`` asks for remote code (``auto_map``): a
leaderboard job runs only code of lmms-eval and transformers, never a repository's own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ...util.errors import StreamGazeError

__all__ = ["ModelCheck", "hub_model_id", "check_model", "parse_params", "model_page", "PARAMS_TOLERANCE",
           "check_revision"]

#: the largest relative difference between ``model.params`` and the Hub's safetensors count
PARAMS_TOLERANCE = 0.25
_HUB_HOSTS = ("https://huggingface.co", "https://hf.co")
_RESERVED = {"datasets", "spaces", "docs", "blog", "papers", "models", "settings", "organizations", "collections",
             "api", "join", "login", "pricing", "tasks", "learn", "posts", "chat", "new", "enterprise"}
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}(?:/[A-Za-z0-9][A-Za-z0-9_.-]{0,95})?$")
_PARAMS = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([KMBT])\s*$", re.I)
_SCALE = {"K": 1e3, "M": 1e6, "B": 1e9, "T": 1e12}


@dataclass(frozen=True)
class ModelCheck:
    """What the Hub says of a submission's model: its id, commit, parameter count (None: not computed) and
    the warnings shown in its row ("no model card", "no licence")."""

    model_id: str
    commit: str
    params: int | None
    warnings: tuple[str, ...]


def hub_model_id(url: str) -> str:
    """``ORG/NAME`` when ``url`` is a model page on the Hub (or on ``HF_ENDPOINT``), else ""."""
    from huggingface_hub import constants

    for host in (constants.ENDPOINT.rstrip("/"), *_HUB_HOSTS):
        if url.startswith(host + "/"):
            parts = url[len(host) + 1:].split("?", 1)[0].split("#", 1)[0].strip("/").split("/")
            if not parts or parts[0] in _RESERVED:
                return ""
            candidate = "/".join(parts[:2]) if len(parts) >= 2 and parts[1] not in ("tree", "blob") else parts[0]
            return candidate if _ID.match(candidate) else ""
    return ""


def parse_params(text: str) -> float | None:
    """``"7B"`` -> 7e9, ``"500M"`` -> 5e8; None when the text is not a size."""
    m = _PARAMS.match(text or "")
    return float(m.group(1)) * _SCALE[m.group(2).upper()] if m else None


def _size(n: float) -> str:
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= scale:
            return f"{n / scale:.2f}".rstrip("0").rstrip(".") + unit
    return str(int(n))


def check_model(api, model_id: str, declared_params: str) -> ModelCheck:
    """The checks of the module docstring; StreamGazeError (the reason) when the model is refused. Hub
    failures other than "not found" raise their own exception (the pull request is left for the next sync)."""
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    try:
        info = api.model_info(model_id, expand=["sha", "private", "gated", "cardData", "safetensors", "siblings"])
    except (RepositoryNotFoundError, RevisionNotFoundError):
        raise StreamGazeError(f"names the model {model_id} (model.url), which is not a public model on the Hub") from None
    if info.private:
        raise StreamGazeError(f"names the model {model_id} (model.url), which is private on the Hub: a leaderboard "
                              "row links a model anyone can see")
    warnings = []
    files = {s.rfilename for s in (info.siblings or [])}
    if "README.md" not in files:
        warnings.append("no model card")
    card = info.card_data
    licence = card and (card.get("license") or card.get("license_name"))
    if not licence:
        warnings.append("no licence")
    total = int(info.safetensors.total) if info.safetensors is not None and info.safetensors.total else None
    declared = parse_params(declared_params)
    if total and declared and abs(declared - total) > PARAMS_TOLERANCE * total:
        raise StreamGazeError(f"model.params says {declared_params.strip()}, but the safetensors weights of {model_id} "
                              f"hold {_size(total)} parameters")
    return ModelCheck(model_id, str(info.sha or ""), total, tuple(warnings))


def model_page(model_id: str, url: str = "") -> str:
    """``submit --model-id``: the model's page on the Hub (``--model-url`` must be empty or that page)."""
    from huggingface_hub import constants

    if not _ID.match(model_id) or "/" not in model_id:
        raise StreamGazeError(f"--model-id {model_id!r}: expected ORG/NAME, a model repository on the Hub")
    page = f"{constants.ENDPOINT.rstrip('/')}/{model_id}"
    if url and url != page:
        raise StreamGazeError(f"--model-url {url} and --model-id {model_id} name two places: give one")
    return page


#: the largest config.json read (a model's is a few KB)
_MAX_CONFIG_BYTES = 1024 * 1024


def check_revision(api, model_id: str, commit: str) -> None:
    """An evaluation request's model at its pinned ``commit``: the commit exists, and its ``config.json`` (when it
    has one) needs no remote code. StreamGazeError with the reason; other Hub failures raise as they are."""
    import json

    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import RepositoryNotFoundError, RevisionNotFoundError

    try:
        info = api.model_info(model_id, revision=commit, expand=["sha", "siblings"])
    except RepositoryNotFoundError:
        raise StreamGazeError(f"the model {model_id} is not a public model on the Hub") from None
    except RevisionNotFoundError:
        raise StreamGazeError(f"the model {model_id} has no commit {commit[:12]}") from None
    if "config.json" not in {s.rfilename for s in (info.siblings or [])}:
        return
    [found] = api.get_paths_info(model_id, ["config.json"], revision=commit) or [None]
    if found is None or int(found.size) > _MAX_CONFIG_BYTES:
        raise StreamGazeError(f"the config.json of {model_id}@{commit[:12]} is larger than {_MAX_CONFIG_BYTES:,} bytes")
    from ...submission import StrictJSONError, loads_strict

    local = hf_hub_download(model_id, "config.json", revision=commit, token=api.token)
    try:
        config = loads_strict(open(local, encoding="utf-8").read())
    except (StrictJSONError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StreamGazeError(f"the config.json of {model_id}@{commit[:12]} does not read: {exc}") from None
    if isinstance(config, dict) and config.get("auto_map"):
        raise StreamGazeError(f"the model {model_id} asks for remote code (config.json has auto_map): a leaderboard job "
                              "runs only models that load without code of their own")
