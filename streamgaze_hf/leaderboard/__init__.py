"""What is shown of submissions: the static site and the leaderboard service on the Hub.

* ``rows.py``, ``sections.py``, ``cells.py``: rows and columns (from each benchmark's declared layout), one
  section per dataset (rows ranked only within their dataset), safe cell text;
* ``page.py``, ``chart.py``, ``site.py``: the HTML page, the per-task chart, the whole static site
  (``streamgaze leaderboard``); ``fit.py``: which of a table's columns show at 1280 px;
* ``service/``: the leaderboard on the Hub (push, sync, results dataset, the Gradio app and its Space).

Nothing here names a benchmark: every layout comes from the registry.
"""

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from .cells import csv_safe, md_escape
    from .rows import Row, category_means
    from .service.app import serve
    from .service.create import init_leaderboard
    from .service.eval_requests import open_request
    from .service.flags import flag, unflag
    from .service.hub_push import push_submission
    from .service.job_run import run_request
    from .service.jobs import DEFAULT_IMAGE, JobSettings, parse_duration
    from .service.model_checks import model_page
    from .service.space import write_space
    from .service.sync import SyncOptions, sync
    from .site import write_leaderboard

#: public name -> the module of the package that defines it
_FACE = {
    "csv_safe": "cells",
    "md_escape": "cells",
    "Row": "rows",
    "category_means": "rows",
    "serve": "service.app",
    "init_leaderboard": "service.create",
    "open_request": "service.eval_requests",
    "flag": "service.flags",
    "unflag": "service.flags",
    "push_submission": "service.hub_push",
    "run_request": "service.job_run",
    "DEFAULT_IMAGE": "service.jobs",
    "JobSettings": "service.jobs",
    "parse_duration": "service.jobs",
    "model_page": "service.model_checks",
    "write_space": "service.space",
    "SyncOptions": "service.sync",
    "sync": "service.sync",
    "write_leaderboard": "site",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
}
__all__ = [
    "DEFAULT_IMAGE", "JobSettings", "Row", "SyncOptions", "category_means", "csv_safe", "flag", "init_leaderboard",
    "md_escape", "model_page", "open_request", "parse_duration", "push_submission", "run_request", "serve", "sync",
    "unflag", "write_leaderboard", "write_space",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
