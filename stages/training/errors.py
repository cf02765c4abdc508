"""The training package's one root exception; callers catch `TrainingError` at the stage boundary."""


class TrainingError(Exception):
    """A training, sampling or checkpoint operation failed (bad model files, bad checkpoint, ...)."""


class TrainingInterrupted(TrainingError):
    """A stop was requested (SIGTERM, a pause) and training stopped between two steps."""


class CheckpointWriteError(TrainingError):
    """A checkpoint or model folder could not be written: a full disk, a quota, permissions,
    whatever type the library raised it as (`mx.save_safetensors` raises `RuntimeError` on a full
    disk). A runtime condition: the run pauses with this reason, and a resume writes it again."""
