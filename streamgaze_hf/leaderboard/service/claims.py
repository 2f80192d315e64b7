"""What the accepted rows already claim: who owns which model name, each submitter's runs and the pull requests
counted against their quota, and the raw responses' digests of accepted rows.

Two readers decide over it with the same checks (:data:`~.acceptance.SCORED`): the sync, over its snapshot
(:class:`~.sync_state.SyncState` is a :class:`Claims`), and the Space's Submit tab, over the rows it shows
(:meth:`Claims.of_rows`), so an upload the sync would refuse for its name or as a repeat is refused before its pull
request is opened.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime

from .names import name_key
from .quota import parse_time

__all__ = ["Claims"]


@dataclass(kw_only=True)
class Claims:
    """The claims of accepted rows (see the module docstring)."""

    owners: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name key -> (submitter, name, PR)
    runs: dict[tuple[str, str], int] = field(default_factory=dict)  # (submitter, name key) -> runs so far
    counted: dict[str, list[datetime]] = field(default_factory=dict)  # submitter -> when theirs were opened
    # raw responses' digest -> (pull request, model name, submitter) of the row that has them
    fingerprints: dict[str, tuple[int, str, str]] = field(default_factory=dict)

    @classmethod
    def of_rows(cls, rows: Iterable[Mapping]) -> Claims:
        """The claims of accepted results rows, in the order they were accepted (their pull requests')."""
        claims = cls()
        for r in sorted(rows, key=lambda r: r["pr_number"]):
            claims.own(r)
        return claims

    def own(self, row: Mapping) -> None:
        """Record an accepted row (or a queued request): its name's owner, the run, the quota, its responses."""
        key = row.get("name_key") or name_key(row["model_name"])
        self.owners.setdefault(key, (row["submitter"], row["model_name"], row["pr_number"]))
        self.runs[(row["submitter"], key)] = self.runs.get((row["submitter"], key), 0) + 1
        when = parse_time(row.get("created_at"))
        if when is not None:
            self.counted.setdefault(row["submitter"], []).append(when)
        if row.get("responses_sha256"):
            self.fingerprints.setdefault(row["responses_sha256"], (row["pr_number"], row["model_name"],
                                                                   row["submitter"]))

    def name_taken(self, name: str, key: str, submitter: str) -> str:
        """The refusal of a model name that reads as another submitter's ("" when it is free)."""
        owner = self.owners.get(key)
        if owner is None or owner[0] == submitter:
            return ""
        return (f"the model name {name!r} reads as {owner[1]!r} of @{owner[0]} (pull request #{owner[2]}): choose a "
                "name of your own")

    def repeat(self, digest: str, num: int) -> str:
        """The refusal of raw responses an accepted row of another pull request has ("" when none has)."""
        same = self.fingerprints.get(digest)
        if same is None or same[0] == num:
            return ""
        what = f"{same[1]!r} of @{same[2]}" if same[1] else f"of @{same[2]}"
        return f"its responses are those of the accepted row #{same[0]} ({what}): the same run is one row"
