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
        if rel == ADAPTER:
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
