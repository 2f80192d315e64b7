"""Tiny random-weight checkpoints of real VLM architectures, built locally (never downloaded).

Each builder writes a directory laid out like a Hub checkpoint (config, safetensors weights, tokenizer,
processor, chat template) that lmms-eval's own wrappers load with ``from_pretrained``. The tokenizer is
a byte-level BPE trained here on a few prompt sentences; the vision/text towers are one or two layers
wide enough to run on a CPU in milliseconds.

Random weights would often emit an end-of-text or another special token first (an empty response after
``skip_special_tokens``): the output-projection rows of every special token are zeroed so that greedy
decoding always produces ordinary text.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

CORPUS = [
    "Answer with the option's letter from the given choices directly. A. pot B. cup C. knife D. bowl",
    "Is the user gazing at the pot now? Answer Yes or No. Yes No",
    "The red circle marks where the user is looking. Fixations: (0.41, 0.52) from 3.0 s to 5.5 s.",
    "Which object did the user look at first? The first image is a gaze salience map of the window.",
    "You are a helpful assistant. user assistant system video image",
]

QWEN_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|vision_start|>", "<|vision_end|>",
                "<|image_pad|>", "<|video_pad|>"]
# Written for these tests (same message structure as the Qwen2-VL family's template: system / user /
# assistant turns; image and video parts become <|vision_start|><|image_pad|><|vision_end|> etc.).
QWEN_CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{%- if loop.first and message['role'] != 'system' -%}"
    "<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n{%- endif -%}"
    "<|im_start|>{{ message['role'] }}\n"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' or 'image' in part or 'image_url' in part -%}"
    "<|vision_start|><|image_pad|><|vision_end|>"
    "{%- elif part['type'] == 'video' or 'video' in part -%}"
    "<|vision_start|><|video_pad|><|vision_end|>"
    "{%- elif 'text' in part -%}{{ part['text'] }}{%- endif -%}"
    "{%- endfor -%}{%- endif -%}<|im_end|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)

LLAVA_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<image>", "<video>"]
LLAVA_CHAT_TEMPLATE = (
    "{%- for message in messages -%}<|im_start|>{{ message['role'] }}\n"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] if part['type'] in ('image', 'video') -%}"
    "{{ '<image>' if part['type'] == 'image' else '<video>' }}\n{%- endfor -%}"
    "{%- for part in message['content'] if part['type'] == 'text' -%}{{ part['text'] }}{%- endfor -%}"
    "{%- endif -%}<|im_end|>\n{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)


def _bpe_tokenizer(special: list[str], vocab_size: int = 400):
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    tok.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(vocab_size=vocab_size, special_tokens=special,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(CORPUS, trainer=trainer)
    return tok


def _qwen_tokenizer():
    """The Qwen family's tokenizer (a byte-level BPE with Qwen's special tokens) and its special tokens' ids."""
    from transformers import Qwen2TokenizerFast

    tok = Qwen2TokenizerFast(tokenizer_object=_bpe_tokenizer(QWEN_SPECIAL), eos_token="<|im_end|>",
                             pad_token="<|endoftext|>", unk_token=None, bos_token=None)
    return tok, {t: tok.convert_tokens_to_ids(t) for t in QWEN_SPECIAL}


def _save(out: Path, model, processor, tok, ids: dict, eos: str, pad: str, template: str) -> Path:
    """Silence the special tokens (never generated first), set the generation's end and padding, save all three."""
    _silence_special_tokens(model, list(ids.values()))
    model.generation_config.eos_token_id = ids[eos]
    model.generation_config.pad_token_id = ids[pad]
    tok.chat_template = template
    model.save_pretrained(out)
    processor.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _silence_special_tokens(model, token_ids: list[int]) -> None:
    import torch

    with torch.no_grad():
        head = model.get_output_embeddings().weight
        head[token_ids] = 0.0


def build_qwen2_5_vl(out: Path, seed: int = 0) -> Path:
    """A Qwen2.5-VL checkpoint (Qwen2_5_VLForConditionalGeneration + Qwen2_5_VLProcessor)."""
    import torch
    from transformers import (
        Qwen2_5_VLConfig,
        Qwen2_5_VLForConditionalGeneration,
        Qwen2_5_VLProcessor,
        Qwen2VLImageProcessor,
        Qwen2VLVideoProcessor,
    )

    torch.manual_seed(seed)
    tok, ids = _qwen_tokenizer()
    config = Qwen2_5_VLConfig(
        text_config={"vocab_size": len(tok), "hidden_size": 64, "intermediate_size": 128, "num_hidden_layers": 2,
                     "num_attention_heads": 2, "num_key_value_heads": 1, "max_position_embeddings": 32768,
                     "rope_scaling": {"type": "mrope", "mrope_section": [4, 6, 6]}, "tie_word_embeddings": False,
                     "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"], "bos_token_id": None},
        vision_config={"depth": 2, "hidden_size": 32, "intermediate_size": 64, "num_heads": 2, "out_hidden_size": 64,
                       "patch_size": 14, "spatial_merge_size": 2, "temporal_patch_size": 2, "window_size": 56,
                       "fullatt_block_indexes": [1], "in_channels": 3},
        image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
        eos_token_id=ids["<|im_end|>"], pad_token_id=ids["<|endoftext|>"], tie_word_embeddings=False,
    )
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    processor = Qwen2_5_VLProcessor(image_processor=Qwen2VLImageProcessor(), tokenizer=tok,
                                    video_processor=Qwen2VLVideoProcessor(), chat_template=QWEN_CHAT_TEMPLATE)
    return _save(out, model, processor, tok, ids, "<|im_end|>", "<|endoftext|>", QWEN_CHAT_TEMPLATE)


def build_llava_onevision(out: Path, seed: int = 0) -> Path:
    """A LLaVA-OneVision checkpoint (LlavaOnevisionForConditionalGeneration + its processor)."""
    import torch
    from transformers import (
        LlavaOnevisionConfig,
        LlavaOnevisionForConditionalGeneration,
        LlavaOnevisionImageProcessor,
        LlavaOnevisionProcessor,
        LlavaOnevisionVideoProcessor,
        Qwen2TokenizerFast,
    )

    torch.manual_seed(seed)
    tok = Qwen2TokenizerFast(tokenizer_object=_bpe_tokenizer(LLAVA_SPECIAL), eos_token="<|im_end|>",
                             pad_token="<|endoftext|>", unk_token=None, bos_token=None)
    ids = {t: tok.convert_tokens_to_ids(t) for t in LLAVA_SPECIAL}
    size = 112  # frames this small still carry the demo world's frame codes (the e2e probe reads them)
    config = LlavaOnevisionConfig(
        text_config={"model_type": "qwen2", "vocab_size": len(tok), "hidden_size": 64, "intermediate_size": 128,
                     "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                     "tie_word_embeddings": False, "eos_token_id": ids["<|im_end|>"]},
        vision_config={"model_type": "siglip_vision_model", "hidden_size": 32, "intermediate_size": 64,
                       "num_hidden_layers": 2, "num_attention_heads": 2, "image_size": size, "patch_size": 14},
        image_token_index=ids["<image>"], video_token_index=ids["<video>"], vision_feature_layer=-1,
        image_grid_pinpoints=[[size, size]], tie_word_embeddings=False,
    )
    model = LlavaOnevisionForConditionalGeneration(config).eval()
    _silence_special_tokens(model, list(ids.values()))
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    image_processor = LlavaOnevisionImageProcessor(size={"height": size, "width": size}, crop_size=size,
                                                   image_grid_pinpoints=[[size, size]])
    video_processor = LlavaOnevisionVideoProcessor(size={"height": size, "width": size})
    processor = LlavaOnevisionProcessor(image_processor=image_processor, tokenizer=tok, video_processor=video_processor,
                                        chat_template=LLAVA_CHAT_TEMPLATE, num_image_tokens=(size // 14) ** 2,
                                        vision_feature_select_strategy="full", image_token="<image>",
                                        video_token="<video>")
    tok.chat_template = LLAVA_CHAT_TEMPLATE
    model.save_pretrained(out)
    processor.save_pretrained(out)
    tok.save_pretrained(out)
    return out


INTERNVL_SPECIAL = ["<|endoftext|>", "<|im_start|>", "<|im_end|>", "<img>", "</img>", "<IMG_CONTEXT>", "<video>"]
INTERNVL_CHAT_TEMPLATE = (
    "{%- for message in messages -%}<|im_start|>{{ message['role'] }}\n"
    "{%- if message['content'] is string -%}{{ message['content'] }}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'image' -%}<IMG_CONTEXT>\n{%- elif part['type'] == 'video' -%}<video>\n"
    "{%- elif part['type'] == 'text' -%}{{ part['text'] }}{%- endif -%}{%- endfor -%}{%- endif -%}<|im_end|>\n"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}<|im_start|>assistant\n{%- endif -%}"
)


def build_internvl_hf(out: Path, seed: int = 0) -> Path:
    """An InternVL checkpoint in the Hugging Face layout (InternVLForConditionalGeneration + InternVLProcessor,
    what lmms-eval's ``internvl_hf`` wrapper loads): a one-layer 56 px vision tower and its video processor."""
    import torch
    from transformers import (
        GotOcr2ImageProcessor,
        InternVLConfig,
        InternVLForConditionalGeneration,
        InternVLProcessor,
        InternVLVideoProcessor,
        Qwen2TokenizerFast,
    )

    torch.manual_seed(seed)
    size = 56
    tok = Qwen2TokenizerFast(tokenizer_object=_bpe_tokenizer(INTERNVL_SPECIAL), eos_token="<|im_end|>",
                             pad_token="<|endoftext|>", unk_token=None, bos_token=None,
                             extra_special_tokens={"start_image_token": "<img>", "end_image_token": "</img>",
                                                   "context_image_token": "<IMG_CONTEXT>", "video_token": "<video>"})
    ids = {t: tok.convert_tokens_to_ids(t) for t in INTERNVL_SPECIAL}
    config = InternVLConfig(
        vision_config={"hidden_size": 32, "num_hidden_layers": 1, "num_attention_heads": 2, "intermediate_size": 64,
                       "image_size": [size, size], "patch_size": [14, 14]},
        text_config={"model_type": "qwen2", "vocab_size": len(tok), "hidden_size": 64, "intermediate_size": 128,
                     "num_hidden_layers": 2, "num_attention_heads": 2, "num_key_value_heads": 1,
                     "tie_word_embeddings": False, "eos_token_id": ids["<|im_end|>"]},
        image_token_id=ids["<IMG_CONTEXT>"], image_seq_length=(size // 14 // 2) ** 2, tie_word_embeddings=False)
    model = InternVLForConditionalGeneration(config).eval()
    _silence_special_tokens(model, list(ids.values()))
    model.generation_config.eos_token_id = ids["<|im_end|>"]
    model.generation_config.pad_token_id = ids["<|endoftext|>"]
    processor = InternVLProcessor(image_processor=GotOcr2ImageProcessor(size={"height": size, "width": size}),
                                  tokenizer=tok, video_processor=InternVLVideoProcessor(size={"height": size, "width": size}),
                                  image_seq_length=(size // 14 // 2) ** 2, chat_template=INTERNVL_CHAT_TEMPLATE)
    tok.chat_template = INTERNVL_CHAT_TEMPLATE
    model.save_pretrained(out)
    processor.save_pretrained(out)
    tok.save_pretrained(out)
    return out


def _build_qwen3_family(out: Path, arch: str, seed: int = 0, hidden: int = 64, layers: int = 2,
                        vision_hidden: int = 32, vision_depth: int = 2) -> Path:
    """A Qwen3-VL (``qwen3_vl``) or Qwen3.5 (``qwen3_5``) checkpoint: 16 px patches, the processor that writes each
    frame pair's time into the prompt (``<t seconds>``, from the video metadata). The towers' widths and depths can
    be raised (perf/gpu_busy.py: enough work per question for a GPU to show)."""
    import torch
    from transformers import Qwen2VLImageProcessor, Qwen3VLProcessor, Qwen3VLVideoProcessor

    torch.manual_seed(seed)
    tok, ids = _qwen_tokenizer()
    vision = {"depth": vision_depth, "hidden_size": vision_hidden, "intermediate_size": 2 * vision_hidden,
              "num_heads": 2, "out_hidden_size": hidden, "patch_size": 16, "spatial_merge_size": 2,
              "temporal_patch_size": 2, "in_channels": 3, "num_position_embeddings": 256}
    heads = max(2, hidden // 128)
    half = hidden // heads // 2  # the rotary half of a head: t, h, w sections
    text = {"vocab_size": len(tok), "hidden_size": hidden, "intermediate_size": 2 * hidden, "num_hidden_layers": layers,
            "num_attention_heads": heads, "num_key_value_heads": 1, "head_dim": hidden // heads,
            "max_position_embeddings": 32768,
            "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0,
                                "mrope_section": [half - 2 * (half * 3 // 8), half * 3 // 8, half * 3 // 8],
                                "mrope_interleaved": True},
            "tie_word_embeddings": False, "eos_token_id": ids["<|im_end|>"], "pad_token_id": ids["<|endoftext|>"]}
    tokens = dict(image_token_id=ids["<|image_pad|>"], video_token_id=ids["<|video_pad|>"],
                  vision_start_token_id=ids["<|vision_start|>"], vision_end_token_id=ids["<|vision_end|>"],
                  tie_word_embeddings=False)
    if arch == "qwen3_vl":
        from transformers import Qwen3VLConfig, Qwen3VLForConditionalGeneration

        config = Qwen3VLConfig(text_config=text, vision_config={**vision, "deepstack_visual_indexes": [vision_depth - 1]},
                               **tokens)
        model = Qwen3VLForConditionalGeneration(config).eval()
    else:
        from transformers import Qwen3_5Config, Qwen3_5ForConditionalGeneration

        text = {**text, "layer_types": ["linear_attention", "full_attention"] * (layers // 2) + ["full_attention"] * (
                    layers % 2), "linear_key_head_dim": 16,
                "linear_value_head_dim": 16, "linear_num_key_heads": 2, "linear_num_value_heads": 2,
                "rope_parameters": {**text["rope_parameters"], "partial_rotary_factor": 1.0}}
        config = Qwen3_5Config(text_config=text, vision_config=vision, **tokens)
        model = Qwen3_5ForConditionalGeneration(config).eval()
    processor = Qwen3VLProcessor(image_processor=Qwen2VLImageProcessor(patch_size=16), tokenizer=tok,
                                 video_processor=Qwen3VLVideoProcessor(), chat_template=QWEN_CHAT_TEMPLATE)
    return _save(out, model, processor, tok, ids, "<|im_end|>", "<|endoftext|>", QWEN_CHAT_TEMPLATE)


def build_qwen3_vl(out: Path, seed: int = 0, **sizes) -> Path:
    return _build_qwen3_family(out, "qwen3_vl", seed, **sizes)


def build_qwen3_5(out: Path, seed: int = 0) -> Path:
    return _build_qwen3_family(out, "qwen3_5", seed)


BUILDERS = {"qwen2_5_vl": build_qwen2_5_vl, "llava_onevision": build_llava_onevision, "internvl_hf": build_internvl_hf,
            "qwen3_vl": build_qwen3_vl, "qwen3_5": build_qwen3_5}


def tiny_checkpoint(arch: str, cache_root: Path) -> Path:
    """The checkpoint directory of ``arch`` under ``cache_root``, built once (atomically)."""
    out = cache_root / arch
    if (out / "tiny_checkpoint.json").is_file():
        return out
    tmp = cache_root / f".{arch}.{os.getpid()}.tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    BUILDERS[arch](tmp)
    (tmp / "tiny_checkpoint.json").write_text(json.dumps({"arch": arch, "built_by": __name__}) + "\n")
    try:
        tmp.rename(out)
    except OSError:  # another test process finished the same checkpoint first
        if not (out / "tiny_checkpoint.json").is_file():
            raise
        shutil.rmtree(tmp, ignore_errors=True)
    return out
