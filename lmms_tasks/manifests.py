"""Entry point ``lmms_eval.models``: the StreamGaze baseline models and our fixed wrappers.

Only ``lmms_eval.models.registry_v2`` is imported here: this runs while ``lmms_eval.models`` is
still initialising.
"""

from lmms_eval.models.registry_v2 import ModelManifest


def get_manifests():
    return [
        ModelManifest(model_id="streamgaze_random", simple_class_path="lmms_tasks.models.RandomBaseline"),
        ModelManifest(model_id="streamgaze_oracle", simple_class_path="lmms_tasks.models.OracleBaseline"),
        ModelManifest(model_id="streamgaze_llava_hf", chat_class_path="lmms_tasks.llava_hf_chat.LlavaHfChat"),
    ]
