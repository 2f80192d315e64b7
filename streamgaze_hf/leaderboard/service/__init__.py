"""The leaderboard as a service on the Hub (docs/leaderboard.md "The leaderboard on the Hub").

* :mod:`.untrusted`: the limits a submission from anyone meets before it is parsed or scored (size, depth,
  time), the repository paths of submission files, and Markdown-safe text for pull-request comments;
* :mod:`.bounded`: re-scoring in a child process under a time bound;
* :mod:`.hub_push`: ``streamgaze push-submission`` / ``submit --push``: a pull request adding one file;
* :mod:`.results`: the results dataset (one parquet config per benchmark, one for its paper rows, card, site);
* :mod:`.sync`: ``streamgaze leaderboard sync``: review, comment, merge or close, upsert, render;
* :mod:`.app` and :mod:`.space`: the Gradio app (``leaderboard serve``) and its Space folder.

Nothing here names a benchmark: every layout comes from the registry.
"""
