"""The driver: the state machine, command handlers, the stage loop, leases, signals, resume and
branch, data-parallel launch, and the supervisor."""
