"""The leaderboard as a service on the Hub (docs/leaderboard.md "The leaderboard on the Hub").

* :mod:`.untrusted`: the limits a submission from anyone meets before it is parsed or scored (size, depth,
  time), the repository paths of submission files, and Markdown-safe text for pull-request comments;
* :mod:`.bounded`: untrusted work in a child process under time and memory bounds (any failure: one line);
* :mod:`.verdict`: everything that reads a submission file (parse, path, pinning, re-score, row), in the child;
* :mod:`.pinning`: the dataset commits the maintainer listed, the only answer keys;
* :mod:`.ledger`: the scored bytes committed by the sync itself (``Accept #N`` commits on ``main``);
* :mod:`.identity`, :mod:`.names`, :mod:`.quota`, :mod:`.model_checks`: who submitted, look-alike names, the
  per-submitter quota, the Hub model a submission names;
* :mod:`.hub_push`: ``streamgaze push-submission`` / ``submit --push``: a pull request adding one file;
* :mod:`.results` and :mod:`.results_repo`: the results dataset (one parquet config per benchmark, one for its
  paper rows, card, site; the maintainers' ``leaderboard.yaml`` and ``flags.json``), read and written at one
  head; :mod:`.flags`: ``leaderboard flag`` / ``unflag``;
* :mod:`.sync`: ``streamgaze leaderboard sync``: review, accept or close, upsert, render; :mod:`.acceptance`: what
  makes a pull request acceptable (ordered small checks), over :mod:`.sync_state` (the one snapshot of the state
  they read); :mod:`.requests_hub`: every read and write of the requests dataset (the Hub adapter);
  :mod:`.eval_results`: results on the model's page (``--model-card-prs``);
* :mod:`.app` and :mod:`.space`: the Gradio app (``leaderboard serve``) and its Space folder;
* evaluated by the leaderboard: :mod:`.eval_requests` (the request file, ``request-eval``), :mod:`.eval_queue`
  (``queue.json``: PENDING, RUNNING, FINISHED, FAILED), :mod:`.jobs` (Hub Jobs), :mod:`.evaluations` (the sync's
  step that runs the queue), :mod:`.job_run` (what a job runs: ``leaderboard run-request``); :mod:`.comments`: the
  re-scored table of a pull-request comment.

Nothing here names a benchmark: every layout comes from the registry.
"""
