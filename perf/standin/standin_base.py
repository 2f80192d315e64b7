"""What the stand-ins of perf/model_wait.py share: built, a stand-in sleeps ``$STREAMGAZE_STANDIN_LOAD`` seconds
(default 0: a real model's load, its weights onto the GPU: 10-30 s for a 7B model, no CPU of ours); per request,
:meth:`SleepingReader.read` reads the document's video as the real wrapper does, then the stand-in sleeps
``$STREAMGAZE_STANDIN_SLEEP`` seconds (a model's time on a GPU: no CPU) and answers "A". With
``$STREAMGAZE_STANDIN_TRACE`` set, a stand-in writes there (JSON, wall-clock seconds) when its load began and ended
and when its first read returned: what a test compares with the frame scheduler's timings."""

from __future__ import annotations

import json
import os
import time

from lmms_eval.api.model import lmms


class SleepingReader(lmms):
    def __init__(self) -> None:
        super().__init__()
        self.sleep = float(os.environ["STREAMGAZE_STANDIN_SLEEP"])
        self._rank, self._world_size = 0, 1
        self._trace = {"load_began": time.time()}
        time.sleep(float(os.environ.get("STREAMGAZE_STANDIN_LOAD") or 0))  # the model's load
        self._trace["load_ended"] = time.time()

    def _first_read_returned(self) -> None:
        if "first_read_returned" in self._trace:
            return
        self._trace["first_read_returned"] = time.time()
        if os.environ.get("STREAMGAZE_STANDIN_TRACE"):
            with open(os.environ["STREAMGAZE_STANDIN_TRACE"], "w") as f:
                json.dump(self._trace, f)

    def read(self, request) -> None:
        """Read ``request``'s video with the wrapper's own code (each stand-in's)."""
        raise NotImplementedError

    def generate_until(self, requests):
        """In the real wrappers' order: longest prompt first (lmms-eval's ``Collator`` with ``-len(tokens)``; the
        prompt's characters stand for its tokens), answers back in the requests' order."""
        out = [""] * len(requests)
        order = sorted(range(len(requests)), key=lambda i: (-len(str(requests[i].args[0])), str(requests[i].args[0])))
        for i in order:
            self.read(requests[i])
            self._first_read_returned()
            time.sleep(self.sleep)
            out[i] = "A"
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError
