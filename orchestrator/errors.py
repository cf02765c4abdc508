"""The orchestrator's exceptions: one root, each message naming what is at fault."""


class OrchestratorError(Exception):
    """Root of the orchestrator's errors; the CLI prints its message as one line."""


class ConfigError(OrchestratorError):
    """A config file or `key=value` override is missing, malformed or invalid."""


class IllegalTransitionError(OrchestratorError):
    """The state machine refused a trigger in the run's current state."""


class LeaseHeldError(OrchestratorError):
    """Another live driver owns the run."""


class UsageError(OrchestratorError):
    """What was typed cannot be acted on (an unknown event type, a step the run never reached):
    bad input, exit 2, nothing written."""
