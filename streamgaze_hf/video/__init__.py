"""Media I/O (knows nothing of gaze): writing and reading video frame-accurately, window clips and their cache,
proxies and previews, the frames a wrapper reads. docs/architecture.md "The tree" names each module's job."""

# The public face (issue 52): outside code imports these names from here, never from a module of the
# package (tests/unit/test_package_layout.py). Each name is looked up in its module when used (never cached
# here, so a test's patch of the module is seen), and importing the package imports none of them (the CLI's
# start-up stays light).
from __future__ import annotations

from typing import TYPE_CHECKING

from ..util.face import lazy_face

if TYPE_CHECKING:
    from .cache_admin import cache_stats, format_stats, parse_age, parse_size, prune_cache
    from .clips import (
        LocatedWindow,
        cache_entry_valid,
        cached_clip,
        clip_cache_dir,
        locate_window,
        prepare_clip,
        read_sidecar,
        select_frames,
        window_clip_key,
    )
    from .frame_reader import VideoInfo, iter_frames, open_container, probe_video, read_frames_at
    from .frame_store import ClipPlacement
    from .join import join_parts
    from .lossless import SUFFIX, RawLayout, reader_conversion, write_lossless_clip, write_rgb_clip
    from .one_pass import UnitDecoder, decode_units, reader_rgb
    from .packets import packet_index
    from .preview import DEFAULT_PREVIEW, PreviewSpec, build_preview
    from .proxy import PROXY_DIR, ProxySpec, build_proxy, proxy_rel_path, proxy_spec
    from .resize import INTERNVL_TILE, internvl_composite_size, internvl_tiles, resize_frames
    from .wrapper_reads import READERS, ClipMetadata, ClipReader, clip_metadata, read_frames
    from .writer import H264Writer

#: public name -> the module of the package that defines it
_FACE = {
    "cache_stats": "cache_admin",
    "format_stats": "cache_admin",
    "parse_age": "cache_admin",
    "parse_size": "cache_admin",
    "prune_cache": "cache_admin",
    "LocatedWindow": "clips",
    "cache_entry_valid": "clips",
    "cached_clip": "clips",
    "clip_cache_dir": "clips",
    "locate_window": "clips",
    "prepare_clip": "clips",
    "read_sidecar": "clips",
    "select_frames": "clips",
    "window_clip_key": "clips",
    "VideoInfo": "frame_reader",
    "iter_frames": "frame_reader",
    "open_container": "frame_reader",
    "probe_video": "frame_reader",
    "read_frames_at": "frame_reader",
    "ClipPlacement": "frame_store",
    "join_parts": "join",
    "RawLayout": "lossless",
    "SUFFIX": "lossless",
    "reader_conversion": "lossless",
    "write_lossless_clip": "lossless",
    "write_rgb_clip": "lossless",
    "UnitDecoder": "one_pass",
    "decode_units": "one_pass",
    "reader_rgb": "one_pass",
    "packet_index": "packets",
    "DEFAULT_PREVIEW": "preview",
    "PreviewSpec": "preview",
    "build_preview": "preview",
    "PROXY_DIR": "proxy",
    "ProxySpec": "proxy",
    "build_proxy": "proxy",
    "proxy_rel_path": "proxy",
    "proxy_spec": "proxy",
    "INTERNVL_TILE": "resize",
    "internvl_composite_size": "resize",
    "internvl_tiles": "resize",
    "resize_frames": "resize",
    "ClipMetadata": "wrapper_reads",
    "ClipReader": "wrapper_reads",
    "READERS": "wrapper_reads",
    "clip_metadata": "wrapper_reads",
    "read_frames": "wrapper_reads",
    "H264Writer": "writer",
}
#: modules of the package that outside code uses as a whole (``prefetch.start_prefetch``)
_MODULES = {
}
__all__ = [
    "ClipMetadata", "ClipPlacement", "ClipReader", "DEFAULT_PREVIEW", "H264Writer", "INTERNVL_TILE", "LocatedWindow",
    "PROXY_DIR", "PreviewSpec", "ProxySpec", "READERS", "RawLayout", "SUFFIX", "UnitDecoder", "VideoInfo",
    "build_preview", "build_proxy", "cache_entry_valid", "cache_stats", "cached_clip", "clip_cache_dir",
    "clip_metadata", "decode_units", "format_stats", "internvl_composite_size", "internvl_tiles", "iter_frames",
    "join_parts", "locate_window", "open_container", "packet_index", "parse_age", "parse_size", "prepare_clip",
    "probe_video", "proxy_rel_path", "proxy_spec", "prune_cache", "read_frames", "read_frames_at", "read_sidecar",
    "reader_conversion", "reader_rgb", "resize_frames", "select_frames", "window_clip_key", "write_lossless_clip",
    "write_rgb_clip",
]


__getattr__, __dir__ = lazy_face(__name__, _FACE, _MODULES)
