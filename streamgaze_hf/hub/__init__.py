"""Datasets on the Hugging Face Hub: references, partial fetch, verification, publishing.

* :mod:`.reference`: ``hf://datasets/ORG/NAME@REV`` parsed, its revision resolved to a commit once per run
  (shared with child processes and the ranks of a distributed run), a snapshot directory mapped back to
  its repository and commit;
* :mod:`.fetch`: the files a run needs, downloaded into the standard Hugging Face cache with one
  byte progress bar;
* :mod:`.verify`: every file checked against ``manifest.json`` the first time it is used (memoised by
  file identity);
* :mod:`.client`: the ``huggingface_hub`` download call and its errors.

Above the dataset layer (they use ``dataset``): :mod:`streamgaze_hf.dataset.publish` (``streamgaze publish``:
validate, upload, tag) and :mod:`streamgaze_hf.harness.files` (the files an evaluation needs, fetched and
verified before lmms-eval starts).

Nothing here talks to the Hub at import time: ``huggingface_hub`` is imported inside the functions.
"""
