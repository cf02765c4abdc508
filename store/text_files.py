"""Reading a text file a person hands the command line (a config, a task file, an export): UTF-8
or an error that names the file and the line of the first bad byte, never a `UnicodeDecodeError`
traceback. Lives on the bottom floor so that every package reads such files one way."""

from __future__ import annotations

from pathlib import Path


class NotUTF8Error(ValueError):
    """The file is not UTF-8 text; the message names the file, line and byte."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def read_utf8(path: Path) -> str:
    """The file's text; `NotUTF8Error` (file:line) when it is not UTF-8, `OSError` as raised."""
    data = path.read_bytes()
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        raise NotUTF8Error(
            f"{path}:{line}: not UTF-8 text (byte 0x{data[e.start]:02x} at offset {e.start})",
            line,
        ) from e
