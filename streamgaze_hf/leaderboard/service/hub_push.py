"""``streamgaze push-submission FILE --requests ORG/REQUESTS`` (and ``submit ... --push``): a submission sent
to the leaderboard as a pull request on the requests dataset.

The file is validated and re-scored locally first (against ``--dataset``, else the dataset revision the file
pins, ``hf://datasets/<dataset.repo>@<dataset.commit>``); an invalid file is refused before anything is sent, and
so is a file whose raw responses are those of a row the leaderboard accepted already (the requests dataset's
ledger, :mod:`.ledger`, names each accepted file's responses digest): the message names that row.
The pull request adds exactly one file, ``submissions/<benchmark>/<model-slug>/<UTC timestamp>.json`` (the
file's bytes unchanged), made with the user's token (``HF_TOKEN`` or the cached login); the Hub records the
token's user as the pull request's author, and the description names them too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from ...submission import is_oracle, submission_benchmark
from ...util.errors import StreamGazeError
from .repos import require_repo
from .untrusted import check_size, submission_path

__all__ = ["PushResult", "push_submission", "open_pull_request", "pinned_dataset", "hub_api", "hub_error",
           "refuse_repeat"]


@dataclass(frozen=True)
class PushResult:
    url: str  # the pull request's address
    path: str  # the file's path in the requests repository
    author: str

    def format(self) -> str:
        return f"opened a pull request adding {self.path} (author {self.author}):\n{self.url}"


def hub_api(token: str | None = None):
    """An ``HfApi`` with the user's token (``token``, else ``HF_TOKEN`` or the cached login)."""
    from huggingface_hub import HfApi

    return HfApi(token=token)


def hub_error(exc: Exception, what: str) -> StreamGazeError:
    """A Hub client error as one line naming what was being done."""
    response = getattr(exc, "response", None)
    status = getattr(response, "status_code", None)
    detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    if status in (401, 403):
        detail = (f"the token cannot do this ({status}): log in with `hf auth login` or set HF_TOKEN to a token "
                  "with write access")
    return StreamGazeError(f"{what}: {detail}")


def pinned_dataset(sub: dict) -> str | None:
    """The dataset revision a submission pins (``hf://datasets/REPO@COMMIT``), or None (a local dataset)."""
    ds = sub.get("dataset", {})
    if ds.get("repo") and ds.get("commit"):
        return f"hf://datasets/{ds['repo']}@{ds['commit']}"
    return None


def push_submission(path: str | os.PathLike[str], requests: str, dataset: str | None = None, *,
                    token: str | None = None, when: datetime | None = None,
                    timeout_s: float | None = None) -> PushResult:
    """Validate ``path`` locally, then open the pull request on the requests dataset ``requests``."""
    from ...submission import load_submission
    from .bounded import rescore_bounded

    path = Path(path)
    if not path.is_file():
        raise StreamGazeError("no such submission file", path)
    check_size(path.stat().st_size, str(path))
    sub = load_submission(path)
    root = dataset or pinned_dataset(sub)
    if root is None:
        bench, ds = submission_benchmark(sub), sub.get("dataset", {})
        raise StreamGazeError(f"the submission was made on a local copy of {bench.title} dataset version "
                              f"{ds.get('version', '?')} (manifest sha256 {str(ds.get('manifest_sha256', ''))[:12]}...), "
                              "which names no dataset on the Hub: pass --dataset hf://datasets/ORG/NAME@TAG, the "
                              "leaderboard's dataset that copy was made from (the one its maintainer lists; the "
                              "leaderboard re-scores against it)", path)
    api = hub_api(token)
    try:  # before the re-score, before any upload
        require_repo(api, requests, "requests", requests=requests)
    except StreamGazeError:
        raise
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"looking up {requests}") from None
    checked = rescore_bounded(path, root, **({} if timeout_s is None else {"timeout_s": timeout_s}))
    if is_oracle(checked.submission["run"]):
        raise StreamGazeError("this is the oracle baseline (it reads the answer key): never ranked", path)
    refuse_repeat(api, requests, checked.submission, path)
    return open_pull_request(requests, path.read_bytes(), sub, token=token, when=when,
                             how="with `streamgaze push-submission`")


def refuse_repeat(api, requests: str, sub: dict, path=None) -> None:
    """StreamGazeError naming the accepted row whose raw responses ``sub`` repeats (the requests dataset's ledger)."""
    from ...submission import responses_digest
    from .ledger import accepted_prs

    digest = responses_digest(sub)
    try:
        head = api.repo_info(requests, repo_type="dataset").sha
        ledger = accepted_prs(api, requests, head)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"reading the accepted submissions of {requests}") from None
    same = next((acc for _, acc in sorted(ledger.items()) if acc.responses == digest), None)
    if same is not None:
        raise StreamGazeError(f"its responses are those of the accepted row #{same.num} (@{same.submitter}, "
                              f"{same.path}): the same run is one row on the leaderboard", path)


def open_pull_request(requests: str, data: bytes, sub: dict, *, token: str | None = None,
                      when: datetime | None = None, how: str = "", submitter: str | None = None) -> PushResult:
    """The pull request adding ``data`` (a validated submission ``sub``'s bytes) to the requests dataset, made
    with the token's user (``whoami``) as its author; ``submitter``: the user signed in on the Space, named
    in the description (:func:`.identity.space_description`), whom the sync records as the submitter when the
    token's user is a listed Space account."""
    from huggingface_hub import CommitOperationAdd

    from .identity import space_description

    api = hub_api(token)
    try:
        author = api.whoami()["name"]
    except Exception as exc:  # noqa: BLE001 - any client failure is one line
        raise hub_error(exc, "who is pushing (whoami)") from None
    target = submission_path(submission_benchmark(sub).name, sub["model"]["name"], when)
    description = (space_description(submitter) if submitter else
                   f"Submitted by {author} {how}.".replace("  ", " "))
    try:
        info = api.create_commit(requests, [CommitOperationAdd(target, data)], repo_type="dataset",
                                 create_pr=True, commit_message=f"Submission: {sub['model']['name'][:80]}",
                                 commit_description=description)
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, f"opening the pull request on {requests}") from None
    return PushResult(str(info.pr_url), target, submitter or author)
