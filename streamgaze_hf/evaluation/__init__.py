"""What a model is shown, the same way for every benchmark and harness.

* ``settings.py``: :class:`~.settings.RunSettings`, the run's settings (prompt mode, clip fps, protocol,
  proxy, prefetch), built from the environment only at the edges and recorded with every document;
* ``visuals.py``: window clips and salience images for a document (no frame after the window's end),
  gaze as known at a window's end;
* ``prefetch.py``: clips ready before the model asks: in the background during a run, or ahead of it
  (``streamgaze clips warm``);
* ``protocols.py``: the official harness's per-family frame sampling and generation (``--protocol``);
* ``prompts.py``: prompt modes and the default multiple-choice block;
* ``baselines.py``: the random and oracle baselines' answers.
"""
