"""The Hugging Face Hub: publish a built dataset."""

from __future__ import annotations

import argparse

from .base import Handler, add_dataset, command, dataset_reference


@command("publish", "upload a built dataset to the Hugging Face Hub as one commit tagged v<version> "
         "(validated first; the same version again is a no-op, other content under it is refused)")
def _publish(p: argparse.ArgumentParser) -> Handler:
    add_dataset(p, "dataset root (a local build of any registered benchmark)")
    p.add_argument("--repo", required=True, help="dataset repository ORG/NAME (created if missing)")
    p.add_argument("--private", action="store_true", help="create the repository private")
    p.add_argument("--create-pr", action="store_true",
                   help="open a pull request instead of committing to main (tag it after merging)")
    p.add_argument("--message", default=None, help="commit message (default: '<Benchmark> v<version>')")

    def run(a: argparse.Namespace) -> int:
        from ..dataset import publish_dataset

        print(publish_dataset(dataset_reference(a), a.repo, private=a.private, create_pr=a.create_pr, message=a.message).format())
        return 0

    return run
