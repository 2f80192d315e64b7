"""Modules split by job keep their public face: ``streamgaze_hf.scoring`` re-exports every name of its
submodules, and the review pages' assets are package data (an installed wheel has them)."""

from __future__ import annotations

import ast
import fnmatch
import importlib
import re
from pathlib import Path

import pytest

from streamgaze_hf import scoring
from streamgaze_hf.review import page, qa_review

ROOT = Path(__file__).resolve().parents[2]


def test_scoring_keeps_its_public_names():
    names = set(scoring.__all__)
    assert {"parse_choice", "parse_yes_no", "summarize", "proactive_metrics", "parse_direction", "rouge_l",
            "corpus_bleu", "OUTSIDE", "exact_match_correct"} <= names
    owners = {}
    for sub in ("parsers", "metrics", "summary", "gaze_following", "text_similarity"):
        module = importlib.import_module(f"streamgaze_hf.scoring.{sub}")
        for name in module.__all__:
            assert getattr(scoring, name) is getattr(module, name)
            owners.setdefault(name, sub)
    assert set(owners) == names  # each public name lives in exactly one job's module


def test_review_assets_are_package_data():
    tomllib = pytest.importorskip("tomllib")
    package_data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"][
        "package-data"]["streamgaze_hf.review"]
    assets = sorted((ROOT / "streamgaze_hf" / "review" / "assets").iterdir())
    assert [p.name for p in assets] == ["qa_review.css", "qa_review.js", "qa_review_guide.html", "review.css",
                                        "review.js", "review_guide.html"]
    for p in assets:
        assert any(fnmatch.fnmatch(f"assets/{p.name}", pattern) for pattern in package_data), p.name
    assert page.asset("review.js") == (ROOT / "streamgaze_hf/review/assets/review.js").read_text(encoding="utf-8")
    assert page._JS.lstrip().startswith("(function () {") and "review-data" in page._JS
    assert qa_review._QA_CSS.startswith("\n.qa{") and qa_review._CSS is page._CSS


def test_the_benchmark_contract_covers_every_shared_package():
    """The forbidden contract of .importlinter (no shared module names a benchmark package) lists every
    top-level package but ``benchmarks`` (which holds only benchmark plug-ins): a new package is checked from
    its first line, and a new benchmark needs no line."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / ".importlinter")
    contract = cfg["importlinter:contract:benchmarks-by-registry"]
    listed = set(contract["source_modules"].split())
    pkg = ROOT / "streamgaze_hf"
    shared = {f"streamgaze_hf.{p.name}" for p in pkg.iterdir() if (p / "__init__.py").is_file()} - {
        "streamgaze_hf.benchmarks"}
    assert shared | {"lmms_tasks"} == listed
    assert contract["forbidden_modules"].split() == ["streamgaze_hf.benchmarks"]


def test_nothing_loose_at_the_top_of_the_package():
    """The top level holds packages whose names say their job, and nothing loose but ``__init__`` and
    ``__main__`` (docs/architecture.md)."""
    loose = sorted(p.name for p in (ROOT / "streamgaze_hf").glob("*.py"))
    assert loose == ["__init__.py", "__main__.py"]


# ---- shared code names no benchmark (issue 35 item 4) ------------------------------------------------

#: the built-in benchmarks' names (the test's own list: shared code may not have one)
BENCHMARK_NAMES = ("streamgaze", "egogazevqa", "streameqa", "vl4gaze")
#: the toolkit's own short name is its first benchmark's: this one definition (command, cache folder,
#: results key) is the only place shared code spells it
TOOLKIT_NAME = ("streamgaze_hf/util/provenance.py", "TOOLKIT")


def _docstrings(tree: ast.AST) -> set[int]:
    return {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
            and n.body and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}


def _names_a_benchmark(text: str) -> bool:
    """A string that is a benchmark's name, one of its lmms-eval task names, a word of it (``EgoGazeVQA's``),
    or one of its modules (``benchmarks.streamgaze``, ``benchmarks/vl4gaze``)."""
    from streamgaze_hf.registry import task_index

    low = text.lower()
    words = set(re.split(r"[^a-z0-9]+", low))
    return (low in BENCHMARK_NAMES or text in task_index().names or "StreamGaze" in text  # the title, not the
            or any(f"benchmarks.{n}" in low or f"benchmarks/{n}" in low for n in BENCHMARK_NAMES)  # toolkit's name
            or any(n in words for n in BENCHMARK_NAMES if n != "streamgaze"))  # "streamgaze" is also the toolkit


def shared_code_naming_benchmarks(files) -> list[str]:
    """``file:line: what`` for each string constant (docstrings aside) or import in ``files`` that names one of
    the built-in benchmarks."""
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docs = _docstrings(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
                if _names_a_benchmark(node.value):
                    found.append(f"{rel}:{node.lineno}: {node.value[:80]!r}")
            elif isinstance(node, ast.Assign) and (rel, getattr(node.targets[0], "id", "")) == TOOLKIT_NAME:
                docs.add(id(node.value))  # the toolkit's name: its one definition
            elif isinstance(node, ast.Import | ast.ImportFrom):
                modules = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(f"benchmarks.{n}" in m for m in modules for n in BENCHMARK_NAMES):
                    found.append(f"{rel}:{node.lineno}: import {modules}")
    return found


def _shared_files():
    pkg = ROOT / "streamgaze_hf"
    return [p for p in sorted(pkg.rglob("*.py")) if "benchmarks" not in p.relative_to(pkg).parts] + sorted(
        (ROOT / "lmms_tasks").glob("*.py"))


def test_shared_code_names_no_benchmark():
    """Every benchmark-specific rule lives in its plug-in, or is a contract field or a required argument; the
    shared packages (and the lmms-eval glue) name no benchmark and none of their modules."""
    assert shared_code_naming_benchmarks(_shared_files()) == []


def _places(check, probe: Path, root: Path) -> list[str]:
    """``file:line`` of what ``check`` finds in the probe file ``probe`` of a tree rooted at ``root``."""
    global ROOT
    saved, ROOT = ROOT, root
    try:
        return [f.split(": ", 1)[0] for f in check([probe])]
    finally:
        ROOT = saved


def test_the_benchmark_name_check_finds_what_it_looks_for(tmp_path):
    """The check can fail: each kind of mention it looks for is found."""
    (tmp_path / "streamgaze_hf").mkdir()
    probe = tmp_path / "streamgaze_hf" / "probe.py"
    probe.write_text('"""About streamgaze and EgoGazeVQA (a docstring: fine)."""\n'
                     'from streamgaze_hf.benchmarks.streamgaze import tasks\n'
                     'DEFAULT = "streamgaze"\nTASK = "streamgaze_oi_easy"\nHELP = "see EgoGazeVQA\'s table"\n'
                     'MOD = "streamgaze_hf/benchmarks/vl4gaze/card.py"\nOK = "streamgaze: error: x"\n'
                     'TITLE = "StreamGaze human verification"\n')
    assert _places(shared_code_naming_benchmarks, probe, tmp_path) == [
        "streamgaze_hf/probe.py:2", "streamgaze_hf/probe.py:3", "streamgaze_hf/probe.py:4",
        "streamgaze_hf/probe.py:5", "streamgaze_hf/probe.py:6", "streamgaze_hf/probe.py:8"]


# ---- the registry: modules by job behind one face; hooks only through the adapter (issue 41 item 4) ------

REGISTRY = ROOT / "streamgaze_hf" / "registry"
#: the registry's modules, one job each (docs/architecture.md "The tree")
REGISTRY_MODULES = ("declarations", "references", "hooks", "plugin", "leaderboard_layout", "lmms", "task_index")


def test_every_registry_module_is_at_most_400_lines():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in sorted(REGISTRY.glob("*.py"))}
    assert sorted(sizes) == sorted(["__init__.py", *(f"{m}.py" for m in REGISTRY_MODULES)])
    assert {name: n for name, n in sizes.items() if n > 400} == {}


def test_the_registry_keeps_one_public_face():
    """``streamgaze_hf.registry`` re-exports every public name of its modules, each defined in one of them, and
    code outside the registry imports from that face only (so a module of the registry can move freely)."""
    from streamgaze_hf import registry

    owners: dict[str, str] = {}
    for sub in REGISTRY_MODULES:
        module = importlib.import_module(f"streamgaze_hf.registry.{sub}")
        for name in module.__all__:
            assert getattr(registry, name) is getattr(module, name), (sub, name)
            assert name in registry.__all__, name
            assert owners.setdefault(name, sub) == sub, name
    inward = re.compile(r"^\s*from\s+(?:streamgaze_hf|\.+)registry\.(\w+)\s+import", re.M)
    found = [f"{p.relative_to(ROOT)}: registry.{m}" for top in ("streamgaze_hf", "lmms_tasks", "build_scripts", "perf",
                                                                  "tests")
             for p in sorted((ROOT / top).rglob("*.py")) if REGISTRY not in p.parents
             for m in inward.findall(p.read_text(encoding="utf-8"))]
    assert found == []


#: the one module that looks into a benchmark's modules for what they define
ADAPTER = "streamgaze_hf/registry/plugin.py"
#: the import helper finds the modules its callers name (each caller a literal library name: ``evaluate``,
#: ``torchcodec``...): generic machinery, not a look into a benchmark's code
IMPORT_HELPER = "streamgaze_hf/util/imports.py"
#: what gives a benchmark's code (a module, a function): the registry's resolver and a benchmark's parts
PLUGIN_SOURCES = frozenset({"resolve", "plugin", "evaluation_module", "streaming_module", "optional_module",
                            "importer"})
PROBES = frozenset({"hasattr", "getattr", "find_spec"})


def _called(node: ast.AST) -> str:
    func = node.func if isinstance(node, ast.Call) else None
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""


def _from_plugin(expr: ast.AST, assigned: dict[str, ast.AST], seen: frozenset[str] = frozenset()) -> bool:
    """Whether ``expr`` is (or is assigned, in the same function, from) a benchmark's code: a call of a
    :data:`PLUGIN_SOURCES` name, or an attribute of that name (``plugin().evaluation_module``)."""
    for node in ast.walk(expr):
        if _called(node) in PLUGIN_SOURCES or (isinstance(node, ast.Attribute) and node.attr in PLUGIN_SOURCES):
            return True
        if isinstance(node, ast.Name) and node.id in assigned and node.id not in seen:
            if _from_plugin(assigned[node.id], assigned, seen | {node.id}):
                return True
    return False


def _own_nodes(scope: ast.AST):
    """The nodes of a module or function, without those of the functions and classes defined in it."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            todo.extend(ast.iter_child_nodes(node))


def plugin_probes(files) -> list[str]:
    """``file:line: call`` for each ``hasattr``/``getattr`` applied to a benchmark's code outside the adapter,
    and each ``find_spec`` of a computed name (finding a file to decide that a part exists); ``find_spec`` of a
    literal name (an installed library) is fine."""
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if rel in (ADAPTER, IMPORT_HELPER):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        scopes = [tree, *(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef))]
        for scope in scopes:
            assigned = {t.id: n.value for n in _own_nodes(scope) if isinstance(n, ast.Assign)
                        for t in n.targets if isinstance(t, ast.Name)}
            for call in _own_nodes(scope):
                name = _called(call)
                if name not in PROBES or not call.args:
                    continue
                first = call.args[0]
                literal = isinstance(first, ast.Constant) and isinstance(first.value, str)
                if (name == "find_spec" and not literal) or (name != "find_spec" and _from_plugin(first, assigned)):
                    found.append(f"{rel}:{call.lineno}: {ast.unparse(call)[:80]}")
    return sorted(found, key=lambda f: (f.split(":")[0], int(f.split(":")[1])))


def test_no_module_of_a_benchmark_is_probed_outside_the_adapter():
    """Every hook a benchmark can provide is in the one list (``registry.HOOKS``) and reached through
    ``Benchmark.plugin()``: no ``hasattr``, ``getattr`` or ``find_spec`` looks into a benchmark's modules
    anywhere else in the shared code or the lmms-eval glue."""
    assert plugin_probes(_shared_files()) == []


def test_the_probe_check_finds_what_it_looks_for(tmp_path):
    """The check can fail: each way of probing a benchmark's code is found, and the fine uses are not."""
    (tmp_path / "streamgaze_hf").mkdir()
    probe = tmp_path / "streamgaze_hf" / "probe.py"
    probe.write_text(
        "import importlib.util\n"
        "from streamgaze_hf.registry import resolve\n\n\n"
        "def report_help(b):\n"
        "    module = b.optional_module('report')\n"
        "    return getattr(module, 'HELP', '')\n\n\n"  # line 7
        "def has_breakdown(bench):\n"
        "    return hasattr(bench.plugin().evaluation_module, 'breakdown')\n\n\n"  # line 11
        "def section(ref):\n"
        "    return hasattr(resolve(ref), 'dataset_section')\n\n\n"  # line 15
        "def has_report(pkg):\n"
        "    return importlib.util.find_spec(f'{pkg}.report') is not None\n\n\n"  # line 19
        "def fine(exc, config):\n"
        "    fn = getattr(config, 'process_docs', None)\n"
        "    return importlib.util.find_spec('torchcodec'), getattr(exc, 'response', None), fn\n",
        encoding="utf-8")
    assert _places(plugin_probes, probe, tmp_path) == [
        "streamgaze_hf/probe.py:7", "streamgaze_hf/probe.py:11", "streamgaze_hf/probe.py:15",
        "streamgaze_hf/probe.py:19"]


# ---- the dataset in one hand, the glue says what it passes, one environment builder (issue 41) -------

def _python_files(*folders: str):
    for folder in folders:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" not in path.parts:
                yield path


#: the one module that opens a dataset reference (resolve it, read its manifest, find its benchmark)
DATASET_OPENER = "streamgaze_hf/dataset/load.py"
#: the one module that sets environment variables
ENVIRONMENT_BUILDER = "streamgaze_hf/util/process_env.py"
_CHAIN = re.compile(r"(read_manifest|benchmark_of)\(\s*(resolve_root|locate|read_manifest)\(")


def _chains(files) -> list[str]:
    return [f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}:{n}" for p in files
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if _CHAIN.search(line)]


def test_no_dataset_is_worked_out_outside_the_opener(tmp_path):
    """No ``read_manifest(resolve_root(...))`` or ``benchmark_of(read_manifest(...))`` chain outside the opener:
    below each edge, code takes the open dataset (``DatasetHandle``)."""
    files = [p for p in _python_files("streamgaze_hf", "lmms_tasks", "perf", "build_scripts")
             if p.relative_to(ROOT).as_posix() != DATASET_OPENER]
    assert _chains(files) == []
    probe = tmp_path / "probe.py"  # the check finds what it looks for
    probe.write_text("bench = get_benchmark(benchmark_of(read_manifest(resolve_root(root))))\n")
    assert len(_chains([probe])) == 1


def test_there_is_one_benchmark_of():
    """One function says which benchmark a dataset is (``dataset.load.benchmark_of``, returning the Benchmark): no
    other function or method of the library or the glue is named ``benchmark_of``."""
    found = [f"{p.relative_to(ROOT)}:{n.lineno}" for p in _python_files("streamgaze_hf", "lmms_tasks")
             for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
             if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == "benchmark_of"]
    assert found == [f"{DATASET_OPENER}:{_line_of(DATASET_OPENER, 'def benchmark_of(')}"]


def _line_of(path: str, text: str) -> int:
    return next(n for n, line in enumerate((ROOT / path).read_text(encoding="utf-8").splitlines(), 1)
                if line.startswith(text))


def _environment_writes(tree: ast.AST) -> list[int]:
    """Lines that assign to ``os.environ[...]`` or call ``os.environ.update/setdefault/pop`` or ``os.putenv``."""
    def is_environ(node) -> bool:
        return isinstance(node, ast.Attribute) and node.attr == "environ" and isinstance(node.value, ast.Name) \
            and node.value.id == "os"

    lines = []
    for n in ast.walk(tree):
        targets = n.targets if isinstance(n, ast.Assign) else [n.target] if isinstance(n, ast.AugAssign) else []
        if any(isinstance(t, ast.Subscript) and is_environ(t.value) for t in targets):
            lines.append(n.lineno)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and (
                (is_environ(n.func.value) and n.func.attr in ("update", "setdefault", "pop", "clear"))
                or (n.func.attr == "putenv" and isinstance(n.func.value, ast.Name) and n.func.value.id == "os")):
            lines.append(n.lineno)
    return lines


def test_only_the_environment_builder_sets_variables():
    """The toolkit never writes ``os.environ`` to pass a setting to itself; the variables other code reads (the
    libraries' switches, a child's environment) are set in one module."""
    writes = {p.relative_to(ROOT).as_posix(): lines for p in _python_files("streamgaze_hf")
              if (lines := _environment_writes(ast.parse(p.read_text(encoding="utf-8"))))}
    assert set(writes) == {ENVIRONMENT_BUILDER}, writes
    probe = ast.parse("import os\nos.environ['A'] = '1'\nos.environ.update(B='2')\nos.environ.setdefault('C', '3')\n")
    assert _environment_writes(probe) == [2, 3, 4]


def test_the_glue_names_every_function_its_task_files_name():
    """No module-level ``__getattr__`` in lmms_tasks/ (no function minted on demand), and every
    ``!function`` of every committed task file exists in the source: the glue module's functions, and each
    folder's generated glue.py (grep finds both)."""
    for path in _python_files("lmms_tasks"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        assert not [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "__getattr__"], path
    tasks = ROOT / "lmms_tasks" / "tasks"
    named = {(yaml_file.parent, ref) for yaml_file in tasks.rglob("*.yaml")
             for ref in re.findall(r"!function ([\w.]+)", yaml_file.read_text(encoding="utf-8"))}
    assert named
    for folder, ref in sorted(named):
        module, _, name = ref.rpartition(".")
        source = (folder / "glue.py") if module == "glue" else ROOT / (module.replace(".", "/") + ".py")
        defined = {n.name for n in ast.parse(source.read_text(encoding="utf-8")).body if isinstance(n, ast.FunctionDef)}
        assert name in defined, f"{folder.name}: {ref} is not defined in {source.relative_to(ROOT)}"


# ---- issue 52 item 5 (slice: the plug-in contract): hooks registered explicitly, references through the adapter ----

#: the folders of shared code and scripts that reach a benchmark's code only through ``Benchmark.plugin()``
OUTSIDE_REGISTRY = ("streamgaze_hf", "lmms_tasks", "build_scripts", "scripts", "perf")


def registry_resolves(files) -> list[str]:
    """``file:line: code`` for each use of the registry's ``resolve`` outside the registry: an import of it from
    the registry, or a call of ``registry.resolve``."""
    found = []
    for path in files:
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith("streamgaze_hf/registry/"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imports = (isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[-1] == "registry"
                       and any(a.name == "resolve" for a in node.names))
            calls = (isinstance(node, ast.Attribute) and node.attr == "resolve" and isinstance(node.value, ast.Name)
                     and node.value.id == "registry")
            if imports or calls:
                found.append(f"{rel}:{node.lineno}: {ast.unparse(node)[:80]}")
    return found


def test_no_shared_code_resolves_a_declared_reference():
    """Importers, the streaming module, the dataset schema and card functions and a benchmark's own commands are
    reached through the adapter (``Benchmark.plugin()``), never by ``resolve`` of a declared string."""
    assert registry_resolves(_python_files(*OUTSIDE_REGISTRY)) == []


def test_the_resolve_check_finds_what_it_looks_for(tmp_path):
    (tmp_path / "streamgaze_hf").mkdir()
    probe = tmp_path / "streamgaze_hf" / "probe.py"
    probe.write_text("from pathlib import Path\n"
                     "from ..registry import Benchmark, resolve\n"
                     "from streamgaze_hf import registry\n\n\n"
                     "def features(bench):\n"
                     "    return registry.resolve(bench.dataset.qa_features), Path('.').resolve()\n", encoding="utf-8")
    assert _places(registry_resolves, probe, tmp_path) == ["streamgaze_hf/probe.py:2", "streamgaze_hf/probe.py:7"]


def test_a_misspelt_hook_of_a_plugin_raises_at_registration(tmp_path, monkeypatch):
    """A plug-in package whose evaluation module registers ``leaderboard_value`` (for ``leaderboard_values``)
    fails when the module is imported, naming the hook and the known ones; spelt right, it is the hook."""
    from streamgaze_hf.registry import HOOKS, UnknownHook, declare

    package = tmp_path / "mybench_plugin"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    required = "".join(f"def {name}(*args, **kwargs):\n    return None\n\n\n" for name in
                       ("load_docs", "doc_visuals", "doc_prompt", "doc_target", "score_doc", "task_metrics"))
    for name, hook_name in (("misspelt", "leaderboard_value"), ("spelt", "leaderboard_values")):
        (package / f"{name}.py").write_text(
            f"from streamgaze_hf.registry import hook\n\n\n{required}@hook\ndef {hook_name}(scores):\n"
            "    return {'overall': 1.0, 'columns': {}, 'by_source': {}}\n", encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(UnknownHook) as raised:
        importlib.import_module("mybench_plugin.misspelt")
    assert str(raised.value).startswith("unknown hook 'leaderboard_value' in mybench_plugin.misspelt; did you mean "
                                        "leaderboard_values or leaderboard_scores?; the hooks are ")
    assert all(name in str(raised.value) for name in HOOKS)
    bench = declare("mybench_plugin", name="mybench_plugin", title="Mine", paper="p", tasks=(), categories=(),
                    gaze_variants={"": "none"}, metrics={"mc": ("accuracy",)}, root_env="MINE_ROOT", default_root="x",
                    evaluation="mybench_plugin.spelt",
                    dataset={"dataset_name": "x", "pretty_name": "X", "qa_sort_keys": ("question_id",)})
    assert bench.plugin().has_hook("leaderboard_values")
    assert bench.plugin().leaderboard_values({})["overall"] == 1.0


# ---- issue 52 item 8 (slice: the plug-in contract): one discover for the raw readers -----------------------------

SOURCES = ROOT / "streamgaze_hf" / "gaze" / "sources"
#: readers whose recordings are not a listing checked one by one (BIDS: its index pairs sidecars and videos)
OWN_DISCOVER = ("base.py", "bids.py")
_NONE_FOUND = re.compile(r"""f["']no [^"']* found \(expected \{LAYOUT\}""")


def discover_copies(files) -> list[str]:
    """``file:line`` of each reader that writes the "no recordings found" rule itself rather than calling
    ``base.discover_recordings``."""
    return [f"{p.relative_to(ROOT).as_posix()}:{n}: {line.strip()[:60]}" for p in files if p.name not in OWN_DISCOVER
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if _NONE_FOUND.search(line)]


def test_the_readers_share_one_discover(tmp_path):
    assert discover_copies(sorted(SOURCES.glob("*.py"))) == []
    probe = tmp_path / "streamgaze_hf" / "gaze" / "sources" / "mine.py"
    probe.parent.mkdir(parents=True)
    probe.write_text('def discover(raw):\n    raise StreamGazeError(f"no Mine recordings found (expected {LAYOUT})", raw)\n',
                     encoding="utf-8")
    assert _places(discover_copies, probe, tmp_path) == ["streamgaze_hf/gaze/sources/mine.py:2"]


# ---- the leaderboard's decision as a core (issue 52 item 3): the oracle rule, evaluations over the sync's face ----
ORACLE_RULE = "streamgaze_hf/submission/assemble.py"
_ORACLE_TEST = re.compile(r"OracleBaseline|ORACLE_MODELS|ORACLE_CLASS|[=!]=\s*[\"']streamgaze_oracle[\"']|"
                          r"[\"']streamgaze_oracle[\"']\s*[=!]=")


def _oracle_tests(text: str) -> list[int]:
    """Lines that test a run against the oracle's id or class by hand (not through ``is_oracle``)."""
    return [n for n, line in enumerate(text.splitlines(), 1)
            if _ORACLE_TEST.search(line) and not line.lstrip().startswith(("from ", "import ", "__all__"))]


def test_the_oracle_rule_is_one_function():
    """Only ``submission.assemble.is_oracle`` compares a run with the oracle's model ids or class: every other check
    of a run (submit, stream submit, validate, the verdict, push-submission) calls it."""
    found = {p.relative_to(ROOT).as_posix(): lines for p in _python_files("streamgaze_hf")
             if (lines := _oracle_tests(p.read_text(encoding="utf-8")))}
    assert list(found) == [ORACLE_RULE], found
    assert _oracle_tests('if sub["run"]["model"] == "streamgaze_oracle":\nok = 1\n'
                         'x = "OracleBaseline" in backend\nfrom .assemble import ORACLE_MODELS\n') == [1, 3]


def test_a_rows_benchmark_is_read_off_its_path_in_one_place():
    """``untrusted.row_benchmark`` reads a row's benchmark off its ``submission_path``; no other leaderboard code
    splits a path (a row's, a decision's) to find it."""
    split = re.compile(r"""(submission_path["']\]|\bpath)\)?\.split\(["']/["']\)\[1\]""")
    found = [f"{p.relative_to(ROOT).as_posix()}:{n}" for p in _python_files("streamgaze_hf/leaderboard")
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if split.search(line)]
    assert found == [f"streamgaze_hf/leaderboard/service/untrusted.py:"
                     f"{_line_of('streamgaze_hf/leaderboard/service/untrusted.py', '    return get_benchmark(str(row[')}"]
    assert split.search('bench = get_benchmark(row["submission_path"].split("/")[1])')
    assert split.search('state.rows.setdefault(d.path.split("/")[1], [])')


EVALUATIONS = "streamgaze_hf/leaderboard/service/evaluations.py"


def _private_reaches(tree: ast.AST) -> list[str]:
    """``x._name`` where ``x`` is not ``self`` (a private name of another object), and ``x.y._name``."""
    return [f"{ast.unparse(n.value)}.{n.attr}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr.startswith("_") and not n.attr.startswith("__")
            and not (isinstance(n.value, ast.Name) and n.value.id == "self")]


def _function_imports(tree: ast.AST, module: str) -> list[int]:
    """Lines of ``from .module import ...`` inside a function."""
    return [n.lineno for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in ast.walk(f) if isinstance(n, ast.ImportFrom) and n.level == 1 and n.module == module]


def test_server_side_evaluations_use_the_syncs_public_face():
    """The evaluation step is a second pipeline over the sync's snapshot: it reaches no private name of another
    object (``self.sync._decide``, ``sync._download``), and the sync and it import each other only at module level
    (nothing the import graph does not show)."""
    evaluations = ast.parse((ROOT / EVALUATIONS).read_text(encoding="utf-8"))
    assert _private_reaches(evaluations) == []
    assert _function_imports(evaluations, "sync") == []
    sync = ast.parse((ROOT / "streamgaze_hf/leaderboard/service/sync.py").read_text(encoding="utf-8"))
    assert _function_imports(sync, "evaluations") == []
    assert any(isinstance(n, ast.ImportFrom) and n.module == "evaluations" for n in sync.body)
    probe = ast.parse("def f(self, sync):\n    from .sync import x\n    self.sync._decide(1)\n    sync._download()\n"
                      "    self._set(2)\n")
    assert _private_reaches(probe) == ["self.sync._decide", "sync._download"]
    assert _function_imports(probe, "sync") == [2]


def test_the_sync_is_at_most_500_lines_and_its_acceptance_is_ordered_checks():
    from streamgaze_hf.leaderboard.service import acceptance

    assert len((ROOT / "streamgaze_hf/leaderboard/service/sync.py").read_text(encoding="utf-8").splitlines()) <= 500
    assert [c.__name__ for c in (*acceptance.SHAPE, *acceptance.FRESH)] == [
        "one_new_file", "a_known_path", "not_on_main", "within_quota"]


# ---- issue 52 item 2, the frames in one machine: one runner of a pass --------------------------------------

#: the one function where a pass's ConversionMismatch becomes its fallback (the clips made the capped way)
PASS_FALLBACK = ("streamgaze_hf/evaluation/ready.py", "run_units")
#: a pass's inner steps: only the runner (``ready.VideoPass``, ``ready.run_passes`` and their helpers) calls them
PASS_STEPS = {"plan_pass", "pass_store", "run_unit", "run_units", "assemble", "open_decoder", "legacy_job_clip"}
PASS_RUNNER = {"VideoPass", "run_passes", "run_units", "run_unit", "_run_chunk", "_assemble_chunk"}
#: every driver of passes (module, function or class): each names the runner
PASS_DRIVERS = {("streamgaze_hf/evaluation/ready.py", "make_pass"): "run_passes",
                ("streamgaze_hf/evaluation/schedule.py", "FrameScheduler"): "VideoPass",
                ("streamgaze_hf/evaluation/warm.py", "_warm_model_ready"): "run_passes"}


def _scoped(tree: ast.AST):
    """Each node with the top-level function or class it is in (None: module level)."""
    for top in ast.iter_child_nodes(tree):
        owner = top.name if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) else None
        for node in ast.walk(top):
            yield owner, node


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)} | {
        n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def pass_rule_places(root: Path) -> dict[str, list[str]]:
    """Where a ConversionMismatch is caught (``except`` or ``isinstance``), and where a pass's inner steps are
    called outside the runner (by name, or from a module: ``ready.run_unit``; a method of the runner's own, such as
    ``p.vp.run_unit``, is the runner), in the package under ``root``."""
    caught, steps = [], []
    for path in sorted((root / "streamgaze_hf").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for owner, node in _scoped(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ExceptHandler) and node.type is not None and "ConversionMismatch" in _names(
                    node.type):
                caught.append(f"{rel}:{owner}")
            if isinstance(node, ast.Call) and (isinstance(node.func, ast.Name) or (
                    isinstance(node.func, ast.Attribute) and isinstance(node.func.value, ast.Name))):
                name = node.func.id if isinstance(node.func, ast.Name) else node.func.attr
                if name == "isinstance" and "ConversionMismatch" in _names(node):
                    caught.append(f"{rel}:{owner}")
                if name in PASS_STEPS and owner not in PASS_RUNNER:
                    steps.append(f"{rel}:{owner}:{name}")
    return {"caught": caught, "steps": sorted(steps)}


def test_one_function_runs_a_pass_and_holds_its_fallback():
    """A ConversionMismatch is caught in one place (``ready.run_units``), and no driver calls a pass's inner
    steps (plan it, open its store, run or assemble its units, make its clips the capped way) itself."""
    assert pass_rule_places(ROOT) == {"caught": [":".join(PASS_FALLBACK)], "steps": []}


def test_every_pass_driver_calls_the_one_runner():
    for (rel, owner), runner in PASS_DRIVERS.items():
        tree = ast.parse((ROOT / rel).read_text(encoding="utf-8"))
        body = [n for n in ast.iter_child_nodes(tree) if getattr(n, "name", None) == owner]
        assert body, f"{rel} has no {owner}"
        assert runner in _names(body[0]), f"{rel}:{owner} does not run its passes through {runner}"


def test_the_pass_check_finds_what_it_looks_for(tmp_path):
    """The check can fail: a driver with its own fallback, and one that runs a pass's units itself (as the frame
    scheduler and ``clips warm`` did before issue 52), are found."""
    pkg = tmp_path / "streamgaze_hf" / "evaluation"
    pkg.mkdir(parents=True)
    (pkg / "schedule.py").write_text(
        "from .ready import ConversionMismatch, assemble, run_unit\n\n\n"
        "class FrameScheduler:\n"
        "    def _run(self, p, u):\n"
        "        try:\n"
        "            run_unit(p.plan, u, p.store)\n"
        "        except BaseException as exc:\n"
        "            if isinstance(exc, ConversionMismatch):\n"
        "                return None\n"
        "        return assemble(p.plan, u, p.store)\n", encoding="utf-8")
    (pkg / "prefetch.py").write_text(
        "from . import ready\n\n\n"
        "def _warm_model_ready(pp, f):\n"
        "    try:\n"
        "        f.result()\n"
        "    except (ValueError, ready.ConversionMismatch):\n"
        "        ready.legacy_job_clip(pp)\n", encoding="utf-8")
    assert pass_rule_places(tmp_path) == {
        "caught": ["streamgaze_hf/evaluation/prefetch.py:_warm_model_ready",
                   "streamgaze_hf/evaluation/schedule.py:FrameScheduler"],
        "steps": ["streamgaze_hf/evaluation/prefetch.py:_warm_model_ready:legacy_job_clip",
                  "streamgaze_hf/evaluation/schedule.py:FrameScheduler:assemble",
                  "streamgaze_hf/evaluation/schedule.py:FrameScheduler:run_unit"]}


# ---- issue 52 item 2, the frames in one machine: a document's clip request, built and keyed once -----------

#: where a frame spec is parsed, and where a document's ``model_ready`` is read, in the frames' machinery
SPEC_PARSE = ("streamgaze_hf/evaluation/model_frames.py", "_parsed")
SPEC_READ = ("streamgaze_hf/evaluation/visuals.py", "clip_request")
DOC_KEY = ("streamgaze_hf/evaluation/visuals.py", "doc_key")
FRAMES_MACHINE = ("streamgaze_hf/evaluation", "streamgaze_hf/video", "streamgaze_hf/harness", "lmms_tasks")


def clip_request_places(root: Path) -> dict[str, list[str]]:
    """Under ``root``'s frames machinery: where ``FramesSpec.parse`` is called, where a document's
    ``model_ready`` is read (``doc["model_ready"]``, ``doc.get("model_ready")``), and which functions of a
    document are its key (a function named ``*_key`` whose first argument is ``doc``)."""
    found: dict[str, list[str]] = {"parse": [], "read": [], "key": []}
    for part in FRAMES_MACHINE:
        for path in sorted((root / part).rglob("*.py")):
            rel = path.relative_to(root).as_posix()
            for owner, node in _scoped(ast.parse(path.read_text(encoding="utf-8"))):
                if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "parse"
                        and isinstance(node.func.value, ast.Name) and node.func.value.id in ("FramesSpec", "cls")
                        and owner != "FramesSpec"):
                    found["parse"].append(f"{rel}:{owner}")
                read = (isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant)
                        and node.slice.value == "model_ready") or (
                    isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                    and node.args and isinstance(node.args[0], ast.Constant) and node.args[0].value == "model_ready")
                if read:
                    found["read"].append(f"{rel}:{owner}")
                if (isinstance(node, ast.FunctionDef) and node.name.endswith("_key") and node.args.args
                        and node.args.args[0].arg == "doc"):
                    found["key"].append(f"{rel}:{node.name}")
    return {k: sorted(set(v)) for k, v in found.items()}


def test_a_documents_clip_request_is_read_parsed_and_keyed_in_one_place():
    """``doc["model_ready"]`` is read by one function (``visuals.clip_request``, which builds the document's
    ``ClipRequest`` with the spec parsed), a frame spec is parsed by one function (``model_frames.frames_spec``),
    and "these documents share the same files" is one key (``ClipRequest.key``), the prefetcher's and
    ``clips warm``'s alike."""
    from streamgaze_hf.evaluation import prefetch, visuals

    assert clip_request_places(ROOT) == {"parse": [":".join(SPEC_PARSE)], "read": [":".join(SPEC_READ)],
                                         "key": [":".join(DOC_KEY)]}
    assert prefetch.doc_key is visuals.doc_key


def test_the_clip_request_check_finds_what_it_looks_for(tmp_path):
    """The check can fail: the three keys and the parses spread over the frames' modules before issue 52."""
    pkg = tmp_path / "streamgaze_hf" / "evaluation"
    pkg.mkdir(parents=True)
    for part in FRAMES_MACHINE[1:]:
        (tmp_path / part).mkdir(parents=True, exist_ok=True)
    (pkg / "prefetch.py").write_text(
        "def doc_key(doc):\n"
        "    return (doc['video_path'], str(doc.get('model_ready') or ''))\n\n\n"
        "def _warm_key(doc):\n"
        "    return doc['model_ready']\n", encoding="utf-8")
    (pkg / "schedule.py").write_text(
        "from .model_frames import FramesSpec\n\n\n"
        "def _plan(text):\n"
        "    return FramesSpec.parse(text)\n", encoding="utf-8")
    assert clip_request_places(tmp_path) == {
        "parse": ["streamgaze_hf/evaluation/schedule.py:_plan"],
        "read": ["streamgaze_hf/evaluation/prefetch.py:_warm_key", "streamgaze_hf/evaluation/prefetch.py:doc_key"],
        "key": ["streamgaze_hf/evaluation/prefetch.py:_warm_key", "streamgaze_hf/evaluation/prefetch.py:doc_key"]}


def wrapper_classes(root: Path) -> list[str]:
    """Every class named ``Wrapper`` under ``root``'s package and glue."""
    return sorted(f"{p.relative_to(root).as_posix()}:{n.lineno}"
                  for part in ("streamgaze_hf", "lmms_tasks") for p in sorted((root / part).rglob("*.py"))
                  for n in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
                  if isinstance(n, ast.ClassDef) and n.name == "Wrapper")


def test_there_is_one_wrapper_concept_and_each_family_is_one_module():
    """One ``Wrapper`` (a row of the table: what a wrapper does with a clip; the harness's is the run's choice,
    ``WrapperChoice``), and each family's rows come from its own module of ``evaluation/wrappers/``."""
    from streamgaze_hf.evaluation.model_frames import WRAPPERS

    assert [w.split(":")[0] for w in wrapper_classes(ROOT)] == ["streamgaze_hf/evaluation/wrappers/base.py"]
    modules = {key: row.sample.__module__.rsplit(".", 1)[-1] for key, row in WRAPPERS.items()}
    assert {m for k, m in modules.items() if k.startswith("qwen")} == {"qwen"}
    assert {m for k, m in modules.items() if k.startswith("internvl")} == {"internvl"}
    assert {m for k, m in modules.items() if k.startswith("llava_hf") or k.startswith("streamgaze_llava")} == {"llava"}
    assert set(modules.values()) == {"qwen", "llava", "internvl", "api"}


def test_every_module_of_the_frames_machinery_is_at_most_500_lines():
    """The frames' modules (``evaluation/``, its ``wrappers/``, ``video/``, the glue's reader fixes) stay small
    enough to read whole: model_frames.py had 810 lines, ready.py 697 and prefetch.py 644 before issue 52."""
    paths = [p for folder in ("streamgaze_hf/evaluation", "streamgaze_hf/video") for p in (ROOT / folder).rglob("*.py")]
    long = {p.relative_to(ROOT).as_posix(): n for p in [*paths, ROOT / "lmms_tasks" / "wrappers.py"]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}


# ---- issue 52 item 4, the hand-off to lmms-eval: its arguments read by one function --------------------

#: the one reader of lmms-eval's arguments
LMMS_ARGS_READER = "streamgaze_hf/harness/lmms_args.py"
_LMMS_OPTION = r"""["']--(?:model|model_args|tasks|include_path|limit|output_path|gen_kwargs|force_simple)\b"""
#: a token compared with an lmms-eval option (``a == "--tasks"``, ``a.startswith("--tasks=")``, ``"--x" in args``,
#: ``args.index("--x")``), or a helper of the old readers
_OPTION_READ = re.compile(rf"""(==|!=|startswith\(|index\()\s*{_LMMS_OPTION}|{_LMMS_OPTION}[^"']*["']\s*(==|!=|in\b|not in\b)"""
                          r"|\b(option_value|tasks_arg|requested_tasks|_set_tasks)\(|def _arg\(|\boutput_path\(args")
#: the command line read (not saved, set or restored: harness/run.py hands lmms-eval its arguments through it)
_ARGV_READ = re.compile(r"sys\.argv(?!\s*=[^=])")


def _option_reads(files) -> list[str]:
    found = []
    for p in files:
        for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#", 1)[0]
            in_glue = "lmms_tasks" in p.parts or "harness" in p.parts
            if _OPTION_READ.search(code) or (in_glue and _ARGV_READ.search(code) and "saved = sys.argv" not in code):
                found.append(f"{p.relative_to(ROOT) if p.is_relative_to(ROOT) else p}:{n}")
    return found


def test_lmms_eval_arguments_are_read_by_one_function(tmp_path):
    """lmms-eval's options are read from an argument list only by ``harness/lmms_args.parse_lmms_args`` (argparse,
    as lmms-eval reads them): no other module of the library or the glue compares a token with ``--model``,
    ``--tasks``, ... or reads ``sys.argv`` for them."""
    files = [p for p in _python_files("streamgaze_hf", "lmms_tasks") if p.relative_to(ROOT).as_posix() != LMMS_ARGS_READER]
    assert _option_reads(files) == []
    probe = tmp_path / "harness" / "probe.py"  # the check finds what it looks for
    probe.parent.mkdir()
    probe.write_text('def f(args):\n    if a == "--model" or a.startswith("--tasks="):\n        pass\n'
                     '    if "--include_path" not in args:\n        pass\n    x = option_value(args, "--limit")\n'
                     '    y = sys.argv[1:]\n    sys.argv = ["lmms-eval", *args]\n    z = ["--model", m]\n')
    assert [r.rsplit(":", 1)[1] for r in _option_reads([probe])] == ["2", "4", "6", "7"]


#: what the glue may take from the harness: the one reader of lmms-eval's arguments, the one rule for the frames'
#: wrapper, the task files' run metadata, the wrapper's reading-time measure; never a plan or a run
GLUE_FROM_HARNESS = {"lmms_args", "model", "task_files", "video_time"}


def _harness_uses(files) -> list[str]:
    """Imports of the harness outside :data:`GLUE_FROM_HARNESS`, and any name ``active_plan``/``active``."""
    found = []
    for p in files:
        for n in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            modules = []
            if isinstance(n, ast.ImportFrom) and n.module:
                modules = [n.module] if n.module != "streamgaze_hf.harness" else [
                    f"{n.module}.{a.name}" for a in n.names]
            elif isinstance(n, ast.Import):
                modules = [a.name for a in n.names]
            bad = [m for m in modules if m.startswith("streamgaze_hf.harness")
                   and m.split(".")[2:3] != [] and m.split(".")[2] not in GLUE_FROM_HARNESS]
            bad += [m for m in modules if m == "streamgaze_hf.harness"]
            names = {n.id} if isinstance(n, ast.Name) else {n.attr} if isinstance(n, ast.Attribute) else set()
            if bad or names & {"active_plan", "_ACTIVE"}:
                found.append(f"{p.name}:{n.lineno}")
    return found


def test_the_glue_takes_no_state_from_the_harness(tmp_path):
    """Nothing in lmms_tasks/ asks the harness for the running evaluation (no plan, no ``active_plan``): the run's
    dataset and settings reach the glue through the task files the harness writes (their ``metadata``)."""
    assert _harness_uses(_python_files("lmms_tasks")) == []
    assert not hasattr(importlib.import_module("streamgaze_hf.harness.plan"), "active_plan")
    probe = tmp_path / "probe.py"  # the check finds what it looks for
    probe.write_text("from streamgaze_hf.harness.plan import active_plan\nfrom streamgaze_hf.harness import run\n"
                     "import streamgaze_hf.harness.checks\nfrom streamgaze_hf.harness.lmms_args import parse_lmms_args\n"
                     "plan = active_plan()\n")
    assert _harness_uses([probe]) == ["probe.py:1", "probe.py:2", "probe.py:3", "probe.py:5"]


# ---- public faces (issue 52 item 6): outside code imports a large package's names from its face only ------------

#: the packages with a public face (their __init__): outside code imports from ``streamgaze_hf.<name>`` only
FACED = ("dataset", "gaze", "video", "evaluation", "submission", "leaderboard")


def _module_of(path: Path) -> list[str]:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return parts[:-1] if parts[-1] == "__init__" else parts


def face_bypasses(files) -> list[str]:
    """``file:line`` of every import, in ``files``, of a module inside a faced package from outside that package."""
    found = []
    for path in files:
        mod = _module_of(path)
        here = mod if path.name == "__init__.py" else mod[:-1]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets = []
            if isinstance(node, ast.ImportFrom):
                base = here[:len(here) - node.level + 1] if node.level else []
                targets = [[*base, *(node.module.split(".") if node.module else [])]]
            elif isinstance(node, ast.Import):
                targets = [a.name.split(".") for a in node.names]
            for t in targets:
                if len(t) >= 3 and t[0] == "streamgaze_hf" and t[1] in FACED and mod[:2] != t[:2]:
                    found.append(f"{path.relative_to(ROOT).as_posix()}:{node.lineno}: {'.'.join(t)}")
    return found


def _production_files() -> list[Path]:
    files = [p for top in ("streamgaze_hf", "lmms_tasks", "build_scripts") for p in sorted((ROOT / top).rglob("*.py"))]
    return [p for p in files if not p.is_relative_to(ROOT / "lmms_tasks" / "tasks")]


def test_outside_code_stays_on_the_faces():
    """The faces contract: what a faced package promises to keep is its face's names; nothing outside it imports
    one of its modules."""
    assert face_bypasses(_production_files()) == []


def test_the_face_check_finds_what_it_looks_for(tmp_path):
    probe = tmp_path / "streamgaze_hf" / "cli" / "probe.py"
    probe.parent.mkdir(parents=True)
    probe.write_text("from ..video.clips import cached_clip\nfrom ..video import probe_video\n"
                     "import streamgaze_hf.gaze.track\nfrom streamgaze_hf.dataset import open_dataset\n"
                     "def f():\n    from ..leaderboard.service.sync import sync\n", encoding="utf-8")
    assert _places(face_bypasses, probe, tmp_path) == ["streamgaze_hf/cli/probe.py:1", "streamgaze_hf/cli/probe.py:3",
                                                       "streamgaze_hf/cli/probe.py:6"]


@pytest.mark.parametrize("name", FACED)
def test_every_name_of_a_face_is_there_and_importing_it_loads_nothing(name):
    """Each face's names resolve to their modules' objects; a fresh interpreter importing the package imports none
    of its modules (the names are loaded when first used: the CLI's start-up stays light)."""
    import subprocess
    import sys

    face = importlib.import_module(f"streamgaze_hf.{name}")
    assert face.__all__ and sorted(face.__all__) == face.__all__
    for attr in face.__all__:
        assert getattr(face, attr) is not None, (name, attr)
    code = (f"import sys, streamgaze_hf.{name}; "
            f"print(sorted(m for m in sys.modules if m.startswith('streamgaze_hf.{name}.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_every_top_level_package_is_in_the_dependency_stack():
    """demo/ and benchmarks/ are in the import layers too (.importlinter's stack, docs/architecture.md)."""
    import configparser

    cfg = configparser.ConfigParser()
    cfg.read(ROOT / ".importlinter")
    layers = {m for line in cfg["importlinter:contract:stack"]["layers"].split("\n") for m in line.split(":") if m}
    pkg = ROOT / "streamgaze_hf"
    packages = {f"streamgaze_hf.{p.name}" for p in pkg.iterdir() if (p / "__init__.py").is_file()}
    assert packages == {m.strip() for m in layers}


def test_no_production_module_is_over_500_lines_and_the_median_stays_small():
    """Issue 52's sizes: small modules with names that say what they do (the largest was 810 lines)."""
    sizes = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in _production_files() if p.name != "__init__.py"}
    assert [p for p, n in sizes.items() if n > 500] == []
    ordered = sorted(sizes.values())
    assert ordered[len(ordered) // 2] <= 150
