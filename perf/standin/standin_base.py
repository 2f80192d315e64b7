"""What the stand-ins of perf/model_wait.py share: per request, :meth:`SleepingReader.read` reads the document's
video as the real wrapper does, then the stand-in sleeps ``$STREAMGAZE_STANDIN_SLEEP`` seconds (a model's time on
a GPU: no CPU) and answers "A"."""

from __future__ import annotations

import os
import time

from lmms_eval.api.model import lmms


class SleepingReader(lmms):
    def __init__(self) -> None:
        super().__init__()
        self.sleep = float(os.environ["STREAMGAZE_STANDIN_SLEEP"])
        self._rank, self._world_size = 0, 1

    def read(self, request) -> None:
        """Read ``request``'s video with the wrapper's own code (each stand-in's)."""
        raise NotImplementedError

    def generate_until(self, requests):
        out = []
        for req in requests:
            self.read(req)
            time.sleep(self.sleep)
            out.append("A")
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError
