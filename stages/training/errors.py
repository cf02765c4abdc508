"""The training package's one root exception; callers catch `TrainingError` at the stage boundary."""


class TrainingError(Exception):
    """A training, sampling or checkpoint operation failed (bad model files, bad checkpoint, ...)."""


class TrainingInterrupted(TrainingError):
    """A stop was requested (SIGTERM, a pause) and training stopped between two steps."""
