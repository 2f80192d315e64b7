"""Test-only probe (on PYTHONPATH of lmms-eval subprocesses when $STREAMGAZE_PROBE_LOG is set).

It wraps the ``__call__`` of the real Hugging Face processors that lmms-eval's wrappers use, and appends
one JSON line per call to $STREAMGAZE_PROBE_LOG: the prompt text, the images (type and size) and, per
video, the demo-world frame code of every frame the processor was handed (frames resized back to the
source geometry first). Tests compare that with each document's window: it shows what really reached the
model, whatever the wrapper did with our clip.
"""

import os

if os.environ.get("STREAMGAZE_PROBE_LOG"):
    import json
    import threading

    _lock = threading.Lock()

    def _frames(video):
        import numpy as np

        if isinstance(video, (str, os.PathLike)):
            import av

            with av.open(str(video)) as c:
                return [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
        if isinstance(video, dict) and "video" in video:
            return _frames(video["video"])
        arr = video.detach().cpu().numpy() if hasattr(video, "detach") else np.asarray(video)
        if isinstance(video, list):
            arr = np.stack([np.asarray(f) for f in video])
        if arr.ndim == 4 and arr.shape[1] in (1, 3) and arr.shape[-1] not in (1, 3):
            arr = arr.transpose(0, 2, 3, 1)  # T,C,H,W -> T,H,W,C
        return list(arr)

    def _codes(video):
        import cv2
        import numpy as np

        from streamgaze_hf.demo.timecode import read_frame_code

        w, h = (int(v) for v in os.environ.get("STREAMGAZE_PROBE_FRAME_SIZE", "0x0").split("x"))
        out = []
        for f in _frames(video):
            f = np.asarray(f)
            if f.dtype != np.uint8:
                f = np.clip(f if f.max() > 1.5 else f * 255.0, 0, 255).astype(np.uint8)
            if w and h and f.shape[:2] != (h, w):
                f = cv2.resize(f, (w, h), interpolation=cv2.INTER_AREA)
            out.append(read_frame_code(f))
        return out

    def _as_list(x):
        if x is None:
            return []
        return list(x) if isinstance(x, (list, tuple)) else [x]

    def _wrap(cls):
        original = cls.__call__

        def __call__(self, *args, **kwargs):
            text = kwargs.get("text", args[0] if args else None)
            images = _as_list(kwargs.get("images"))
            while images and isinstance(images[0], list):
                images = [i for sub in images for i in sub]
            rec = {"processor": cls.__name__, "text": text if isinstance(text, str) else list(_as_list(text)),
                   "images": [{"type": type(i).__name__, "size": list(getattr(i, "size", ()))} for i in images],
                   "videos": [_codes(v) for v in _as_list(kwargs.get("videos"))]}
            with _lock, open(os.environ["STREAMGAZE_PROBE_LOG"], "a") as f:
                f.write(json.dumps(rec) + "\n")
            return original(self, *args, **kwargs)

        cls.__call__ = __call__

    from transformers import LlavaOnevisionProcessor, Qwen2_5_VLProcessor

    _wrap(Qwen2_5_VLProcessor)
    _wrap(LlavaOnevisionProcessor)
