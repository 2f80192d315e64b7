"""What every command module of the CLI shares: the command table, hidden sub-commands, the dataset
argument and the registered benchmarks' names."""

from __future__ import annotations

import argparse
import contextlib
import sys
import warnings
from collections.abc import Callable, Iterator

from ..util.errors import StreamGazeError
from .usage import Parser

Handler = Callable[[argparse.Namespace], "int | None"]
Configure = Callable[[argparse.ArgumentParser], Handler]
#: name -> (help, configure), in the order the command modules register them (the help's order)
COMMANDS: dict[str, tuple[str, Configure]] = {}


def command(name: str, help: str) -> Callable[[Configure], Configure]:
    """Register a sub-command: the decorated function adds its arguments and returns its handler."""

    def deco(configure: Configure) -> Configure:
        COMMANDS[name] = (help, configure)
        return configure

    return deco


def note(text: str) -> None:
    """One ``streamgaze: note: ...`` line on stderr."""
    print(f"streamgaze: note: {text}", file=sys.stderr)


@contextlib.contextmanager
def video_assumptions() -> Iterator[None]:
    """What a reader assumed for want of the scene video (gaze/sources/wearable.py ``AssumedVideoWarning``)
    becomes one ``streamgaze: warning: ...`` line on stderr offering ``--video``; other warnings pass on."""
    from ..gaze import AssumedVideoWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", AssumedVideoWarning)
        yield
    for w in caught:
        if issubclass(w.category, AssumedVideoWarning):
            print(f"streamgaze: warning: {w.message}; give --video SCENE.mp4 to use the video's own", file=sys.stderr)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)


def deprecated(old: str, new: str) -> None:
    """The one line an old command name prints before it runs as the new one."""
    note(f"'{old}' is deprecated; use '{new}'")


def benchmark_names() -> list[str]:
    """The registered benchmarks' names (``--benchmark`` choices), in registry order (StreamGaze first)."""
    from ..registry import benchmarks

    return [b.name for b in benchmarks()]


def add_dataset(p: argparse.ArgumentParser, help: str = "dataset root") -> None:
    """The dataset a command reads: ``--dataset ROOT`` or (the older form) the positional ``ROOT``."""
    p.add_argument("root", nargs="?", default=None, metavar="ROOT", help=f"{help} (the same as --dataset)")
    p.add_argument("--dataset", default=None, help=f"{help}; its manifest says which benchmark it is")


def dataset_reference(a: argparse.Namespace) -> str:
    """The dataset reference given as ``--dataset`` or positionally (one of them, or both the same)."""
    if a.root and a.dataset and a.root != a.dataset:
        raise StreamGazeError(f"two dataset roots: {a.root} and --dataset {a.dataset}; give one")
    root = a.dataset or a.root
    if not root:
        raise StreamGazeError("which dataset? give --dataset ROOT")
    return root


class _Refusal(Parser):
    """A sub-command that takes any arguments and runs its one handler (see :func:`hidden_parser`)."""

    def __init__(self, prog: str, handler: Handler) -> None:
        super().__init__(prog=prog, add_help=False)
        self._refusal = handler

    def parse_known_args(self, args=None, namespace=None):
        namespace = namespace or argparse.Namespace()
        namespace._handler, namespace._parser = self._refusal, self
        return namespace, []


def hidden_parser(sub: argparse._SubParsersAction, name: str, message: str) -> None:
    """A sub-command kept out of the help that only says ``message`` (one error line), whatever its
    arguments (e.g. ``import vl4gaze``: VL4Gaze has only a raw build)."""

    def run(a: argparse.Namespace) -> int:
        raise StreamGazeError(message)

    sub.choices[name] = _Refusal(f"{sub._prog_prefix} {name}", run)


def proxy_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--proxy-fps", type=float, default=None,
                   help="also store a proxy of every video at this frame rate (default 2 when --proxy-size is given)")
    p.add_argument("--proxy-size", type=int, default=None,
                   help="the proxies' longer side in pixels (default 448 when --proxy-fps is given)")


def executor_args(p: argparse.ArgumentParser, what: str) -> None:
    """``--workers N``, ``--executor local|ray`` and ``--ray-address ADDRESS``: where a command's per-video work
    (``what``) runs, the same options on every verb (util/executors.py, docs/scale.md)."""
    p.add_argument("--workers", type=int, default=1, help=f"local worker processes over {what} (default 1)")
    p.add_argument("--executor", default="local", choices=["local", "ray"],
                   help="where the per-video work runs: local (processes of this machine, default) or ray (tasks "
                        "on a Ray cluster; every node sees the inputs and outputs at the same paths: docs/scale.md)")
    p.add_argument("--ray-address", default="", metavar="ADDRESS",
                   help="the Ray cluster's address, HOST:PORT (--executor ray; default: $RAY_ADDRESS)")


def workers_of(a: argparse.Namespace):
    """The :class:`~streamgaze_hf.util.executors.Workers` of :func:`executor_args`' options."""
    from ..util.executors import Workers

    return Workers(count=a.workers, executor=a.executor, address=a.ray_address)


def vlm_key_arg(p: argparse.ArgumentParser) -> None:
    """``--vlm-api-key-env VAR``: the environment variable holding the VLM endpoint's API key (never the key)."""
    p.add_argument("--vlm-api-key-env", default="", metavar="VAR",
                   help="the environment variable that holds the VLM endpoint's API key, sent as a Bearer token "
                        "(e.g. OPENAI_API_KEY; the key is never taken from the command line, printed or recorded; "
                        "default: no key)")


def vlm_gpus_arg(p: argparse.ArgumentParser) -> None:
    """``--vlm-gpus G``: the GPUs each recording's task asks a Ray cluster for when the VLM is a model served on
    the node itself (util/executors.py ``check_gpu_ask``, docs/scale.md)."""
    p.add_argument("--vlm-gpus", type=float, default=0.0, metavar="G",
                   help="with --executor ray: GPUs each recording's task asks the cluster for, when the VLM endpoint "
                        "is a model served on every GPU node itself (e.g. --vlm-url http://127.0.0.1:8000/v1): Ray "
                        "then runs the tasks on those nodes only, as many at once as their GPUs allow (default 0)")


def previews_arg(p: argparse.ArgumentParser) -> None:
    """``--previews`` / ``--no-previews``: the Hub-facing ``previews`` config (dataset/viewer.py), on by default."""
    p.add_argument("--previews", action=argparse.BooleanOptionalAction, default=True,
                   help="store a small preview of every video (the overlay, else the original: 2 fps, 144 px short "
                        "side) as the `previews` config the Hub's dataset viewer plays (default: on)")


def raw_common(p: argparse.ArgumentParser, out_example: str) -> None:
    """The options of every ``build BENCH``: ``--raw``, ``--out``, ``--version``, ``--force``, ``--changelog``,
    ``--previews``."""
    p.add_argument("--raw", required=True, help="raw directory in the source's native layout (docs/datasets.md)")
    p.add_argument("--out", required=True, help=f"dataset root to write (e.g. {out_example})")
    p.add_argument("--version", required=True, help="semantic version X.Y.Z of this build")
    p.add_argument("--force", action="store_true", help="overwrite an existing dataset of the same version")
    p.add_argument("--changelog", default="", help="text of this version's CHANGELOG entry")
    previews_arg(p)


def release_common(p: argparse.ArgumentParser, src_help: str, out_example: str) -> None:
    """The options of every ``import BENCH``: ``SRC``, ``--out``, ``--version``, ``--strict``, ``--force``,
    ``--previews``, and where its per-video work (proxies, previews) runs (:func:`executor_args`)."""
    p.add_argument("release_dir", metavar="SRC", help=src_help)
    p.add_argument("--out", required=True, help=f"dataset root to write (e.g. {out_example})")
    p.add_argument("--version", required=True, help="semantic version X.Y.Z of this dataset")
    p.add_argument("--strict", action="store_true", help="fail on the first unusable row instead of skipping it")
    p.add_argument("--force", action="store_true", help="overwrite an existing dataset of the same version")
    previews_arg(p)
    executor_args(p, "videos (their proxies and previews)")
