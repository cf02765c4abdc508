"""Binary-to-text encodings beyond base64 and hex, and compressed payloads (red team round 17).

A judge decodes Ascii85 (`<~...~>` or bare), RFC 1924 base85 (`base64.b85encode`), uuencode and
a zlib, gzip, bzip2 or xz stream inside any of them as readily as base64; grade JSON spelled so
passed the screen. `binary_texts` returns the bytes each run of these alphabets decodes to, and
`inflated` undoes a compressed stream; both are bounded (runs read, bytes produced), so a text
of 50 KB without blanks costs one linear pass per alphabet."""

from __future__ import annotations

import base64
import binascii
import bz2
import lzma
import re
import zlib

_MAX_RUNS = 64  # runs decoded per alphabet per text
_MAX_OUT = 1 << 16  # bytes a compressed stream may inflate to
# (a run, then newline-and-run repeated, possessive: a long text of lines is read once)
_A85 = re.compile(r"(?:<~)?[!-uz]{20,}+(?:[ \t]*+\r?\n[ \t]*+[!-uz]++)*+(?:~>)?")
_B85 = re.compile(r"[0-9A-Za-z!#$%&()*+\-;<=>?@^_`{|}~]{20,}+")
# a uuencoded line: a length character, then four characters per three bytes, all in ' '..'`'
_UU_LINE = re.compile(r"^[ \t]*+([!-`][ -`]{4,}+)$", re.MULTILINE)


def _a85(run: str) -> bytes | None:
    body = re.sub(r"\s+", "", run)
    try:
        if body.startswith("<~") or body.endswith("~>"):
            return base64.a85decode(body.removeprefix("<~").removesuffix("~>"))
        return base64.a85decode(body)
    except ValueError:
        return None


def _b85(run: str) -> bytes | None:
    try:
        return base64.b85decode(run)
    except ValueError:
        return None


def _uu_line(line: str) -> bytes | None:
    count = (ord(line[0]) - 32) & 63
    if count == 0 or len(line) - 1 < (count + 2) // 3 * 4:
        return None
    try:
        return binascii.a2b_uu(line)
    except binascii.Error:
        return None


def _uudecoded(text: str) -> bytes | None:
    """The bytes of the uuencoded lines of `text`, joined (a `begin` line and `end` aside)."""
    if "`" not in text and "M" not in text:
        return None
    parts = []
    for found in _UU_LINE.finditer(text):
        data = _uu_line(found.group(1))
        if data:
            parts.append(data)
            if len(parts) >= _MAX_RUNS * 4:
                break
    return b"".join(parts) or None


def binary_texts(text: str) -> list[bytes]:
    """What the Ascii85, base85 and uuencoded runs in `text` decode to."""
    found: list[bytes | None] = []
    for pattern, decode in ((_A85, _a85), (_B85, _b85)):
        for i, match in enumerate(pattern.finditer(text)):
            if i >= _MAX_RUNS:
                break
            found.append(decode(match.group()))
    found.append(_uudecoded(text))
    return [data for data in found if data]


def _bounded(decompressor: object, data: bytes) -> bytes | None:
    try:
        return decompressor.decompress(data, _MAX_OUT)  # type: ignore[attr-defined]
    except (zlib.error, OSError, EOFError, ValueError, lzma.LZMAError):
        return None


def inflated(data: bytes) -> bytes:
    """`data` decompressed (at most 64 KB) where it opens as a zlib, gzip, bzip2 or xz stream;
    otherwise `data` itself."""
    if len(data) >= 2 and data[0] == 0x78 and (data[0] * 256 + data[1]) % 31 == 0:
        out = _bounded(zlib.decompressobj(), data)
    elif data[:2] == b"\x1f\x8b":
        out = _bounded(zlib.decompressobj(16 + zlib.MAX_WBITS), data)
    elif data[:3] == b"BZh":
        out = _bounded(bz2.BZ2Decompressor(), data)
    elif data[:6] == b"\xfd7zXZ\x00":
        out = _bounded(lzma.LZMADecompressor(), data)
    else:
        return data
    return out or data


def raw_inflated(data: bytes) -> bytes | None:
    """`data` read as a raw DEFLATE stream (no header: `zlib.compressobj(wbits=-15)`), where that
    gives anything (at most 64 KB)."""
    return _bounded(zlib.decompressobj(-zlib.MAX_WBITS), data) or None
