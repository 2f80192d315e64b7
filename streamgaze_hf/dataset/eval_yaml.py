"""The Hub's benchmark declaration of a published dataset: ``eval.yaml`` at the dataset's root (the Hub's
decentralised evaluation results, ``docs/hub/eval-results.md`` of huggingface/hub-docs).

Built from the benchmark's declaration (the registry) alone: ``name`` (the benchmark's title), ``description``
(its title and paper), ``evaluation_framework`` (:data:`EVALUATION_FRAMEWORK`, this toolkit) and ``tasks``: one
per gaze mode the benchmark declares, each the lmms-eval group over its task table in that mode
(``Benchmark.gaze_group``: ``streamgaze``, ``streamgaze_nogaze``, ...), the ids a leaderboard row's model
``.eval_results`` entry names (``leaderboard/service/eval_results.py``). A task's ``config`` is the first task
config the dataset's card declares and its ``split`` is ``test`` (every task config has that one split; a task
id's score is the benchmark's overall over all of its task configs).

``streamgaze publish`` uploads the file with the dataset (:mod:`.publish`); ``leaderboard init`` prints the
allow-list request (:func:`allow_list_request`): the Hub shows a "Benchmark" tag and a leaderboard of models'
entries only for allow-listed datasets.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..registry import Benchmark

__all__ = ["EVALUATION_FRAMEWORK", "EVAL_YAML", "eval_task_ids", "eval_yaml", "eval_yaml_text", "allow_list_request"]

#: the ``evaluation_framework`` this toolkit's results name (``eval.yaml`` and ``.eval_results`` entries)
EVALUATION_FRAMEWORK = "streamgaze-toolkit"
#: where the file lies in a published dataset
EVAL_YAML = "eval.yaml"
_SPLIT = "test"


def eval_task_ids(bench: Benchmark) -> list[str]:
    """The task ids of ``bench``'s ``eval.yaml``: one per declared gaze mode, in declaration order."""
    return list(dict.fromkeys(bench.gaze_group(mode) for mode in bench.gaze_variants.values()))


def eval_yaml(bench: Benchmark, configs: Sequence[str] = ()) -> dict:
    """``eval.yaml`` of a dataset of ``bench`` whose card declares ``configs`` (the first of the benchmark's task
    configs among them is each task's config; none given: the benchmark's first task)."""
    config = next((t for t in bench.task_ids if t in configs), bench.task_ids[0])
    paper = bench.paper if bench.paper.startswith(bench.title) else f"{bench.title}: {bench.paper}"
    return {"name": bench.title, "description": f"{paper}. Scores are the benchmark's overall over its tasks "
                                                f"({', '.join(bench.task_ids)}), one task id per gaze mode.",
            "evaluation_framework": EVALUATION_FRAMEWORK,
            "tasks": [{"id": task_id, "config": config, "split": _SPLIT} for task_id in eval_task_ids(bench)]}


def eval_yaml_text(bench: Benchmark, configs: Sequence[str] = ()) -> str:
    """:func:`eval_yaml` as the file's text (deterministic)."""
    import yaml

    return yaml.safe_dump(eval_yaml(bench, configs), sort_keys=False, allow_unicode=True, width=1000)


def allow_list_request(bench: Benchmark, dataset: str, results: str) -> str:
    """The text asking the Hub to allow-list ``dataset`` (ORG/NAME, published by ``streamgaze publish``) as a
    benchmark whose models' results (with their traces in ``results``) show on its page."""
    tasks = ", ".join(eval_task_ids(bench))
    return (f"Please allow-list the dataset {dataset} as a Hub benchmark ({bench.title}). Its eval.yaml (written "
            f"by `streamgaze publish`) declares evaluation_framework {EVALUATION_FRAMEWORK} and the tasks {tasks}. "
            f"Model results are opened as .eval_results pull requests by `streamgaze leaderboard sync "
            f"--model-card-prs`; each links its per-sample traces in the dataset {results}.")
