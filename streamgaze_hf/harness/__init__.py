"""Running lmms-eval over the toolkit's tasks (``streamgaze eval``): the run, and what it needs and leaves.

* ``run.py``: lmms-eval's CLI in this process over the run's task folder (its templates name the run's dataset
  and settings for the glue; its task-index patch), the run's settings recorded in its results files;
* ``process.py``: the process settings lmms-eval gets (honest version banner, no ``datasets`` bars);
* ``lmms_args.py``: lmms-eval's arguments read once, as its argparse reads them (the one reader);
* ``checks.py``: the requested tasks planned against the dataset before the run, the results required after;
* ``files.py``: the files a run's tasks read and show, fetched and verified before it starts.

What a run logged (``--log_samples``) is read by :mod:`streamgaze_hf.submission.lmms_output`.
"""
