"""Reading a clip the way a model wrapper's library reads it: its frame count, its frame rate and its RGB
frames, from that library itself.

Model wrappers read clips with decord or torchcodec (directly, or through qwen_vl_utils and Hugging Face's
video processors). The frame count and rate they see come from the library's own metadata (decord: the
container's; torchcodec: a scan of the file), and the YUV-to-RGB conversion is the library's (both honour a
BT.709 tag; PyAV's plain ``to_ndarray("rgb24")`` does not). Whatever must equal what the wrapper would see is
therefore read here with the same library, never recomputed: :func:`clip_metadata` and :func:`read_frames`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import numpy as np

from ..util.errors import VideoError

READERS = ("decord", "torchcodec")


@dataclass(frozen=True)
class ClipMetadata:
    """What a reader says about a clip: frames, average rate (its own float), size."""

    n_frames: int
    fps: float
    width: int
    height: int


class ClipReader:
    """One open clip in one reader library: ``meta`` and :meth:`frames` (RGB uint8 at given positions)."""

    def __init__(self, path: str | os.PathLike[str], reader: str) -> None:
        if reader not in READERS:
            raise ValueError(f"unknown reader {reader!r}; expected one of {', '.join(READERS)}")
        self.path, self.reader = str(path), reader
        try:
            if reader == "decord":
                import decord

                # one decoding thread: the same frames as any thread count (H.264 decoding is exact), and no
                # frame-threaded wait at the end of a long clip, which decord gives up on under load ("Unable to
                # handle EOF ... DECORD_EOF_RETRY_MAX")
                self._vr = decord.VideoReader(self.path, ctx=decord.cpu(0), num_threads=1)
                w, h = _header_size(self.path)
                self.meta = ClipMetadata(len(self._vr), float(self._vr.get_avg_fps()), w, h)
            else:
                from torchcodec.decoders import VideoDecoder

                self._dec = VideoDecoder(self.path, dimension_order="NHWC")
                m = self._dec.metadata
                self.meta = ClipMetadata(int(m.num_frames), float(m.average_fps), int(m.width), int(m.height))
        except (RuntimeError, OSError, ValueError) as exc:
            raise VideoError(f"{reader} cannot read this clip ({exc})", path) from None

    def frames(self, positions: list[int]) -> np.ndarray:
        """The frames at ``positions`` (ascending, distinct), (N, H, W, 3) uint8 RGB."""
        if self.reader == "decord":
            import decord

            try:
                frames = self._vr.get_batch(list(positions)).asnumpy()
            except decord.DECORDError as exc:  # decord gave up waiting at the end of the file: once more, afresh
                if "EOF" not in str(exc):
                    raise
                self._vr = decord.VideoReader(self.path, ctx=decord.cpu(0), num_threads=1)
                frames = self._vr.get_batch(list(positions)).asnumpy()
            # after a batch, decord's decoder thread goes on decoding the rest of the file into an unbounded queue
            # for as long as the reader is open (measured on a 1080p source: +450 MB a second, until the file ends
            # or the process is killed); a seek to the start stops it (8-36 ms at 1080p)
            self._vr.seek(0)
            return frames
        return self._dec.get_frames_at(indices=list(positions)).data.numpy()


def _header_size(path: str) -> tuple[int, int]:
    """(width, height) from the container's header (no frame decoded)."""
    from .frame_reader import open_container

    with open_container(path) as c:
        s = c.streams.video[0]
        return int(s.codec_context.width), int(s.codec_context.height)


def clip_metadata(path: str | os.PathLike[str], reader: str) -> ClipMetadata:
    """The frame count, rate and size ``reader`` reports for the clip at ``path``."""
    return ClipReader(path, reader).meta


def read_frames(path: str | os.PathLike[str], positions: list[int], reader: str) -> np.ndarray:
    """The frames at ``positions`` of the clip at ``path`` as ``reader`` decodes them."""
    return ClipReader(path, reader).frames(positions)
