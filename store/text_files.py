"""Reading a file a person hands the command line (a config, a task file, an export, a key, a
blob store's side files) and writing one it makes (a report, a record). Lives on the bottom
floor so that every package reads and writes such files one way:

- read: a regular file only (a FIFO, a device or a folder is an `OSError` naming why, never a read
  that blocks for ever or that reads `/dev/zero` until memory runs out), at most a bound of bytes,
  and UTF-8 text or an error naming the file, line and byte (never a `UnicodeDecodeError`);
- write: to a temporary file in the same folder, renamed over the target, so a link put there is
  replaced, never written through, and a crash leaves the old file or the new one, never half."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

# What the command line reads whole: task files and exports of long runs fit many times over.
MAX_FILE_BYTES = 1 << 30
_CHUNK = 1 << 20


class NotUTF8Error(ValueError):
    """The file is not UTF-8 text; the message names the file, line and byte."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def _require_regular(fd: int, path: Path | str) -> None:
    """The descriptor, opened without blocking, is a regular file: made blocking again; closed and
    `OSError` "not a regular file" otherwise (checked on the descriptor, so nothing is swapped in)."""
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise


@contextlib.contextmanager
def open_regular(path: Path | str) -> Iterator[BinaryIO]:
    """`path` open for reading in binary, once it is known to be a regular file. Opened without
    blocking (opening a FIFO for reading waits for a writer) and checked on the open descriptor,
    so nothing can be swapped in between; `OSError` "not a regular file" otherwise."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    _require_regular(fd, path)
    with os.fdopen(fd, "rb") as f:
        yield f


def open_appending(path: Path | str, encoding: str = "utf-8") -> TextIO:
    """`path` open for appending text (made when absent), once it is known to be a regular file:
    a FIFO put there is an `OSError` "not a regular file", never an open that waits for a reader
    (opened without blocking; checked on the descriptor), and a symbolic link is one too, never
    written through (a log file is appended to in place, so it cannot be replaced as
    `write_replacing` does: the link is refused)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags | getattr(os, "O_CLOEXEC", 0), 0o644)
    except OSError as e:
        if e.errno == errno.ENXIO:  # a FIFO with no reader
            raise OSError(errno.EINVAL, "not a regular file", str(path)) from e
        if e.errno == errno.ELOOP:  # O_NOFOLLOW on a symbolic link
            raise OSError(errno.ELOOP, "a symbolic link, not a regular file", str(path)) from e
        raise
    _require_regular(fd, path)
    return os.fdopen(fd, "a", encoding=encoding)


def read_regular_bytes(path: Path | str, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of `path`, a regular file of at most `limit` bytes; `OSError` otherwise."""
    too_large = OSError(errno.EFBIG, f"larger than {limit:,} bytes", str(path))
    with open_regular(path) as f:
        if os.fstat(f.fileno()).st_size > limit:
            raise too_large
        # In chunks, not read(limit + 1): that allocates the whole bound for a file of 10 bytes.
        data = bytearray()
        while chunk := f.read(min(_CHUNK, limit + 1 - len(data))):
            data += chunk
            if len(data) > limit:  # it grew since the check
                raise too_large
    return bytes(data)


def read_utf8(path: Path, limit: int = MAX_FILE_BYTES) -> str:
    """The file's text; `NotUTF8Error` (file:line) when it is not UTF-8, `OSError` when it is not
    a regular file, is past `limit` bytes, or cannot be read."""
    data = read_regular_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise NotUTF8Error(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})",
            line,
        ) from e


def jsonl_lines(text: str) -> list[str]:
    """A JSON Lines text's lines: split on "\n" only, a trailing "\r" dropped. Not
    `str.splitlines()`, which also splits at U+2028, U+2029, U+0085 and other characters that JSON
    allows raw inside a string (written unescaped by `ensure_ascii=False` and orjson)."""
    return [line.removesuffix("\r") for line in text.split("\n")]


def refuse_json_constant(name: str) -> float:
    """`json.loads(..., parse_constant=refuse_json_constant)`: the bare `NaN`, `Infinity` and
    `-Infinity` Python's decoder takes are not JSON, and no reference or record holds them (a
    `NaN` reference was scored a pass: round 23, log 015)."""
    raise ValueError(f"invalid JSON: {name} is not a JSON number")


def write_replacing(path: Path, content: str | bytes) -> None:
    """Write `content` to `path` by renaming a finished temporary file of the same folder over
    it: a symlink or a hard link at `path` is replaced (the file it named is left as it was), and
    a failure part way leaves `path` as it was. `OSError` as raised; no temporary file is left."""
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp)
        raise


def is_utf8(text: str) -> bool:
    """Whether `text` can be written as UTF-8 (no lone surrogate: bytes a shell or a file passed
    through undecoded)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
