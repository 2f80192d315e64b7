"""What makes a pull request acceptable: ordered lists of small checks over one snapshot of the sync's state
(:class:`~.sync_state.SyncState`). Each check returns the one-line reason of a refusal, or "" when it passes;
the first reason closes the pull request.

* :data:`SHAPE`: what the pull request is (the Hub's diff read once): exactly one new file, at a submission's or
  an evaluation request's path;
* :data:`FRESH`: a pull request not accepted before (an interrupted sync's is finished instead): its file is
  not on ``main`` yet, and its submitter is within the quota (maintainers are not counted);
* then the file is read in the bounded child (:mod:`.verdict`, :mod:`.eval_requests`), and
  :data:`SCORED` (a submission's results row) or :data:`REQUESTED` (an evaluation request) check it against the
  other rows: the model name is not another submitter's, and the same run (or request) is not there already;
* last the Hub model it names (:mod:`.model_checks`), in the sync, which reads the Hub.

The Space's Submit tab runs :data:`SCORED` too, before it opens a pull request (:func:`upload_refusal`), over the
claims of the rows it shows (:class:`~.claims.Claims`), and the quota's rule (:func:`~.quota.over_quota`) before it
re-scores: an upload the sync would refuse for these reasons is refused there first, in the same words.

The submitter (:mod:`.identity`) is read before all of these, from the pull request's author and description.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .claims import Claims
from .quota import over_quota
from .sync_state import SyncState
from .untrusted import parse_repo_path

__all__ = ["PullRequest", "SHAPE", "FRESH", "SCORED", "REQUESTED", "first_refusal", "upload_refusal"]


@dataclass
class PullRequest:
    """One open pull request as the checks see it: its number, submitter, the files its diff changes (path,
    ``new``/``modified``/``deleted``), the sync's quota, and what the file is once a check has read its path."""

    num: int
    submitter: str
    changes: list[tuple[str, str]]
    quota: int
    kind: str = ""  # "submissions" or "requests"
    done: str = ""  # the accept commit of an interrupted sync (its name and repeat are its own already)

    @property
    def path(self) -> str:
        return self.changes[0][0] if len(self.changes) == 1 else ""


Check = Callable[[PullRequest, SyncState], str]


def one_new_file(pr: PullRequest, state: SyncState) -> str:
    if len(pr.changes) == 1 and pr.changes[0][1] == "new":
        return ""
    shown = ", ".join(p for p, _ in pr.changes[:3]) + (" ..." if len(pr.changes) > 3 else "")
    what = f"{len(pr.changes)} files ({shown})" if pr.changes else "no file"
    return f"a submission pull request adds exactly one new file; this one changes {what}"


def a_known_path(pr: PullRequest, state: SyncState) -> str:
    parts = parse_repo_path(pr.path, ("submissions", "requests"))
    if parts is None:
        return (f"{pr.path} is not a submission path (submissions/<benchmark>/<model-slug>/<YYYYMMDDTHHMMSSZ>.json) "
                "or an evaluation request's (requests/...)")
    pr.kind = parts.kind
    return ""


def not_on_main(pr: PullRequest, state: SyncState) -> str:
    if pr.path in state.read.main_files:
        return f"{pr.path} already exists: a pull request cannot change an existing submission"
    return ""


def within_quota(pr: PullRequest, state: SyncState) -> str:
    if pr.submitter in state.rows.config.maintainers:
        return ""
    return over_quota(pr.submitter, state.counted.get(pr.submitter, []), state.now, pr.quota) or ""


def name_free(pr: PullRequest, state: Claims, name: str, key: str) -> str:
    return "" if pr.done else state.name_taken(name, key, pr.submitter)


def not_a_repeat(pr: PullRequest, state: Claims, row: dict) -> str:
    return "" if pr.done else state.repeat(row["responses_sha256"], pr.num)


def not_asked_before(pr: PullRequest, state: SyncState, digest: str) -> str:
    earlier = state.asked.get(digest, pr.num)
    if earlier == pr.num or pr.done:
        return ""
    return (f"the same evaluation (model, commit, lmms-eval model and arguments, settings, dataset) was requested "
            f"in #{earlier}")


#: what the pull request is, in order
SHAPE: tuple[Check, ...] = (one_new_file, a_known_path)
#: a pull request not accepted before, in order
FRESH: tuple[Check, ...] = (not_on_main, within_quota)
#: a submission's results row (from the bounded child), in order
SCORED = (lambda pr, st, v: name_free(pr, st, v.row["model_name"], v.name_key),
          lambda pr, st, v: not_a_repeat(pr, st, v.row))
#: an evaluation request (from the bounded child: ``{"request", "name_key", "digest"}``), in order
REQUESTED = (lambda pr, st, v: name_free(pr, st, v["request"]["model"]["name"], v["name_key"]),
             lambda pr, st, v: not_asked_before(pr, st, v["digest"]))


def first_refusal(checks, pr: PullRequest, state: SyncState, *read) -> str:
    """The reason of the first of ``checks`` that refuses (``read``: what the bounded child gave back), else ""."""
    for check in checks:
        reason = check(pr, state, *read)
        if reason:
            return reason
    return ""


def upload_refusal(claims: Claims, submitter: str, scored) -> str:
    """The reason the sync would refuse an upload ``submitter`` is about to send, after the bounded child re-scored
    it (``scored``: its :class:`~.verdict.Verdict`), for its model name or as a repeat of an accepted run ("" when
    neither): :data:`SCORED` over ``claims``, as for a pull request not opened yet."""
    return first_refusal(SCORED, PullRequest(num=0, submitter=submitter, changes=[], quota=0), claims, scored)
