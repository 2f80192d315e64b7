"""``streamgaze publish ROOT --repo ORG/NAME``: upload a built dataset of any registered benchmark to the
Hugging Face Hub as one commit and tag it ``v<version>``.

Order (nothing is uploaded before every check has passed):

1. the local dataset: its manifest, every file against the manifest's sha256 (no file missing, changed or
   unlisted), the card's YAML (``version`` equal to the manifest's, ``license``, ``task_categories``,
   ``configs`` whose ``data_files`` match files of the dataset, ``dataset_info``);
2. the token: ``whoami`` must name a user whose token can write (role ``write``/``admin``, or a
   fine-grained token with ``repo.write`` on the repository or its namespace) in the repository's namespace;
3. the tag: when ``v<version>`` exists, its commit must hold exactly these files (same ``manifest.json``
   bytes, same file list): then publishing is a no-op; other content is refused (a version is immutable:
   build a new version instead).

Then ``create_repo`` (``exist_ok``), ``upload_folder`` (the whole directory and, at its root, the benchmark's
``eval.yaml`` for the Hub's evaluation results (:mod:`.eval_yaml`; written from the registry, not a file of the
dataset: the manifest does not list it and the "same content" check of step 3 leaves it out); remote files of an
older version that this one no longer has are deleted; large files go through the client's large-file path,
Xet or Git LFS) and ``create_tag`` on the commit it made.

**Interrupted uploads.** ``huggingface_hub`` uploads the large files first and then makes the commit, so an
interrupted publish leaves no partial version visible. Running the same command again resumes: the Hub
answers the pre-upload and LFS batch requests with the objects it already holds (by sha256), and those are
not sent again (with Xet, chunks already stored are deduplicated the same way); a file interrupted in the
middle is sent again whole. If the commit was made but the tag was not, the second run finds no changed file
(an empty commit is skipped) and only creates the tag.
"""

from __future__ import annotations

import fnmatch
import os
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from ..hub.reference import reference_string
from ..util.errors import StreamGazeError
from .eval_yaml import EVAL_YAML, eval_yaml_text

__all__ = ["PublishResult", "publish_dataset", "check_card", "check_token", "usage_lines"]

_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9][A-Za-z0-9_.-]{0,95}$")
_SEMVER = re.compile(r"^\d+\.\d+\.\d+$")
_WRITE_ROLES = {"write", "admin"}


@dataclass
class PublishResult:
    repo_id: str
    version: str
    tag: str
    commit: str
    status: str  # "published", "unchanged" (the tag already holds this content) or "pull-request"
    benchmark: str
    pr_url: str = ""
    lines: list[str] = field(default_factory=list)

    def format(self) -> str:
        head = {"published": f"published {self.repo_id} {self.tag} (commit {self.commit})",
                "unchanged": f"{self.repo_id} {self.tag} already holds this dataset (commit {self.commit}): "
                             "nothing uploaded",
                "pull-request": f"opened a pull request on {self.repo_id} with version {self.version}: "
                                f"{self.pr_url} (no tag yet: merge it, then run `streamgaze publish` again to "
                                f"tag {self.tag})"}[self.status]
        return "\n".join([head, *self.lines])


# ---- local checks ---------------------------------------------------------------------------------

def _card_yaml(path: Path) -> dict:
    import yaml

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise StreamGazeError(f"unreadable dataset card: {exc}", path) from exc
    parts = text.split("---", 2) if text.startswith("---") else []
    if len(parts) < 3:
        raise StreamGazeError("the dataset card has no YAML header (--- ... ---)", path)
    try:
        meta = yaml.safe_load(parts[1]) or {}
    except yaml.YAMLError as exc:
        raise StreamGazeError(f"the dataset card's YAML header does not parse: {exc}", path) from exc
    if not isinstance(meta, dict):
        raise StreamGazeError("the dataset card's YAML header is not a mapping", path)
    return meta


def check_card(root: Path, version: str, files: set[str]) -> dict:
    """The card's metadata, checked for what the Hub and ``load_dataset`` need (StreamGazeError otherwise)."""
    path = root / "README.md"
    if not path.is_file():
        raise StreamGazeError("the dataset has no card (README.md)", root)
    meta = _card_yaml(path)
    problems = []
    if str(meta.get("version", "")) != version:
        problems.append(f"version {meta.get('version')!r} differs from the manifest's {version!r}")
    if not isinstance(meta.get("license"), str) or not meta.get("license"):
        problems.append("no license")
    cats = meta.get("task_categories")
    if not (isinstance(cats, list) and cats and all(isinstance(c, str) for c in cats)):
        problems.append("no task_categories")
    configs = meta.get("configs")
    if not (isinstance(configs, list) and configs):
        problems.append("no configs")
        configs = []
    names = set()
    for cfg in configs:
        name = cfg.get("config_name") if isinstance(cfg, dict) else None
        if not isinstance(name, str):
            problems.append("a configs entry without config_name")
            continue
        names.add(name)
        patterns = []
        for item in cfg.get("data_files") or []:
            p = item.get("path") if isinstance(item, dict) else item
            patterns += p if isinstance(p, list) else [p]
        if not patterns or not all(isinstance(p, str) for p in patterns):
            problems.append(f"config {name}: no data_files")
            continue
        for pattern in patterns:
            if not any(fnmatch.fnmatchcase(f, pattern) for f in files):
                problems.append(f"config {name}: data_files {pattern!r} matches no file of the dataset")
    infos = meta.get("dataset_info")
    infos = infos if isinstance(infos, list) else [infos] if isinstance(infos, dict) else []
    described = {i.get("config_name") for i in infos if isinstance(i, dict)}
    missing = sorted(names - described)
    if missing:
        problems.append(f"no dataset_info for config(s) {', '.join(missing)}")
    if problems:
        raise StreamGazeError("the dataset card is not ready for the Hub: " + "; ".join(problems), path)
    return meta


def _check_local(root: Path) -> tuple[dict, str, str, list[str]]:
    """The manifest, version, benchmark name and the card's config names of the dataset at ``root``, every check of
    step 1 passed."""
    from .load import open_dataset
    from .writer import dataset_files, verify_dataset

    if not root.is_dir():
        raise StreamGazeError("no such dataset directory", root)
    data = open_dataset(root, check=False)  # every byte is checked below
    manifest, version = data.manifest, data.version
    if not _SEMVER.match(version):
        raise StreamGazeError(f"manifest version {version!r} is not a semantic version X.Y.Z", root / "manifest.json")
    problems = verify_dataset(root)
    if problems:
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise StreamGazeError("the dataset does not match its manifest: " + "; ".join(problems[:3]) + more, root)
    card = check_card(root, version, set(dataset_files(root)))
    configs = [c["config_name"] for c in card.get("configs") or [] if isinstance(c, dict)]
    return manifest, version, data.benchmark.name, configs


# ---- the token --------------------------------------------------------------------------------------

def check_token(api, repo_id: str) -> str:
    """The user name of the token, checked to be able to write ``repo_id`` (StreamGazeError otherwise)."""
    from huggingface_hub.errors import HfHubHTTPError, LocalTokenNotFoundError

    try:
        me = api.whoami()
    except LocalTokenNotFoundError:
        raise StreamGazeError("no Hugging Face token: set HF_TOKEN or run `hf auth login` (a token with write "
                              "access)") from None
    except HfHubHTTPError as exc:
        raise StreamGazeError(f"the Hub refused the token (whoami): {exc}") from None
    user = str(me.get("name", ""))
    namespace = repo_id.split("/")[0]
    orgs = {str(o.get("name")): str(o.get("roleInOrg", "")) for o in me.get("orgs", []) if isinstance(o, dict)}
    if namespace != user and namespace not in orgs:
        raise StreamGazeError(f"the token belongs to {user!r}, who is not a member of {namespace!r}: cannot "
                              f"publish to {repo_id}")
    if namespace in orgs and orgs[namespace] == "read":
        raise StreamGazeError(f"{user!r} has only read access in {namespace!r}: cannot publish to {repo_id}")
    token = (me.get("auth") or {}).get("accessToken") or {}
    role = str(token.get("role", ""))
    if role == "fineGrained":
        scoped = (token.get("fineGrained") or {}).get("scoped") or []
        ok = any("repo.write" in (s.get("permissions") or []) and (s.get("entity") or {}).get("name") in
                 (namespace, repo_id) for s in scoped if isinstance(s, dict))
        if not ok:
            raise StreamGazeError(f"the fine-grained token has no repo.write permission for {repo_id} or "
                                  f"{namespace}")
    elif role and role not in _WRITE_ROLES:
        raise StreamGazeError(f"the token is {role!r}-only: publishing needs a token with write access")
    return user


# ---- publishing --------------------------------------------------------------------------------------

def usage_lines(repo_id: str, tag: str, benchmark: str) -> list[str]:
    """The exact ``load_dataset`` and ``streamgaze eval`` lines for a published version."""
    from ..registry import get_benchmark

    bench = get_benchmark(benchmark)
    task = bench.task_ids[0]
    ref = reference_string(repo_id, tag)
    flag = "" if bench.default else f" --benchmark {bench.name}"
    return [f'load_dataset("{repo_id}", "{task}", split="test", revision="{tag}")',
            f"streamgaze eval{flag} --root {ref} -- --model streamgaze_random --tasks {bench.name}",
            f"(pin it: {ref} resolves to the tag's commit; HF_HUB_OFFLINE=1 then works on the filled cache)"]


def _existing_tag(api, repo_id: str, tag: str) -> str | None:
    from huggingface_hub.errors import HfHubHTTPError, RepositoryNotFoundError

    try:
        refs = api.list_repo_refs(repo_id, repo_type="dataset")
    except RepositoryNotFoundError:
        return None
    except (HfHubHTTPError, OSError) as exc:
        raise StreamGazeError(f"cannot read the tags of {repo_id} on the Hub: {_first_line(exc)}") from None
    return next((t.target_commit for t in refs.tags if t.name == tag), None)


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


def _same_content(api, repo_id: str, commit: str, root: Path) -> tuple[bool, str]:
    from ..hub.fetch import hub_download

    remote = Path(hub_download(repo_id, "manifest.json", commit)).read_bytes()
    if remote != (root / "manifest.json").read_bytes():
        return False, "its manifest.json differs"
    from huggingface_hub.errors import HfHubHTTPError

    from .writer import dataset_files

    try:
        remote_files = set(api.list_repo_files(repo_id, repo_type="dataset", revision=commit)) - {".gitattributes"}
    except (HfHubHTTPError, OSError) as exc:
        raise StreamGazeError(f"cannot list the files of {repo_id} at {commit[:12]} on the Hub: "
                              f"{_first_line(exc)}") from None
    local = set(dataset_files(root)) | {"manifest.json"}
    remote_files.discard(EVAL_YAML)  # the toolkit's declaration of the benchmark (eval_yaml.py), not the dataset's
    if remote_files != local:
        diff = sorted(remote_files ^ local)
        return False, f"its file list differs ({', '.join(diff[:3])}{' ...' if len(diff) > 3 else ''})"
    return True, ""


def publish_dataset(root: str | os.PathLike[str], repo_id: str, *, private: bool = False, create_pr: bool = False,
            message: str | None = None) -> PublishResult:
    """Validate ``root`` and the token, then upload and tag (see the module docstring).

    Args:
        root: a local dataset directory (not a Hub reference).
        repo_id: the dataset repository ``ORG/NAME`` (created when it does not exist).
        private: create the repository as private (an existing one keeps its visibility).
        create_pr: open a pull request with the version instead of committing it (no tag until it is merged
            and ``publish`` runs again).
        message: the commit message (None: ``"<benchmark title> v<version>"``).

    Returns:
        The :class:`PublishResult`: the commit, and ``status`` ``"published"``, ``"unchanged"`` (the tag
        already holds exactly this dataset: nothing uploaded) or ``"pull-request"``; ``lines`` say how to
        load and evaluate the published version.

    Raises:
        StreamGazeError: before any upload, for a Hub reference or a repository id that is not ``ORG/NAME``,
            a dataset that does not match its manifest, a version that is not ``X.Y.Z``, a card not ready for
            the Hub, a token that cannot write the repository, or a tag ``v<version>`` that holds other
            content, or when the Hub cannot list the repository's tags or files; after it started, for an
            interrupted upload (run the same command again to resume).
    """
    from ..hub.reference import is_reference

    if is_reference(str(root)):
        raise StreamGazeError("publish takes a local dataset directory, not a Hub reference", root)
    if not _REPO.match(repo_id) or ".." in repo_id:
        raise StreamGazeError(f"--repo {repo_id!r} is not a repository id ORG/NAME")
    root = Path(root).expanduser().resolve()
    manifest, version, benchmark, configs = _check_local(root)
    tag = f"v{version}"
    from huggingface_hub import HfApi

    api = HfApi()
    check_token(api, repo_id)
    lines = usage_lines(repo_id, tag, benchmark)
    existing = _existing_tag(api, repo_id, tag)
    if existing is not None:
        same, why = _same_content(api, repo_id, existing, root)
        if not same:
            raise StreamGazeError(f"{repo_id} already has {tag} (commit {existing[:12]}) with other content: "
                                  f"{why}. A published version never changes: build this dataset as a new "
                                  "version (--version) and publish that", root)
        return PublishResult(repo_id, version, tag, existing, "unchanged", benchmark, lines=lines)
    from ..registry import get_benchmark

    bench = get_benchmark(benchmark)
    title = bench.title
    from huggingface_hub.errors import HfHubHTTPError

    try:
        api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
        with _staged(root, {EVAL_YAML: eval_yaml_text(bench, configs)}) as folder:
            info = api.upload_folder(repo_id=repo_id, repo_type="dataset", folder_path=str(folder),
                                     commit_message=message or f"{title} {tag}",
                                     commit_description=f"{title} dataset version {version} (manifest sha256 "
                                                        f"{_manifest_sha(root)})",
                                     delete_patterns=["*", "**/*"], create_pr=create_pr)
        if create_pr:
            return PublishResult(repo_id, version, tag, info.oid, "pull-request", benchmark,
                                 str(info.pr_url or ""), lines)
        api.create_tag(repo_id, tag=tag, tag_message=f"{title} {version}", revision=info.oid, repo_type="dataset")
    except (HfHubHTTPError, OSError, ValueError) as exc:
        raise StreamGazeError(f"publishing {repo_id} {tag} was interrupted: {_first_line(exc)}. Run the same command again: "
                              "files the Hub already holds are not sent again", root) from exc
    return PublishResult(repo_id, version, tag, info.oid, "published", benchmark, lines=lines)


@contextmanager
def _staged(root: Path, extra: dict[str, str]):
    """A folder holding every file of ``root`` (each a link to it, nothing copied) and the ``extra`` files the
    toolkit adds on the Hub (``eval.yaml``): what one ``upload_folder`` commit sends."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="streamgaze-publish-") as tmp:
        stage = Path(tmp)
        for path in sorted(root.rglob("*")):
            if path.is_file():
                link = stage / path.relative_to(root)
                link.parent.mkdir(parents=True, exist_ok=True)
                link.symlink_to(path)
        for name, text in extra.items():
            (stage / name).unlink(missing_ok=True)
            (stage / name).write_text(text, encoding="utf-8")
        yield stage


def _manifest_sha(root: Path) -> str:
    from .files import sha256_file

    return sha256_file(root / "manifest.json")
