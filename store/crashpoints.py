"""Named points where the crash tests kill the process: `RLVR_CRASH_AT="name:n"` sends SIGKILL to
this process the n-th time `crashpoint(name)` is reached. Unset (as in every real run) a call
costs one comparison. Points: sampling, verification, optimizer, checkpoint, store_transaction."""

from __future__ import annotations

import os
import signal

_SPEC = os.environ.get("RLVR_CRASH_AT", "")
_NAME, _, _COUNT = _SPEC.partition(":")
_seen = 0


def crashpoint(name: str) -> None:
    global _seen
    if not _SPEC or name != _NAME:
        return
    _seen += 1
    if _seen == int(_COUNT or 1):
        os.kill(os.getpid(), signal.SIGKILL)
