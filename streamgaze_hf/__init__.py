"""StreamGaze toolkit: the library behind the `streamgaze` command.

Sub-packages (see DESIGN.md): ``gaze`` (tracks, fixations, scene check, FOV, scanpath, salience),
``video`` (frame reading, clipping, overlay rendering), ``demo`` (the synthetic egocentric world),
``qa``, ``objects``, ``dataset``, ``submission``. Nothing here imports lmms-eval.
"""

__version__ = "0.1.0"
