"""The audit readers: what `rlvr why`, `report`, `status` and `replay` show (the metric sinks are
`orchestrator.sinks`).
They read the event log and write nothing to it."""
