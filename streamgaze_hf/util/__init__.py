"""What every part of the toolkit leans on; imports nothing else of the toolkit.

* ``errors.py``: :class:`StreamGazeError` (bad input: one line naming the file and the reason, exit 2);
* ``fsutil.py``: outputs written to a temporary name and moved into place when complete;
* ``preflight.py``: argument checks run before any long work;
* ``provenance.py``: what a run records of what produced it (toolkit version and commit, lmms-eval and
  datasets versions), model arguments with secrets redacted;
* ``environment.py``: the installed packages against ``uv.lock`` and the declared ranges (``doctor``);
* ``htmlpage.py``: the head and attribute escaping every generated HTML page shares;
* ``imports.py``: imports that wait until they are needed (a module deferred to its first use; a callback run
  when a module is imported).
"""
