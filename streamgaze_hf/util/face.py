"""A package's public face (issue 52; docs/architecture.md "Public faces"): the ``__getattr__`` and ``__dir__`` of an
``__init__.py`` that lists the names the package promises to keep, each looked up in the module that defines it
when it is used. Nothing is imported with the package (the CLI's start-up stays light) and nothing is cached in
the face, so a test's patch of a module is what every caller gets."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module


def lazy_face(package: str, names: Mapping[str, str],
              modules: Mapping[str, str] | None = None) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of the face of ``package`` (its ``__name__``).

    Args:
        package: the package's ``__name__``.
        names: public name -> the module of the package (relative, e.g. ``"clips"``) that defines it.
        modules: public name -> a module of the package that outside code uses as a whole.
    """
    modules = dict(modules or {})

    def getattr_(name: str) -> object:
        if name in modules:
            return import_module(f".{modules[name]}", package)
        if name in names:
            return getattr(import_module(f".{names[name]}", package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def dir_() -> list[str]:
        return sorted({*vars(import_module(package)), *names, *modules})

    return getattr_, dir_
