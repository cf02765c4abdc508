"""The store package's exceptions: one root, translated at the boundary."""


class StoreError(Exception):
    """Root of every error raised by the event log and the blob store."""


class ConcurrencyError(StoreError):
    """A writer appended with a stale expected `seq`: another writer got there first."""


class IntegrityError(StoreError):
    """Stored data does not match its hash (a tampered event or a corrupt blob)."""


class PayloadMismatchError(IntegrityError):
    """A row's payload does not fit its event type (a field of the wrong type, not JSON): the
    chain may hold, but the row is not one the code wrote."""


class UnknownRunError(StoreError):
    """The run id is not in this store."""


class SequenceGapError(StoreError):
    """Events handed to a fold skip a `seq`: the history is incomplete."""


class BadExportError(StoreError):
    """An export file that is not one to import: no file, not UTF-8 text, no row, or a line that
    is not a row the readers would read (`FILE:LINE: ...`). Bad input, refused (exit 2) before any
    store is written; a broken chain is an `IntegrityError`'s matter (`import_check`)."""
