"""Regenerate lmms_tasks/tasks/streamgaze/ (task YAMLs, groups, placeholders) from the task table.

Usage: python build_scripts/generate_lmms_tasks.py
"""

from pathlib import Path

from lmms_tasks.generate import write_task_files

if __name__ == "__main__":
    for path in write_task_files(Path(__file__).resolve().parent.parent / "lmms_tasks"):
        print(path)
