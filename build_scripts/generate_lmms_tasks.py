"""Regenerate lmms_tasks/tasks/<benchmark>/ (task YAMLs, groups and each folder's glue.py) of every registered
benchmark from the registry (streamgaze_hf/benchmarks; the renderer is streamgaze_hf/harness/task_files.py).

Usage: python build_scripts/generate_lmms_tasks.py
"""

from pathlib import Path

from streamgaze_hf.harness.task_files import write_task_files

if __name__ == "__main__":
    for path in write_task_files(Path(__file__).resolve().parent.parent / "lmms_tasks" / "tasks"):
        print(path)
