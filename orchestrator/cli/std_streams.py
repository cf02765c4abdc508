"""The command line's standard streams, made to write whole or fail."""

from __future__ import annotations

import io
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
