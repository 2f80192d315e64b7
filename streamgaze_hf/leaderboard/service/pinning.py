"""Only the maintainer's answer keys: the dataset commits a submission may be re-scored against.

Each ``--dataset`` of the sync (and of the app) is resolved **once**, when the sync starts
(:func:`listed_datasets`):

* ``hf://datasets/ORG/NAME@<40-hex commit>``: that commit;
* ``hf://datasets/ORG/NAME@<tag>``: the commit the tag points to now (``list_repo_refs``);
* a branch (``@main``, or no ``@``) or a pull-request ref (``@refs/pr/N``) is refused: it moves, and anyone may
  open a pull request on a dataset repository with a rewritten answer key;
* a local directory: itself (tests, local use; it has no commit).

A submission is then re-scored only against one of those (:func:`scoring_target`): the commit it pins when
that commit is listed; a file made on a local copy (it pins nothing) against the listed dataset of its
benchmark whose manifest it names. Anything else (another commit of the same repository, a branch name, a
commit on a pull request of the dataset repository, another repository) is refused with the reason. This
module reads no submission itself: :func:`scoring_target` takes the ``dataset`` block the bounded child has
parsed.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from ...util.errors import StreamGazeError

__all__ = ["ListedDataset", "listed_datasets", "scoring_target", "local_listed"]

_COMMIT = re.compile(r"^[0-9a-f]{40}$")


@dataclass(frozen=True)
class ListedDataset:
    """A dataset the maintainer listed, resolved: the reference as given, its benchmark's name (the record crosses
    into the bounded child process, so it holds only text), the repository and revision (None and "" for a local
    directory), the commit it was resolved to, its manifest's sha256, the root validation reads
    (``hf://datasets/REPO@COMMIT``, or the local directory), and the dataset's version."""

    ref: str
    benchmark: str
    repo: str | None
    revision: str
    commit: str
    manifest_sha256: str
    root: str
    version: str = ""

    @property
    def label(self) -> str:
        if self.repo is None:
            return self.ref
        shown = self.revision if self.revision == self.commit else f"{self.revision} = {self.commit[:12]}"
        return f"{self.repo}@{shown}"


def _resolve(ref: str, api) -> tuple[str | None, str, str, str]:
    """(repo, revision, commit, root) of one ``--dataset`` (network: the repository's refs)."""
    from ...hub.reference import is_reference, parse_reference

    if not is_reference(ref):
        return None, "", "", ref
    hub = parse_reference(ref)
    if _COMMIT.match(hub.revision):
        return hub.repo_id, hub.revision, hub.revision, f"hf://datasets/{hub.repo_id}@{hub.revision}"
    try:
        refs = api.list_repo_refs(hub.repo_id, repo_type="dataset")
    except Exception as exc:  # noqa: BLE001 - any client failure is one line
        from .hub_push import hub_error

        raise hub_error(exc, f"resolving --dataset {ref}") from None
    tags = {t.name: t.target_commit for t in refs.tags}
    if hub.revision in tags:
        commit = tags[hub.revision]
        return hub.repo_id, hub.revision, commit, f"hf://datasets/{hub.repo_id}@{commit}"
    kind = "a branch" if hub.revision in {b.name for b in refs.branches} else "not a tag or a commit"
    raise StreamGazeError(f"--dataset {ref}: {hub.revision!r} is {kind} of {hub.repo_id}; a leaderboard scores "
                          "against what the maintainer pinned: give a tag (resolved once, when the sync starts) or a "
                          "40-hex commit")


def listed_datasets(refs: Sequence[str], api=None) -> dict[str, list[ListedDataset]]:
    """Benchmark -> the datasets its submissions may be scored against, each resolved once (see the module
    docstring). ``api``: an ``HfApi`` (default: the environment's token)."""
    from ...dataset import manifest_digest
    from ...submission import scored_dataset

    if api is None:
        from .hub_push import hub_api

        api = hub_api()
    out: dict[str, list[ListedDataset]] = {}
    seen: set[tuple[str | None, str]] = set()
    for ref in refs:
        repo, revision, commit, root = _resolve(ref, api)
        data = scored_dataset(root)
        path, bench = data.path, data.benchmark.name
        if (repo, commit or str(path)) in seen:
            continue
        seen.add((repo, commit or str(path)))
        out.setdefault(bench, []).append(ListedDataset(ref, bench, repo, revision, commit, manifest_digest(path),
                                                       root if repo else str(path), data.version))
    return out


def local_listed(refs: Sequence[str]) -> dict[str, list[ListedDataset]]:
    """:func:`listed_datasets` for local directories only (no network)."""
    return listed_datasets(refs, api=object())


def scoring_target(bench: str, dataset: Mapping, listed: Mapping[str, Sequence[ListedDataset]]) -> ListedDataset:
    """The listed dataset a submission of ``bench`` with this ``dataset`` block (``repo``, ``commit``,
    ``manifest_sha256``; structurally checked) is re-scored against; StreamGazeError with the reason."""
    mine = list(listed.get(bench, ()))
    if not mine:
        raise StreamGazeError(f"this leaderboard scores no {bench} submissions (no {bench} dataset)")
    local = [d for d in mine if d.repo is None]
    repo, commit = dataset.get("repo") or "", dataset.get("commit") or ""
    if (repo or commit) and not local:
        if not (repo and commit):
            raise StreamGazeError(f"the dataset block names {'a repository' if repo else 'a commit'} without "
                                  f"{'a commit' if repo else 'a repository'}: it pins no dataset revision")
        for d in mine:
            if d.repo == repo and d.commit == commit:
                return d
        scored = "; ".join(d.label for d in mine)
        if not _COMMIT.match(commit):
            raise StreamGazeError(f"pins the dataset revision {commit!r} of {repo}, which is not a commit: this "
                                  f"leaderboard scores only the commits its maintainer listed ({scored})")
        if repo not in {d.repo for d in mine}:
            raise StreamGazeError(f"made on the dataset {repo}, not on this leaderboard's ({scored})")
        raise StreamGazeError(f"made on commit {commit[:12]} of {repo}, which this leaderboard does not score: it "
                              f"scores only the commits its maintainer listed ({scored})")
    if local:
        return local[0]
    digest = dataset.get("manifest_sha256")
    for d in mine:
        if d.manifest_sha256 == digest:
            return d
    raise StreamGazeError("made on a local dataset whose manifest matches none of the datasets this leaderboard "
                          f"scores ({'; '.join(d.label for d in mine)})")
