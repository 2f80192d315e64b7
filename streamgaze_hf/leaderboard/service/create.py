"""``streamgaze leaderboard init --requests ORG/REQUESTS --results ORG/RESULTS``: the maintainer's first step.

:func:`init_leaderboard` checks everything before it creates anything: the token can write (``whoami``: not a
read-only token), and each repository's namespace is the token's user or an organisation where the user may
create repositories. Then it creates what is missing, public:

* the **requests** dataset, with a card (:func:`requests_card`) saying what it receives (one pull request per
  submission adding ``submissions/<benchmark>/<model-slug>/<UTC timestamp>.json``), how to submit, and the
  permissions it needs: public, pull requests open to everyone (the Hub's default), accepted only by the sync;
* the **results** dataset, with the files a sync of no submission writes (its card, each benchmark's paper rows
  as the ``<benchmark>_paper`` config, the static site): ``load_dataset(ORG/RESULTS, "streamgaze_paper")``
  works at once.

A repository that exists is left as it is. If a creation fails, the repositories this command made are deleted
again (nothing half made). The report prints the next commands (participants, the sync, the Space) and the text
asking the Hub to allow-list the benchmark dataset (``dataset/eval_yaml.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...dataset import allow_list_request
from ...registry import default_benchmark
from ...util.errors import StreamGazeError
from .hub_push import hub_api, hub_error
from .repos import repo_exists

__all__ = ["init_leaderboard", "InitReport", "requests_card"]

#: the roles in an organisation that may create repositories in it
_WRITE_ROLES = {"admin", "write", "contributor"}


def requests_card(requests: str, results: str) -> str:
    """The card of the requests dataset: what it receives, how, and the permissions it needs."""
    return f"""---
license: cc-by-4.0
pretty_name: Gaze benchmarks leaderboard requests
tags:
- leaderboard
- submissions
---

# Leaderboard requests

Submissions to the gaze benchmarks leaderboard arrive here as pull requests. Each pull request adds exactly
one file, `submissions/<benchmark>/<model-slug>/<UTC timestamp>.json`: a submission made by
`streamgaze submit` from an `lmms-eval --log_samples` run, holding every raw response of the model.

## Submit

```bash
# streamgaze-toolkit is not on a package index: clone its repository and `make setup` (or install the wheel
# the leaderboard's Space carries: pip install "./streamgaze_toolkit-VERSION-py3-none-any.whl[eval]")
streamgaze submit RUN_DIR --dataset hf://datasets/ORG/NAME@vX.Y.Z --model-name "My model" --out mine.json \\
    --push {requests}
# or a file made earlier:
streamgaze push-submission mine.json --requests {requests}
```

Your token (`HF_TOKEN` or `hf auth login`) opens the pull request; the Hub records you as its author.

## What happens to a pull request

The maintainer's `streamgaze leaderboard sync --requests {requests} --results {results}` re-scores the file
from its raw responses against the dataset revision it pins and comments the re-scored table (or the reason it
is refused). An accepted file is committed to `main` by the sync itself (the bytes it re-scored) and the pull
request is closed, never merged. A pull request that changes or deletes anything, or adds a second file, is
closed. Accepted rows appear in [{results}](https://huggingface.co/datasets/{results}).

Evaluation requests (`streamgaze request-eval`: the leaderboard runs the model itself) arrive the same way, at
`requests/<benchmark>/<model-slug>/<UTC timestamp>.json`; `queue.json` holds their status (PENDING, RUNNING,
FINISHED, FAILED) and `evaluations/` the responses of the leaderboard's own runs.

## Permissions

This repository is public, and pull requests are open to everyone (the Hub's default: keep the Community tab's
pull requests enabled). Only the maintainer's sync, with a write token, writes `main`; nobody else pushes to it.

Written by `streamgaze leaderboard init`.
"""


@dataclass
class InitReport:
    user: str
    requests: str
    results: str
    created: list[str] = field(default_factory=list)
    existing: list[str] = field(default_factory=list)

    def format(self) -> str:
        lines = [f"{repo}: created ({role}, public, with its card)" for repo, role in
                 ((self.requests, "requests"), (self.results, "results")) if repo in self.created]
        lines += [f"{repo}: exists, left as it is" for repo in (self.requests, self.results) if repo in self.existing]
        lines += ["", "Next:",
                  f"  participants:  streamgaze submit RUN --dataset hf://datasets/ORG/NAME@vX.Y.Z --model-name NAME "
                  f"--out sub.json --push {self.requests}",
                  f"  you (the maintainer, {self.user}):  streamgaze leaderboard sync --requests {self.requests} "
                  f"--results {self.results} --dataset hf://datasets/ORG/NAME@vX.Y.Z",
                  f"  the Space:  streamgaze leaderboard space --out space/ --results {self.results} --requests "
                  f"{self.requests} --dataset hf://datasets/ORG/NAME@vX.Y.Z",
                  f"  the results:  datasets.load_dataset(\"{self.results}\", \"streamgaze_paper\", split=\"train\")",
                  "", "The Hub's benchmark listing (its \"Benchmark\" tag, and the models' results as a leaderboard on the "
                  "dataset's page): `streamgaze publish` writes the dataset's eval.yaml; then ask Hugging Face to "
                  "allow-list the dataset (https://huggingface.co/docs/hub/eval-results), for example:",
                  "  " + allow_list_request(default_benchmark(), "ORG/NAME", self.results)]
        return "\n".join(lines)


def _check_rights(api, repos: list[str]) -> str:
    """The token's user, when it may create every repository of ``repos`` (else one error naming why)."""
    try:
        who = api.whoami()
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "who is creating the leaderboard (whoami)") from None
    user = who.get("name", "")
    role = ((who.get("auth") or {}).get("accessToken") or {}).get("role")
    if role == "read":
        raise StreamGazeError(f"the token of {user} can only read: create a token with write access (a 'write' or "
                              "fine-grained token that may create repositories) and set HF_TOKEN to it")
    orgs = {o.get("name"): o.get("roleInOrg") for o in who.get("orgs") or []}
    for repo in repos:
        if "/" not in repo or repo.count("/") != 1 or not all(repo.split("/")):
            raise StreamGazeError(f"{repo!r} is not a repository name ORG/NAME")
        ns = repo.split("/")[0]
        if ns != user and orgs.get(ns) not in _WRITE_ROLES:
            mine = ", ".join(sorted(n for n, r in orgs.items() if r in _WRITE_ROLES)) or "none"
            raise StreamGazeError(f"{user} cannot create {repo}: {ns} is neither the token's user nor an organisation "
                                  f"where {user} may create repositories (those: {mine})")
    return user


def init_leaderboard(requests: str, results: str, *, token: str | None = None) -> InitReport:
    """Create the requests and results datasets (the module docstring); returns what was done."""
    from huggingface_hub import CommitOperationAdd

    from .results import results_files

    if requests == results:
        raise StreamGazeError(f"--requests and --results are the same repository ({requests}): give two")
    api = hub_api(token)
    report = InitReport(_check_rights(api, [requests, results]), requests, results)
    try:
        plan = {repo: repo_exists(api, repo) for repo in (requests, results)}
    except Exception as exc:  # noqa: BLE001
        raise hub_error(exc, "looking up the repositories") from None
    contents = {requests: {"README.md": requests_card(requests, results).encode("utf-8")}, results: results_files({})}
    try:
        for repo, exists in plan.items():
            if exists:
                report.existing.append(repo)
                continue
            api.create_repo(repo, repo_type="dataset", private=False)
            report.created.append(repo)
            api.create_commit(repo, [CommitOperationAdd(p, d) for p, d in contents[repo].items()], repo_type="dataset",
                              commit_message="leaderboard init")
    except Exception as exc:  # noqa: BLE001
        for repo in report.created:  # nothing half made
            try:
                api.delete_repo(repo, repo_type="dataset")
            except Exception:  # noqa: BLE001
                pass
        if isinstance(exc, StreamGazeError):
            raise
        raise hub_error(exc, f"creating {repo}") from None
    return report
