"""What is shown of submissions: the static site and the leaderboard service on the Hub.

* ``rows.py``, ``sections.py``, ``cells.py``: rows and columns (from each benchmark's declared layout), one
  section per dataset (rows ranked only within their dataset), safe cell text;
* ``page.py``, ``chart.py``, ``site.py``: the HTML page, the per-task chart, the whole static site
  (``streamgaze leaderboard``); ``fit.py``: which of a table's columns show at 1280 px;
* ``service/``: the leaderboard on the Hub (push, sync, results dataset, the Gradio app and its Space).

Nothing here names a benchmark: every layout comes from the registry.
"""
