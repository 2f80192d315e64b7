"""The built-in benchmark packages (StreamGaze, EgoGazeVQA, StreamEQA, VL4Gaze), one plug-in each.

Nothing outside a benchmark's own package imports it: the registry (:mod:`streamgaze_hf.registry`) finds
every benchmark, built-in or installed from elsewhere, through the ``streamgaze.benchmarks`` entry points
(docs/adding-a-benchmark.md).
"""
