"""``util.fsutil.link_or_copy``: how the dataset writer and the BIDS exporter put a source file (a scene video) into
the dataset they write: a hard link on the same filesystem, else a copy, else an error naming the file."""

from __future__ import annotations

import errno
import os

import pytest

from streamgaze_hf.util.errors import StreamGazeError
from streamgaze_hf.util.fsutil import link_or_copy


@pytest.fixture
def src(tmp_path):
    path = tmp_path / "rec" / "scene.mp4"
    path.parent.mkdir()
    path.write_bytes(bytes(range(256)) * 40)
    return path


def test_on_the_same_filesystem_the_file_is_linked(src, tmp_path):
    dest = tmp_path / "ds" / "videos" / "v1.mp4"
    link_or_copy(src, dest, "the dataset as videos/v1.mp4")
    assert dest.read_bytes() == src.read_bytes()
    assert os.stat(dest).st_ino == os.stat(src).st_ino and os.stat(src).st_nlink == 2


def test_where_no_link_can_be_made_the_file_is_copied(src, tmp_path, monkeypatch):
    def across_filesystems(*_args, **_kwargs):
        raise OSError(errno.EXDEV, os.strerror(errno.EXDEV))

    monkeypatch.setattr(os, "link", across_filesystems)
    dest = tmp_path / "ds" / "stimuli" / "sub-01_task-x.mp4"
    link_or_copy(src, dest, "the BIDS dataset as stimuli/sub-01_task-x.mp4")
    assert dest.read_bytes() == src.read_bytes()
    assert os.stat(dest).st_ino != os.stat(src).st_ino and os.stat(src).st_nlink == 1


def test_a_file_that_cannot_be_copied_is_named_with_where_it_was_going(tmp_path):
    folder = tmp_path / "rec"  # a directory can be neither linked nor copied as a file
    folder.mkdir()
    dest = tmp_path / "ds" / "stimuli" / "sub-01_task-x.mp4"
    with pytest.raises(StreamGazeError) as caught:
        link_or_copy(folder, dest, "the BIDS dataset as stimuli/sub-01_task-x.mp4")
    assert caught.value.path == str(folder)
    assert caught.value.reason == (f"cannot copy {folder} into the BIDS dataset as stimuli/sub-01_task-x.mp4: "
                                   f"[Errno {errno.EISDIR}] {os.strerror(errno.EISDIR)}: '{folder}'")
    assert not dest.exists()
