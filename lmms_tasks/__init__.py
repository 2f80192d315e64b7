"""lmms-eval glue: the task functions, baseline models and wrapper fixes.

The built-in benchmarks' task files are package data under ``tasks/<benchmark>/`` (rendered from the registry
by ``streamgaze_hf/harness/task_files.py``, which also finds them and renders another package's benchmark
into the user's cache: ``streamgaze tasks-dir`` prints the folder). The functions the template names live in
``utils.py`` (the one glue module); each folder's generated ``glue.py`` holds the functions its task files
name, one-line calls into ``utils.py``.
"""
