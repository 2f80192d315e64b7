"""Stand-in models for perf/model_wait.py (on PYTHONPATH of its lmms-eval runs when $STREAMGAZE_STANDIN_SLEEP is
set): lmms-eval's ``qwen2_5_vl`` chat wrapper is replaced by :class:`standin_qwen.QwenReader` and its
``llava_hf`` simple class (``--force_simple``) by :class:`standin_llava.LlavaReader`; each reads each document's video exactly as
that wrapper does and then sleeps instead of generating. The table of model-ready frames still sees the
wrapper's id and kind: the run gets the frames that wrapper would get."""

import os

if os.environ.get("STREAMGAZE_STANDIN_SLEEP"):
    from lmms_eval.models import MODEL_REGISTRY_V2
    from lmms_eval.models.registry_v2 import ModelManifest

    MODEL_REGISTRY_V2.register_manifest(ModelManifest(model_id="qwen2_5_vl", chat_class_path="standin_qwen.QwenReader"),
                                        overwrite=True)
    MODEL_REGISTRY_V2.register_manifest(ModelManifest(model_id="llava_hf", simple_class_path="standin_llava.LlavaReader"),
                                        overwrite=True)
