"""H.264 bitstream pieces the clip cutters need: ``avcC`` records, NAL units, parameter sets and their ids.

A slice names its picture parameter set (PPS) by id, and the PPS names its sequence parameter set (SPS);
a decoder keeps the last set it has seen for each id. Ids: SPS 0..31, PPS 0..255 (ITU-T H.264 7.4.2.1.1
and 7.4.2.2). An ``avcC`` record (ISO/IEC 14496-15 5.3.3.1) carries the sets a file starts with; packets
are NAL units each prefixed by its length (1, 2 or 4 bytes).
"""

from __future__ import annotations

NAL_SPS, NAL_PPS = 7, 8
#: coded slice NAL unit types: a non-IDR slice (and its data partitions 2-4) and an IDR slice
NAL_SLICES = (1, 2, 3, 4, 5)


def nal_type(nal: bytes) -> int:
    return nal[0] & 0x1F


def avcc_parameter_sets(extradata: bytes) -> tuple[int, list[bytes]] | None:
    """(NAL length size, [SPS..., PPS...]) of an ``avcC`` record, or None if it is not one."""
    try:
        if len(extradata) < 7 or extradata[0] != 1:
            return None
        length_size = (extradata[4] & 3) + 1
        pos, sets = 5, []
        for count_mask in (0x1F, 0xFF):
            count = extradata[pos] & count_mask
            pos += 1
            for _ in range(count):
                n = int.from_bytes(extradata[pos:pos + 2], "big")
                nal = extradata[pos + 2:pos + 2 + n]
                if len(nal) != n:
                    return None
                sets.append(bytes(nal))
                pos += 2 + n
        return length_size, sets
    except IndexError:
        return None


def avcc_with_sets(extradata: bytes, sets: list[bytes]) -> bytes:
    """The ``avcC`` record ``extradata`` with its parameter sets replaced by ``sets`` (SPS and PPS, any order):
    profile from the record, level the highest of the SPSs, profile compatibility flags those every SPS
    has; any trailing fields (the high-profile extension) kept."""
    parsed = avcc_parameter_sets(extradata)
    if parsed is None:
        raise ValueError("not an avcC record")
    pos = 5
    for count_mask in (0x1F, 0xFF):  # skip the old arrays
        count = extradata[pos] & count_mask
        pos += 1
        for _ in range(count):
            pos += 2 + int.from_bytes(extradata[pos:pos + 2], "big")
    sps = [s for s in sets if nal_type(s) == NAL_SPS]
    pps = [s for s in sets if nal_type(s) == NAL_PPS]
    if len(sps) > 31 or len(pps) > 255 or any(len(s) >= 1 << 16 for s in sets):
        raise ValueError("too many or too large parameter sets for an avcC record")
    compat, level = extradata[2], extradata[3]
    for s in sps:
        compat &= s[2]
        level = max(level, s[3])
    out = bytearray(extradata[:2]) + bytes([compat, level, extradata[4]])
    out.append(0xE0 | len(sps))
    for s in sps:
        out += len(s).to_bytes(2, "big") + s
    out.append(len(pps))
    for s in pps:
        out += len(s).to_bytes(2, "big") + s
    return bytes(out + extradata[pos:])


def annexb_nals(data: bytes) -> list[bytes]:
    """The NAL units of an Annex B byte stream (start codes removed, trailing zero bytes dropped)."""
    starts = []
    i = data.find(b"\x00\x00\x01")
    while i >= 0:
        starts.append(i)
        i = data.find(b"\x00\x00\x01", i + 3)
    nals = []
    for k, s in enumerate(starts):
        end = starts[k + 1] if k + 1 < len(starts) else len(data)
        nal = data[s + 3:end].rstrip(b"\x00")
        if nal:
            nals.append(nal)
    return nals


def length_prefixed(nals: list[bytes], length_size: int) -> bytes:
    """NAL units as a packet of ``length_size``-byte length prefixes (ValueError if one does not fit)."""
    out = bytearray()
    for nal in nals:
        if len(nal) >= 1 << (8 * length_size):
            raise ValueError(f"NAL unit of {len(nal)} bytes does not fit a {length_size}-byte length")
        out += len(nal).to_bytes(length_size, "big") + nal
    return bytes(out)


def packet_parameter_sets(data, length_size: int) -> tuple[bytes, ...]:
    """The SPS and PPS NAL units in a length-prefixed packet (any buffer), in order; usually none."""
    view = memoryview(data)
    out = []
    pos, size = 0, len(view)
    while pos + length_size < size:
        n = int.from_bytes(view[pos:pos + length_size], "big")
        start = pos + length_size
        if n and (view[start] & 0x1F) in (NAL_SPS, NAL_PPS):
            out.append(bytes(view[start:start + n]))
        pos = start + n
    return tuple(out)


def packet_is_reference(data, length_size: int) -> bool:
    """Whether the picture in a length-prefixed packet is a reference picture: any of its slices has
    ``nal_ref_idc`` != 0 (H.264 7.4.1). A non-reference picture is never used to decode another one, so a decoder
    that is not asked for it may skip its packet; a packet without a slice (or one that cannot be parsed) counts as
    a reference, never skipped."""
    view = memoryview(data)
    pos, size, slices = 0, len(view), 0
    while pos + length_size < size:
        n = int.from_bytes(view[pos:pos + length_size], "big")
        start = pos + length_size
        if n <= 0 or start + n > size:
            return True
        if (view[start] & 0x1F) in NAL_SLICES:
            if view[start] & 0x60:
                return True
            slices += 1
        pos = start + n
    return slices == 0


def _rbsp_bits(nal: bytes, nbytes: int):
    """The first ``nbytes`` payload bytes of a NAL unit (after its header, emulation prevention removed), as bits."""
    payload = bytearray()
    zeros = 0
    for b in nal[1:]:
        if zeros >= 2 and b == 3:
            zeros = 0
            continue
        payload.append(b)
        zeros = zeros + 1 if b == 0 else 0
        if len(payload) >= nbytes:
            break
    for b in payload:
        for k in range(7, -1, -1):
            yield (b >> k) & 1


def _ue(bits) -> int:
    """One unsigned Exp-Golomb code (ue(v), H.264 9.1)."""
    zeros = 0
    while next(bits) == 0:
        zeros += 1
        if zeros > 31:
            raise ValueError("bad Exp-Golomb code")
    value = 0
    for _ in range(zeros):
        value = (value << 1) | next(bits)
    return (1 << zeros) - 1 + value


def parameter_set_key(nal: bytes) -> tuple[int, int]:
    """(NAL type, id) of an SPS (``seq_parameter_set_id`` after profile, flags and level) or a PPS
    (``pic_parameter_set_id`` first); ValueError for anything else or a truncated set."""
    kind = nal_type(nal)
    try:
        if kind == NAL_SPS:
            bits = _rbsp_bits(nal, 16)
            for _ in range(24):  # profile_idc, constraint flags, level_idc
                next(bits)
            return kind, _ue(bits)
        if kind == NAL_PPS:
            return kind, _ue(_rbsp_bits(nal, 16))
    except StopIteration:
        raise ValueError("truncated parameter set") from None
    raise ValueError(f"NAL unit of type {kind} is not a parameter set")
