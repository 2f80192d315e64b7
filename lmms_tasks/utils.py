"""The one lmms-eval glue module: every generated task YAML names its functions here
(``!function lmms_tasks.utils.<fn>``); each is a thin call into the evaluation module of the document's
benchmark (``streamgaze_hf.registry``).

**Which data a task reads.** A task YAML says it the way lmms-eval's own video tasks do:
``dataset_path`` (the benchmark's dataset: its default root, ``streamgaze``, ``egogazevqa``, ...; a
local directory or an ``hf://datasets/ORG/NAME@REV`` reference in a YAML of your own that ``include:``s
ours) and ``dataset_name: <config>`` (the task's config in the dataset card). The default root stands for
"the dataset root chosen at run time": ``streamgaze eval --root``, else ``$STREAMGAZE_ROOT`` (the
benchmark's ``root_env``), else ``./streamgaze``, exactly as every other command resolves it
(``streamgaze_hf.dataset.load.resolve_root``).

**How it is read.** lmms-eval 0.7.3 loads ``dataset_path``/``dataset_name`` with
``datasets.load_dataset(path, name, cache_dir=<HF datasets cache>)``, which converts the parquet file
into Arrow files in the user's datasets cache (``~/.cache/huggingface/datasets`` by default), cannot
resolve a Hub reference offline from a snapshot, and has no hook for a custom reader. So when lmms-eval
asks this module for a ``process_docs`` function (while it reads our YAMLs, before it loads any data) it wraps
``ConfigurableTask.download`` for *our* tasks only (those whose ``process_docs`` is ours): the config is
read through the toolkit's one reader (``load_task``: the parquet file, checked against the manifest,
fetched first from a Hub snapshot), nothing is written to any cache, and the task's ``dataset_path``
becomes the resolved root (so the results file records which dataset was evaluated). Every other task
loads as lmms-eval does.

**process_docs only derives documents.** ``process_docs<suffix>`` (``<suffix>`` is the task name's
variant suffix: ``_salience``, ``_cot_text``, ``_backward_ext_gazetext``; empty for the plain task)
turns the config's rows into the evaluation documents of that variant (gaze mode, reasoning mode,
slice), through the benchmark's ``load_docs`` (which reads nothing else of the config). The dataset it is given names its benchmark, config and
root (``Dataset.info``: ``dataset_name``, ``config_name``, ``description``).

**Run settings.** The edge where lmms-eval meets the toolkit: ``process_docs`` builds the run's
``RunSettings`` from the environment (``streamgaze_hf/evaluation/settings.py``; ``streamgaze eval`` puts its flags
there, so every process of a distributed run agrees) and passes it on; the documents record it.

Import-light; no module state here (the one patch is marked on lmms-eval's class).
"""

from __future__ import annotations

import math

from streamgaze_hf.registry import benchmark_of_doc, benchmarks, get_benchmark, task_index
from streamgaze_hf.util.errors import StreamGazeError

PROCESS_DOCS = "process_docs"
AGGREGATE = "aggregate_"


def _documents(dataset, suffix: str):
    import datasets

    from streamgaze_hf.evaluation.settings import RunSettings

    info = dataset.info
    bench = get_benchmark(info.dataset_name)
    task = task_index().lmms_task(bench.lmms_task_name(info.config_name) + suffix)
    if task is None or task.benchmark != bench.name:
        raise StreamGazeError(f"{PROCESS_DOCS}{suffix}: no such variant of {bench.name} task {info.config_name}")
    kwargs = {"reasoning": task.reasoning} if task.reasoning else {}
    try:
        settings = _with_run_model(RunSettings.from_env())  # `streamgaze eval` put them in the environment
        docs = bench.plugin().load_docs(task.task_id, task.gaze, root=info.description,
                                        rows=dataset, settings=settings, **kwargs)
        if task.slice:
            field_name, value = task.slice
            docs = [d for d in docs if d.get(field_name) == value]
        if bench.window_clips:
            from streamgaze_hf.evaluation import prefetch

            prefetch.start_prefetch(docs, settings)  # clips prepared in the background (settings.prefetch workers)
    except StreamGazeError as exc:
        # lmms-eval retries dataset loading five times on any Exception; a missing dataset is not
        # transient, so stop with one clear line instead.
        raise SystemExit(f"streamgaze: error: {exc}") from None
    return datasets.Dataset.from_list(docs)


def _with_run_model(settings):
    """``settings`` naming the run's wrapper: as ``streamgaze eval`` set it, else read from lmms-eval's own
    command line (a plain ``lmms-eval`` or ``accelerate launch -m lmms_eval`` run), so that its documents get
    model-ready clips too (``streamgaze_hf/evaluation/model_frames.py``)."""
    if settings.model or settings.frames != "model":
        return settings
    import dataclasses
    import sys

    from streamgaze_hf.harness.model import frames_choice, run_model

    choice = frames_choice(run_model(sys.argv[1:]))
    return dataclasses.replace(settings, model=choice) if choice else settings


def __getattr__(name: str):
    """``process_docs<suffix>``: the documents of one variant (module docstring); ``aggregate_<metric>``: the
    aggregation of a metric some registered benchmark declares (:func:`aggregation`)."""
    if name.startswith(AGGREGATE):
        return aggregation(name[len(AGGREGATE):])
    if not name.startswith(PROCESS_DOCS):
        raise AttributeError(name)
    suffix = name[len(PROCESS_DOCS):]
    _install_reader()  # lmms-eval is reading one of our YAMLs: it loads the data next

    def process_docs(dataset):
        return _documents(dataset, suffix)

    process_docs.__name__ = process_docs.__qualname__ = name
    process_docs.__module__ = __name__
    return process_docs


# ---- reading the config -----------------------------------------------------------------------------

def _is_ours(config) -> bool:
    fn = getattr(config, "process_docs", None)
    return callable(fn) and getattr(fn, "__module__", None) == __name__


def read_task_config(dataset_path: str, config: str):
    """(root, rows) of the config ``config`` of the dataset ``dataset_path`` (a benchmark's default root:
    the root chosen at run time; else a directory or Hub reference), through the toolkit's reader; the
    rows name their benchmark, config and root in ``Dataset.info``."""
    import datasets

    from streamgaze_hf.dataset.load import (
        benchmark_of,
        benchmark_root,
        load_task,
        read_manifest,
        resolve_root,
    )

    bench = next((b for b in benchmarks() if b.default_root == dataset_path), None)
    if bench is not None:
        root = benchmark_root(bench.name)
    else:
        root = resolve_root(dataset_path)
        bench = get_benchmark(benchmark_of(read_manifest(root)))
    rows = load_task(config, root)
    info = datasets.DatasetInfo(dataset_name=bench.name, config_name=config, description=str(root))
    return root, datasets.Dataset(rows.data, info=info)


def _download(original):
    def download(self, dataset_kwargs=None, *args, **kwargs):
        if not _is_ours(self.config):
            return original(self, dataset_kwargs, *args, **kwargs)
        import datasets

        try:
            root, rows = read_task_config(str(self.config.dataset_path), str(self.config.dataset_name))
        except StreamGazeError as exc:
            raise SystemExit(f"streamgaze: error: {exc}") from None
        self.config.dataset_path = self.DATASET_PATH = str(root)
        split = self.config.test_split or "test"
        self.dataset = datasets.DatasetDict({split: self.config.process_docs(rows)})
        self.dataset_no_image = self.dataset  # documents hold paths, never decoded media
    return download


def _install_reader() -> None:
    """Wrap ``ConfigurableTask.download`` (once) when lmms-eval is loaded in this process."""
    import sys

    if "lmms_eval" not in sys.modules:  # the generator, unit tests: nothing to patch
        return
    from lmms_eval.api.task import ConfigurableTask

    if getattr(ConfigurableTask, "_streamgaze_reader", False):
        return
    ConfigurableTask.download = _download(ConfigurableTask.download)
    ConfigurableTask._streamgaze_reader = True



# ---- documents to requests, responses to metrics --------------------------------------------------

def _ev(doc):
    return benchmark_of_doc(doc).plugin()


def doc_to_visual(doc):
    """What the model is shown. A benchmark of window clips (``Benchmark.window_clips``, StreamGaze): the
    window clip path (model-ready for the run's wrapper where the toolkit knows it: its frames, at its
    processor's size), preceded in the salience variant by the salience map as a ``PIL.Image`` (lmms-eval's
    simple wrappers accept an image only as a PIL image and drop image paths), from the clip prefetcher
    when it got there first. Marks a new question for the reading-time summary
    (``streamgaze_hf/harness/video_time.py``)."""
    if not benchmark_of_doc(doc).window_clips:
        return _ev(doc).doc_visuals(doc)
    from PIL import Image

    from streamgaze_hf.evaluation import prefetch
    from streamgaze_hf.harness import video_time

    video_time.mark_question()  # what the wrapper reads from now on belongs to this document
    with video_time.harness_work():
        visuals = prefetch.prefetched_visuals(doc)
        return [Image.open(v).convert("RGB") if v.endswith(".png") else v for v in visuals]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}{_ev(doc).doc_prompt(doc)}{kw.get('post_prompt', '')}"


#: file endings lmms-eval's chat tasks take for an image (``ConfigurableMessagesTask._IMAGE_EXTS``)
IMAGE_ENDINGS = (".png", ".jpg", ".jpeg", ".bmp", ".gif", ".webp")


def visual_content(visual) -> dict:
    """One visual as typed chat content (lmms-eval 0.7 ``ChatImageContent`` / ``ChatVideoContent``):
    an image (a ``PIL.Image``, or a path to an image file) or a video (a clip path)."""
    if not isinstance(visual, str) or visual.lower().endswith(IMAGE_ENDINGS):
        return {"type": "image", "url": visual}
    return {"type": "video", "url": visual}


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """The chat request of a document (lmms-eval 0.7 ``ChatMessages``; chat models only): one user turn
    whose content is, in order, what :func:`doc_to_visual` shows (StreamGaze's salience variant: the
    salience map as an image, then the window clip as a video) and the prompt of :func:`doc_to_text`
    as text. Simple models keep ``doc_to_visual`` / ``doc_to_text``."""
    content = [visual_content(v) for v in doc_to_visual(doc)]
    content.append({"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


def doc_to_target(doc):
    return _ev(doc).doc_target(doc)


def process_results(doc, results):
    """The per-sample record under each of the task's metrics (the evaluation module's ``metric_records``
    hook: by default the same record under each; StreamGaze's proactive items carry ``score`` only inside
    each metric's denominator)."""
    ev = _ev(doc)
    return ev.metric_records(ev.score_doc(doc, results[0] if results else ""))


def _metric(items, name: str) -> float:
    """The benchmark's ``metric_value`` hook (``streamgaze_hf.registry.Plugin``): percent of a
    fraction metric, or the benchmark's own units (VL4Gaze: BLEU 0-100, L2, degrees); NaN when undefined
    (no items, an empty denominator): lmms-eval's tables then show "nan", never a made-up 0 or 100."""
    items = list(items)
    return _ev(items[0]).metric_value(items, name) if items else math.nan


def aggregation(metric: str):
    """lmms-eval's aggregation function of ``metric`` (``aggregate_<metric>`` in the task files): the
    benchmark's ``metric_value`` hook over the items. Only metrics a registered benchmark declares have one."""
    declared = {m for b in benchmarks() for m in b.metric_set()}
    if metric not in declared:
        raise AttributeError(f"{AGGREGATE}{metric}: no registered benchmark declares the metric {metric!r}")

    def aggregate(items):
        return _metric(items, metric)

    aggregate.__name__ = aggregate.__qualname__ = f"{AGGREGATE}{metric}"
    aggregate.__module__ = __name__
    return aggregate
