"""util/imports.py: a deferred module loads on the first use of one of its names (and not on a second ``import``
statement); a callback waits for its module's import. Each in a fresh interpreter (``sys.modules`` is the
interpreter's own)."""

from __future__ import annotations

import subprocess
import sys
import textwrap


def _run(tmp_path, code: str) -> list[str]:
    (tmp_path / "slowmod").mkdir()
    (tmp_path / "slowmod" / "__init__.py").write_text("print('slowmod executed')\nVALUE = 42\n")
    (tmp_path / "slowmod" / "part.py").write_text("print('slowmod.part executed')\nTHING = 'thing'\n")
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=tmp_path, capture_output=True,
                          text=True, check=True)
    return proc.stdout.splitlines()


def test_a_deferred_module_loads_on_first_use_only(tmp_path):
    out = _run(tmp_path, """
        import importlib.util, sys
        from streamgaze_hf.util.imports import defer_import
        print(defer_import("slowmod"), defer_import("slowmod"), defer_import("no_such_module_here"))
        import slowmod
        import slowmod as again  # the import system reads __spec__: not a use
        print("imported", importlib.util.find_spec("slowmod").name)
        print(slowmod.VALUE, again.VALUE, type(sys.modules["slowmod"]).__name__)
    """)
    assert out == ["True False False", "imported slowmod", "slowmod executed", "42 42 module"]


def test_a_callback_runs_when_its_module_is_imported_and_never_before(tmp_path):
    out = _run(tmp_path, """
        from streamgaze_hf.util.imports import when_imported
        when_imported("slowmod.part", lambda m: print("callback", m.THING))
        when_imported("sys", lambda m: print("already", m.__name__))
        print("before")
        import slowmod.part
        import slowmod.part
    """)
    assert out == ["already sys", "before", "slowmod executed", "slowmod.part executed", "callback thing"]
