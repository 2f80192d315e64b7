"""The wrapper table: every lmms-eval 0.7.3 video wrapper whose sampler and resize the toolkit knows, by
``"<model id>/<kind>"``, gathered from the family modules (each family's sampler, frame size and layout in one
module: ``qwen.py``, ``llava.py``, ``internvl.py``, ``api.py``), in the order the documentation lists them."""

from __future__ import annotations

from . import api, internvl, llava, qwen
from .base import Wrapper

#: the rows' order (the documentation's and the tests' parametrisation)
ORDER = ("qwen2_5_vl/chat", "qwen2_5_vl/simple", "llava_hf/simple", "streamgaze_llava_hf/chat",
         "llava_onevision/simple", "internvl_hf/chat", "internvl2/simple", "internvl3/simple", "internvl3_5/simple",
         "openai/simple", "qwen3_vl/simple", "qwen3_vl/chat", "qwen3_5/simple", "qwen3_5/chat",
         "llava_onevision1_5/chat", "llava_onevision1_5/simple", "openai/chat", "vllm/chat", "async_openai/chat",
         "gpt4v/simple", "batch_gpt4/simple")
_ROWS = {w.key: w for family in (qwen, llava, internvl, api) for w in family.ROWS}
if sorted(_ROWS) != sorted(ORDER):
    raise AssertionError(f"the table's order and its families' rows differ: {sorted(set(_ROWS) ^ set(ORDER))}")

#: lmms-eval 0.7.3's video wrappers whose sampler and resize the toolkit knows, by "<model id>/<kind>"
WRAPPERS: dict[str, Wrapper] = {key: _ROWS[key] for key in ORDER}
#: lmms-eval aliases of the table's model ids
ALIASES = {"openai_compatible": "openai"}
