"""Gaze-overlay videos: the source video with the gaze point and the FOV circle drawn on every frame.

Style of the reference release (``visualize_gaze_green_dot_red_fov``, reference §3.3), drawn in this
order: a red circle (BGR (0, 0, 255), thickness 3) of the FOV radius ``fov_radius_px(width, hfov)``,
a black ring (radius 10, thickness 2) and a filled green dot (BGR (0, 255, 0), radius 8) at the gaze
point. Frames whose gaze sample is missing, invalid or outside the frame get no marks (their pixels are
only re-encoded).

Which gaze sample a frame shows: the latest sample at or before the frame's timestamp, never a later
one (no future leakage), and only if it is at most ``max_age`` seconds old, with
``max_age = max(1.5 / video_fps, 1.5 * median gaze sample interval)``: one and a half periods of
whichever clock is slower, so that every frame finds the sample just before it on a regular track,
while a gap in the track (tracking loss, a cut) shows no marker instead of a stale one.

Output: H.264 yuv420p mp4 with ``+faststart`` (the project's one codec setting, :class:`H264Writer`)
with exactly the source's frame count and per-frame timestamps: the source stream's time base and
every frame's ``pts - start_pts``. Single pass: every source frame is decoded once and every output
frame encoded once. Frames are decoded to planar yuv420p (converted only when the source is in another
format) and the marks are drawn straight into the Y plane and the half-resolution U and V planes
(colours converted with the BT.601 limited-range matrix), so no frame goes through BGR and back. A frame
with marks costs one plane copy into a reusable output frame; a frame without goes to the encoder as
decoded. The remaining extra cost over a plain transcode is x264 encoding the marks themselves
(perf/overlay.py).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import av
import cv2
import numpy as np
from tqdm import tqdm

from ..util.errors import StreamGazeError, VideoError
from ..video import H264Writer, VideoInfo, open_container, probe_video
from .fov import fov_radius_px
from .io import read_gaze_csv
from .track import GazeTrack

__all__ = [
    "DOT_RADIUS", "RING_RADIUS", "RING_THICKNESS", "FOV_THICKNESS", "GREEN_BGR", "BLACK_BGR", "RED_BGR",
    "gaze_max_age", "overlay_positions", "bgr_to_yuv601", "draw_overlay_yuv420p",
    "render_overlay", "render_overlay_files", "reencode_video", "reencode_with_overlay",
]

DOT_RADIUS = 8
RING_RADIUS = 10
RING_THICKNESS = 2
FOV_THICKNESS = 3
GREEN_BGR = (0, 255, 0)
BLACK_BGR = (0, 0, 0)
RED_BGR = (0, 0, 255)

_PIX_FMT = "yuv420p"


def bgr_to_yuv601(bgr: tuple[int, int, int]) -> tuple[int, int, int]:
    """(Y, Cb, Cr) of an 8-bit BGR colour, BT.601 limited range (Y 16-235, Cb/Cr 16-240)."""
    b, g, r = (c / 255.0 for c in bgr)
    y = 16.0 + 65.481 * r + 128.553 * g + 24.966 * b
    cb = 128.0 - 37.797 * r - 74.203 * g + 112.0 * b
    cr = 128.0 + 112.0 * r - 93.786 * g - 18.214 * b

    def u8(v: float) -> int:
        return min(255, max(0, round(v)))

    return u8(y), u8(cb), u8(cr)


# (radius, (Y, Cb, Cr), thickness; -1 = filled), drawn in this order; radius None = the FOV radius.
_MARKS: tuple[tuple[int | None, tuple[int, int, int], int], ...] = (
    (None, bgr_to_yuv601(RED_BGR), FOV_THICKNESS),
    (RING_RADIUS, bgr_to_yuv601(BLACK_BGR), RING_THICKNESS),
    (DOT_RADIUS, bgr_to_yuv601(GREEN_BGR), -1),
)
_LINE = cv2.LINE_8  # the reference's (OpenCV's default) line type


def gaze_max_age(track: GazeTrack, video_fps: float) -> float:
    """How old (seconds) the latest gaze sample may be and still be drawn on a frame.

    ``max(1.5 / video_fps, 1.5 * median sample interval)``: a regular track at any rate always
    has a sample within it, a gap of more than one and a half sample periods draws nothing.
    """
    age = 1.5 / float(video_fps)
    if len(track) > 1:
        age = max(age, 1.5 * float(np.median(np.diff(track.t))))
    return age


def overlay_positions(track: GazeTrack, frame_times: np.ndarray, width: int, height: int,
                      video_fps: float) -> tuple[np.ndarray, np.ndarray]:
    """Per frame: whether to draw, and the integer pixel (x, y) of the gaze point.

    The sample for a frame is ``track.index_at(frame_time, max_age=gaze_max_age(...))`` (the latest
    sample at or before the frame); nothing is drawn when there is none or it is not ``in_frame``.
    The pixel is ``floor(x * width)``, ``floor(y * height)`` clipped into the frame (x = 1 is the last
    column). Returns ``(draw: bool[n], xy: int32[n, 2])``.
    """
    frame_times = np.asarray(frame_times, dtype=np.float64)
    idx = track.index_at(frame_times, max_age=gaze_max_age(track, video_fps))
    ok = idx >= 0
    draw = np.zeros(len(frame_times), dtype=bool)
    draw[ok] = track.in_frame[idx[ok]]
    xy = np.zeros((len(frame_times), 2), dtype=np.int32)
    sel = idx[draw]
    xy[draw, 0] = np.clip(np.floor(track.x[sel] * width), 0, width - 1)
    xy[draw, 1] = np.clip(np.floor(track.y[sel] * height), 0, height - 1)
    return draw, xy


def draw_overlay_yuv420p(planes: tuple[np.ndarray, np.ndarray, np.ndarray], center: tuple[int, int],
                         fov_radius: int) -> None:
    """Draw the overlay in place into a frame's Y (H, W), U and V (H/2, W/2) planes.

    Luma gets the circles at full resolution; chroma at half resolution (centre and radius halved
    with sub-pixel precision, ring thickness rounded up) so that each mark keeps its colour.
    """
    y_plane, u_plane, v_plane = planes
    cx, cy = int(center[0]), int(center[1])
    for radius, (yv, uv, vv), thickness in _MARKS:
        r = int(fov_radius) if radius is None else radius
        if r <= 0:
            continue
        cv2.circle(y_plane, (cx, cy), r, yv, thickness, _LINE)
        ct = -1 if thickness < 0 else max(1, (thickness + 1) // 2)
        # shift=1: centre and radius are given in half-pixels, i.e. luma coordinates / 2.
        cv2.circle(u_plane, (cx, cy), r, uv, ct, _LINE, 1)
        cv2.circle(v_plane, (cx, cy), r, vv, ct, _LINE, 1)


def _plane_views(frame: av.VideoFrame) -> tuple[np.ndarray, ...]:
    """(height, width) uint8 views of a frame's planes (rows may be padded to ``line_size``)."""
    return tuple(np.frombuffer(p, np.uint8).reshape(p.height, p.line_size)[:, :p.width] for p in frame.planes)


class _Canvas:
    """One reusable yuv420p frame that drawn frames are copied into.

    The decoder's frame buffers may still serve as reference pictures, so they are never drawn on.
    Reusing one output frame keeps its memory warm; ``make_writable`` (``av_frame_make_writable``)
    gives it a fresh buffer should the encoder still hold a reference to the previous picture (libx264
    copies its input at once, so in practice it never has to).
    """

    def __init__(self, width: int, height: int):
        self.frame = av.VideoFrame(width, height, _PIX_FMT)

    def paint(self, src: av.VideoFrame) -> tuple[av.VideoFrame, tuple[np.ndarray, ...]]:
        """The canvas holding a copy of ``src``'s pixels, and writable views of its Y, U, V planes."""
        self.frame.make_writable()
        dst = _plane_views(self.frame)
        for d, s in zip(dst, _plane_views(src)):
            np.copyto(d, s)
        return self.frame, dst


def _check_geometry(info: VideoInfo, path: Path) -> None:
    if info.width % 2 or info.height % 2:
        raise VideoError(f"odd frame size {info.width}x{info.height}: H.264 yuv420p output needs even sizes",
                         path)


def _resolve_radius(info: VideoInfo, track: GazeTrack, hfov_deg: float | None) -> int:
    hfov = track.hfov_deg if hfov_deg is None else hfov_deg
    try:
        return fov_radius_px(info.width, hfov)
    except ValueError as exc:
        raise StreamGazeError(str(exc)) from None


def _yuv_frames(container: av.container.InputContainer, stream: av.video.stream.VideoStream, path: Path):
    """Decoded frames, in presentation order, as yuv420p (converted only if the source is not)."""
    try:
        for frame in container.decode(stream):
            if frame.format.name != _PIX_FMT:
                frame = frame.reformat(format=_PIX_FMT)
            yield frame
    except av.error.FFmpegError as exc:
        raise VideoError(f"cannot decode video ({exc})", path) from None


def render_overlay(video_path: str | os.PathLike[str], track: GazeTrack, out_path: str | os.PathLike[str],
                   hfov_deg: float | None = None, progress: bool = True,
                   keyframe_times: Sequence[float] = ()) -> Path:
    """Render the gaze-overlay video of ``video_path`` with ``track`` to ``out_path`` (atomic).

    ``hfov_deg``: the camera's horizontal field of view for the FOV radius (default: the track's,
    else 90 degrees). Gaze is normalised, so the video's own size is used for pixel positions.
    ``keyframe_times``: the first frame at or after each of these times is encoded as a keyframe
    (dataset builds pass the present-task window starts so window clips can be cut by copying).
    Raises :class:`VideoError` (naming the video) for a missing, unreadable or undecodable video;
    on any error the output file does not exist afterwards. Returns the output path.
    """
    src = Path(video_path)
    info = probe_video(src)
    target = _overlay_target(info, track, Path(out_path), hfov_deg)
    _reencode(src, info, [target], keyframe_times, progress, "overlay")
    return target.out


def reencode_video(video_path: str | os.PathLike[str], out_path: str | os.PathLike[str],
                   keyframe_times: Sequence[float] = (), progress: bool = True) -> Path:
    """The video re-encoded with the project's codec settings (no B-frames, keyframes every second
    and at ``keyframe_times``), same frames and timestamps, nothing drawn; atomic like
    :func:`render_overlay`."""
    src = Path(video_path)
    info = probe_video(src)
    target = _plain_target(info, Path(out_path))
    _reencode(src, info, [target], keyframe_times, progress, "re-encode")
    return target.out


def reencode_with_overlay(video_path: str | os.PathLike[str], track: GazeTrack,
                          original_out: str | os.PathLike[str], overlay_out: str | os.PathLike[str],
                          hfov_deg: float | None = None, keyframe_times: Sequence[float] = (),
                          progress: bool = True) -> tuple[Path, Path]:
    """:func:`reencode_video` and :func:`render_overlay` of one video in a single pass: every source
    frame is decoded once and encoded twice (plain, and with the marks). Both outputs are exactly
    what the two functions write separately; a build that stores both saves a whole decode (and
    the overlay then costs one encode on top of the plain transcode the build does anyway,
    ``perf/overlay.py``). Atomic per file, and an error while decoding, drawing or encoding leaves
    neither output (only a failure of the very last flush of one file could leave the other)."""
    src = Path(video_path)
    info = probe_video(src)
    plain = _plain_target(info, Path(original_out))
    overlay = _overlay_target(info, track, Path(overlay_out), hfov_deg)
    if plain.out.resolve() == overlay.out.resolve():
        raise StreamGazeError("the re-encoded original and the overlay need different output paths", plain.out)
    _reencode(src, info, [plain, overlay], keyframe_times, progress, "re-encode + overlay")
    return plain.out, overlay.out


@dataclass(frozen=True)
class _Target:
    """One output of a rendering pass: where, and per frame whether and where to draw the marks."""

    out: Path
    draw: np.ndarray
    xy: np.ndarray
    radius: int


def _overlay_target(info: VideoInfo, track: GazeTrack, out: Path, hfov_deg: float | None) -> _Target:
    radius = _resolve_radius(info, track, hfov_deg)
    draw, xy = overlay_positions(track, info.frame_times, info.width, info.height, info.fps)
    return _Target(out, draw, xy, radius)


def _plain_target(info: VideoInfo, out: Path) -> _Target:
    return _Target(out, np.zeros(info.n_frames, dtype=bool), np.zeros((info.n_frames, 2), np.int32), 0)


def _reencode(src: Path, info: VideoInfo, targets: list[_Target], keyframe_times: Sequence[float],
              progress: bool, what: str) -> None:
    for t in targets:
        if t.out.is_dir():
            raise StreamGazeError("output path is a directory", t.out)
    _check_geometry(info, src)
    keyframes = {int(np.searchsorted(info.frame_times, float(k) - 1e-6)) for k in keyframe_times}
    try:
        _render(src, info, targets, progress, keyframes, what)
    except OSError as exc:  # e.g. an output directory we may not write to
        raise StreamGazeError(f"cannot write the output ({exc.strerror or exc})",
                              exc.filename or targets[-1].out) from None


def _render(src: Path, info: VideoInfo, targets: list[_Target], progress: bool, keyframes: set[int],
            what: str) -> None:
    w, h = info.width, info.height
    tb: Fraction = info.time_base
    rate = Fraction(info.fps).limit_denominator(100000)
    with open_container(src) as container, contextlib.ExitStack() as stack:
        stream = container.streams.video[0]
        stream.thread_type = "AUTO"
        bar = tqdm(total=info.n_frames, unit="frame", desc=f"{what} {src.name}", disable=not progress,
                   leave=False, dynamic_ncols=True)
        stack.callback(bar.close)
        writers = [stack.enter_context(H264Writer(t.out, w, h, rate, time_base=tb)) for t in targets]
        canvases = [_Canvas(w, h) if t.draw.any() else None for t in targets]
        n = 0
        for decoded in _yuv_frames(container, stream, src):
            if n >= info.n_frames:
                raise VideoError(f"decoder returned more than the stream's {info.n_frames} frames", src)
            pts = info.frame_pts[n]
            if decoded.pts is not None and decoded.pts != pts:
                raise VideoError(f"frame {n} decoded with pts {decoded.pts}, expected {pts}", src)
            if (decoded.width, decoded.height) != (w, h):
                raise VideoError(f"frame {n} is {decoded.width}x{decoded.height}, the stream {w}x{h}", src)
            for t, writer, canvas in zip(targets, writers, canvases):
                frame = decoded
                if t.draw[n]:
                    frame, planes = canvas.paint(decoded)
                    draw_overlay_yuv420p(planes, (int(t.xy[n, 0]), int(t.xy[n, 1])), t.radius)
                try:
                    writer.write_frame(frame, pts - info.start_pts, keyframe=n in keyframes)
                except av.error.FFmpegError as exc:
                    raise VideoError(f"cannot encode frame {n} ({exc})", t.out) from None
            n += 1
            bar.update(1)
        if n != info.n_frames:
            raise VideoError(f"decoded {n} of the stream's {info.n_frames} frames", src)


def render_overlay_files(video_path: str | os.PathLike[str], gaze_csv_path: str | os.PathLike[str],
                         out_path: str | os.PathLike[str], hfov_deg: float | None = None,
                         progress: bool = True) -> Path:
    """Probe ``video_path``, read ``gaze_csv_path`` (``t, x, y, valid``) against it and render the overlay
    (``streamgaze overlay``; :func:`render_overlay`).

    Every bad input raises a :class:`StreamGazeError` naming the offending file.

    Args:
        video_path: the source video.
        gaze_csv_path: its gaze CSV (normalised coordinates; the video gives the size and rate).
        out_path: the overlay video to write (atomic: no file after an error).
        hfov_deg: the camera's horizontal field of view for the FOV circle (None: 90 degrees).
        progress: show a progress bar on stderr.

    Returns:
        The path of the written overlay video.

    Raises:
        VideoError: naming the video, when it is missing, unreadable or undecodable, or a frame cannot be encoded.
        GazeFormatError: naming the CSV, when it is missing or not a gaze CSV.
    """
    info = probe_video(video_path)
    track = read_gaze_csv(gaze_csv_path, info.width, info.height, info.fps)
    return render_overlay(video_path, track, out_path, hfov_deg=hfov_deg, progress=progress)
