"""Results on the model's own page: ``sync --model-card-prs`` opens, for each newly accepted row that names a
Hub model, one pull request on the model's repository adding ``.eval_results/<benchmark>.yaml`` in the Hub's
format (``huggingface_hub.EvalResultEntry``, written with ``eval_result_entries_to_yaml``).

The entry holds the benchmark dataset's id and the task id (the benchmark's lmms-eval group in the row's gaze
mode, e.g. ``streamgaze`` or ``streamgaze_nogaze``: one of the task ids of the ``eval.yaml`` that ``streamgaze
publish`` writes, ``dataset/eval_yaml.py``), the value (the row's Overall as the leaderboard shows it: percent
with one decimal for a ratio), the dataset revision (the commit it was scored on), the source (the row's
per-sample traces in the results dataset, :mod:`.traces`; the submitter), ``evaluation_framework`` (this
toolkit) and, as notes, the gaze mode, prompt mode and protocol. An existing file of that name on the model
keeps its entries as they are (the new one is added). The pull request's title
names the row (``(row #N)``): before opening one, the model's pull requests by the sync's account are listed
and a row that already has one gets no second (also after an interrupted sync, or when the option is turned on
later: every accepted row naming a model is considered).
"""

from __future__ import annotations

from collections.abc import Callable

from ... import __version__
from ...dataset import EVALUATION_FRAMEWORK
from ...registry import get_benchmark
from .results_repo import ResultsState
from .traces import traces_url
from .untrusted import row_benchmark

__all__ = ["eval_entry", "entry_dict", "eval_results_yaml", "open_model_card_prs", "pr_title"]


def pr_title(bench_title: str, num: int) -> str:
    return f"Add {bench_title} leaderboard result (row #{num})"


def eval_entry(row: dict, results: str):
    """The ``EvalResultEntry`` of an accepted results row: its source is the row's traces."""
    from huggingface_hub import EvalResultEntry

    bench = row_benchmark(row)
    col = bench.leaderboard.overall_column()
    value = round(100.0 * row["overall"], 1) if col.is_percent else round(float(row["overall"]), col.digits)
    return EvalResultEntry(
        dataset_id=row["dataset_repo"], task_id=bench.gaze_group(row["gaze"]), value=value,
        dataset_revision=row["dataset_commit"] or None, date=row.get("created_at") or None,
        source_url=row.get("traces_url") or traces_url(results, bench.name, row["pr_number"]),
        source_name=f"{bench.title} leaderboard traces (re-scored by streamgaze-toolkit {__version__})",
        source_user=row["submitter"] or None,
        notes=f"gaze={row['gaze']}; prompt_mode={row['prompt_mode']}; protocol={row['protocol']}")


def entry_dict(entry) -> dict:
    """One of our entries as the file holds it: the Hub's format plus ``evaluation_framework``."""
    from huggingface_hub import eval_result_entries_to_yaml

    return {**eval_result_entries_to_yaml([entry])[0], "evaluation_framework": EVALUATION_FRAMEWORK}


def eval_results_yaml(entries: list[dict]) -> str:
    import yaml

    return yaml.safe_dump(entries, sort_keys=False, allow_unicode=True)


def _existing(api, model_id: str, path: str) -> list[dict]:
    """The entries the model's file already holds, as they are (none when it has no such file or it is not a
    list of entries)."""
    import yaml
    from huggingface_hub import hf_hub_download
    from huggingface_hub.errors import EntryNotFoundError

    try:
        local = hf_hub_download(model_id, path, token=api.token)
        data = yaml.safe_load(open(local, encoding="utf-8").read()) or []
    except EntryNotFoundError:
        return []
    except Exception:  # noqa: BLE001 - a file we cannot read is replaced by ours plus nothing
        return []
    return [e for e in data if isinstance(e, dict)] if isinstance(data, list) else []


def open_model_card_prs(api, results: str, state: ResultsState, log: Callable[[str], None] = lambda _m: None
                        ) -> list[str]:
    """One pull request per accepted row that names a Hub model and has none yet; the new ones' addresses."""
    from huggingface_hub import CommitOperationAdd

    me = api.whoami()["name"]
    out = []
    for bench_name, rows in state.rows.items():
        bench = get_benchmark(bench_name)
        ordered = sorted(rows, key=lambda r: (r["pr_number"], r["submission_path"]))
        for row in ordered:
            if not row.get("model_id"):
                continue
            title = pr_title(bench.title, row["pr_number"])
            model = row["model_id"]
            try:
                mine = [d for d in api.get_repo_discussions(model, author=me, discussion_type="pull_request")
                        if d.title == title and d.author == me]
                if mine:
                    log(f"#{row['pr_number']}: {model} already has its pull request #{mine[0].num}")
                    continue
                path = f".eval_results/{bench.name}.yaml"
                ours = entry_dict(eval_entry(row, results))
                entries = [e for e in _existing(api, model, path)
                           if not isinstance(e.get("source"), dict) or e["source"].get("url") != ours["source"]["url"]]
                text = eval_results_yaml([*entries, ours])
                info = api.create_commit(model, [CommitOperationAdd(path, text.encode("utf-8"))], create_pr=True,
                                         commit_message=title,
                                         commit_description=(f"The {bench.title} leaderboard re-scored this model's "
                                                             f"submission (pull request #{row['pr_number']} of the "
                                                             f"leaderboard, by @{row['submitter']}); this adds the "
                                                             "result to the model's page (Hub eval results)."))
            except Exception as exc:  # noqa: BLE001 - a model-card pull request never fails the sync
                log(f"#{row['pr_number']}: no model card pull request on {model}: {str(exc).splitlines()[0][:200]}")
                continue
            log(f"#{row['pr_number']}: opened {info.pr_url}")
            out.append(str(info.pr_url))
    return out
