"""Each lmms-eval wrapper family in one module: how it samples a clip, the size it brings frames to and the layout
of its model-ready clip (``qwen.py``, ``llava.py``, ``internvl.py``, ``api.py``), over the row they share
(``base.py``), gathered into one table (``table.py``). ``model_frames.py`` plans a run's clips from the table."""
