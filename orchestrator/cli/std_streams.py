"""The command line's standard streams, made to write whole or fail."""

from __future__ import annotations

import errno
import io
import os
import sys


def whole_writes() -> None:
    """Under PYTHONUNBUFFERED (or `python -u`) sys.stdout writes straight to the raw file, and a
    write the disk can only partly take is cut short with no error: CPython's TextIOWrapper and
    `shutil.copyfileobj` both drop the count a raw write returns. `rlvr events export RUN > f` on
    a full disk left 8 KiB of 27 and exit 0 (red team round 25, log 001). A BufferedWriter in
    between writes all or raises, which `main` turns into one error line; line buffering and
    write-through keep output as prompt as unbuffered output was. Streams a caller replaced
    (pytest's capture, a pipe wrapper) are left alone."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        raw = getattr(stream, "buffer", None)
        if type(stream) is not io.TextIOWrapper or not isinstance(raw, io.FileIO):
            continue
        whole = io.TextIOWrapper(
            io.BufferedWriter(raw),
            encoding=stream.encoding,
            errors="backslashreplace",
            line_buffering=True,
            write_through=True,
        )
        setattr(sys, name, whole)


def escaped_when_unencodable() -> None:
    """Text the stream's encoding cannot hold is written escaped (`caf\\xe9`), not an error half
    way through a page: an ASCII stdout (a C-locale cron, PYTHONIOENCODING=ascii) and a pause
    reason a person typed (`café`) ended `rlvr status` in `error: UnicodeEncodeError` (red team
    round 28, log 009). Run text is already made plain for the terminal (orchestrator.terminal);
    this is about the encoding only."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            stream.reconfigure(errors="backslashreplace")


class _ClosedBuffer(io.RawIOBase):
    """The binary side of `_ClosedStdout` (`events export` writes bytes)."""

    def writable(self) -> bool:
        return True

    def write(self, data: object) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def fileno(self) -> int:
        return 1


class _ClosedStdout(io.TextIOBase):
    """What stdout is when fd 1 was closed at start (`rlvr verify RUN >&-`, a daemon wrapper):
    Python sets sys.stdout to None, and the command's first write, or main's flush, was
    `error: AttributeError: 'NoneType' object has no attribute 'flush'` (red team round 29, log
    019). A write is refused as the closed descriptor would refuse it, which `main` reports as
    `cannot write standard output: Bad file descriptor`; a command that writes nothing (a
    refusal) is unaffected."""

    buffer = _ClosedBuffer()

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        raise OSError(errno.EBADF, os.strerror(errno.EBADF))

    def fileno(self) -> int:
        return 1  # `main` points it at /dev/null after a failed write

    def flush(self) -> None:
        pass


def closed_streams_stand_in() -> None:
    """Stand-ins for a stdout or stderr closed at start (see `_ClosedStdout`); errors written to
    a closed stderr go nowhere, and the exit code still says what happened."""
    if sys.stdout is None:
        sys.stdout = _ClosedStdout()
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115 - the process's stderr from here on
