"""Results on the model's own page: ``sync --model-card-prs`` opens, for each newly accepted row that names a
Hub model, one pull request on the model's repository adding ``.eval_results/<benchmark>.yaml`` in the Hub's
format (``huggingface_hub.EvalResultEntry``, written with ``eval_result_entries_to_yaml``).

The entry holds the benchmark dataset's id and the task id (the benchmark's lmms-eval group in the row's gaze
mode, e.g. ``streamgaze`` or ``streamgaze_nogaze``), the value (the row's Overall as the leaderboard shows
it: percent with one decimal for a ratio), the dataset revision (the commit it was scored on), the source (the
row in the results dataset's viewer, the submitter) and, as notes, the gaze mode, prompt mode and protocol.
An existing file of that name on the model keeps its entries (the new one is added). The pull request's title
names the row (``(row #N)``): before opening one, the model's pull requests by the sync's account are listed
and a row that already has one gets no second (also after an interrupted sync, or when the option is turned on
later: every accepted row naming a model is considered).
"""

from __future__ import annotations

from collections.abc import Callable

from ... import __version__
from ...registry import get_benchmark
from .results_repo import ResultsState
from .untrusted import row_benchmark

__all__ = ["eval_entry", "eval_results_yaml", "open_model_card_prs", "pr_title"]


def pr_title(bench_title: str, num: int) -> str:
    return f"Add {bench_title} leaderboard result (row #{num})"


def eval_entry(row: dict, results: str, index: int):
    """The ``EvalResultEntry`` of an accepted results row (``index``: its position in its config)."""
    from huggingface_hub import EvalResultEntry, constants

    bench = row_benchmark(row)
    suffix = next((s for s, mode in bench.gaze_variants.items() if mode == row["gaze"]), "")
    col = bench.leaderboard.overall_column()
    value = round(100.0 * row["overall"], 1) if col.is_percent else round(float(row["overall"]), col.digits)
    url = f"{constants.ENDPOINT.rstrip('/')}/datasets/{results}/viewer/{bench.name}/train?row={index}"
    return EvalResultEntry(
        dataset_id=row["dataset_repo"], task_id=f"{bench.name}{suffix}", value=value,
        dataset_revision=row["dataset_commit"] or None, date=row.get("created_at") or None, source_url=url,
        source_name=f"{bench.title} leaderboard (re-scored by streamgaze-toolkit {__version__})",
        source_user=row["submitter"] or None,
        notes=f"gaze={row['gaze']}; prompt_mode={row['prompt_mode']}; protocol={row['protocol']}")


def eval_results_yaml(entries: list) -> str:
    import yaml
    from huggingface_hub import eval_result_entries_to_yaml

    return yaml.safe_dump(eval_result_entries_to_yaml(entries), sort_keys=False, allow_unicode=True)


def _existing(api, model_id: str, path: str) -> list:
    """The entries the model's file already holds (none when it has no such file or it does not parse)."""
    import yaml
    from huggingface_hub import hf_hub_download, parse_eval_result_entries
    from huggingface_hub.errors import EntryNotFoundError

    try:
        local = hf_hub_download(model_id, path, token=api.token)
        return parse_eval_result_entries(yaml.safe_load(open(local, encoding="utf-8").read()) or [])
    except EntryNotFoundError:
        return []
    except Exception:  # noqa: BLE001 - a file we cannot read is replaced by ours plus nothing
        return []


def open_model_card_prs(api, results: str, state: ResultsState, log: Callable[[str], None] = lambda _m: None
                        ) -> list[str]:
    """One pull request per accepted row that names a Hub model and has none yet; the new ones' addresses."""
    from huggingface_hub import CommitOperationAdd

    me = api.whoami()["name"]
    out = []
    for bench_name, rows in state.rows.items():
        bench = get_benchmark(bench_name)
        ordered = sorted(rows, key=lambda r: (r["pr_number"], r["submission_path"]))
        for index, row in enumerate(ordered):
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
                entries = [e for e in _existing(api, model, path) if e.source_url != eval_entry(row, results, index).source_url]
                text = eval_results_yaml([*entries, eval_entry(row, results, index)])
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
