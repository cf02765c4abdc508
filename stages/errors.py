"""The exceptions a stage raises to the driver, in a module of their own so that whoever only
catches them (the command line's error handler) does not import the stages' machinery."""


class StageError(Exception):
    """A stage could not do its work (bad data, a missing model); the run fails with this reason."""


class StageInterrupted(Exception):
    """A stage stopped at a safe point because `ctx.should_stop()` said so; the run is paused."""
