"""Imports that wait until they are needed: :func:`defer_import` and :func:`when_imported`.

A ``streamgaze eval`` process runs lmms-eval in itself, and two imports there cost seconds that most runs never
use (``perf/eval_startup.py``: 3.2 CPU seconds of a small run's 12.6 on the 2-core machine):

* lmms-eval's metric registry imports Hugging Face ``evaluate`` at its top (``lmms_eval/api/registry.py``) for one
  fallback, ``get_metric(name, hf_evaluate_metric=True)``; importing ``evaluate`` imports ``transformers.pipelines``
  and with it ``torch._dynamo``. :func:`defer_import` puts a stand-in in its place: the module is imported, as
  usual, on the first use of one of its names.
* the wrapper's reading time (``harness/video_time.py``) wraps torchcodec's decoder, whose import also imports
  ``torch._dynamo``. :func:`when_imported` wraps it when something imports it, not before.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import sys
import threading
import types
from collections.abc import Callable

__all__ = ["defer_import", "when_imported"]

_lock = threading.Lock()
_waiting: dict[str, list[Callable]] = {}


class _Deferred(types.ModuleType):
    """Stands in ``sys.modules`` for a module not imported yet: its first attribute lookup that is not one of the
    import system's own (``__spec__``, ``__name__``, ...) imports the real module, which then replaces it there."""

    def __getattr__(self, attr: str):
        name = self.__name__
        with _lock:
            if sys.modules.get(name) is self:
                del sys.modules[name]
        real = importlib.import_module(name)
        return getattr(real, attr)


def defer_import(name: str) -> bool:
    """Make ``import name`` cheap until the module is used (module docstring). Returns whether it was deferred: not
    when it is imported already, or not installed.

    (The standard library's ``importlib.util.LazyLoader`` does not do here: a second ``import name`` reads the
    module's ``__spec__``, and that alone makes it load.)"""
    if name in sys.modules:
        return False
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return False
    stand_in = _Deferred(name)
    stand_in.__spec__ = spec
    stand_in.__file__ = spec.origin
    if spec.submodule_search_locations is not None:
        stand_in.__path__ = list(spec.submodule_search_locations)
    sys.modules[name] = stand_in
    return True


class _Finder(importlib.abc.MetaPathFinder):
    """Finds nothing itself: for a module :func:`when_imported` waits for, it wraps the real loader so that the
    callbacks run once the module is executed."""

    def find_spec(self, fullname, path, target=None):
        with _lock:
            if fullname not in _waiting:
                return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        run = loader.exec_module

        def exec_module(module):
            run(module)
            with _lock:
                callbacks = _waiting.pop(fullname, [])
            for callback in callbacks:
                callback(module)

        loader.exec_module = exec_module
        return spec


_FINDER = _Finder()


def when_imported(name: str, callback: Callable) -> None:
    """Call ``callback(module)`` once the module ``name`` is imported: now when it is, else right after its import
    (once; a module that is never imported never calls it)."""
    module = sys.modules.get(name)
    if module is not None:
        callback(module)
        return
    with _lock:
        _waiting.setdefault(name, []).append(callback)
        if _FINDER not in sys.meta_path:
            sys.meta_path.insert(0, _FINDER)
