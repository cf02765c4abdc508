"""The audit readers: what `rlvr why`, `report`, `status` and `replay` show, and the metric sinks.
They read the event log and write nothing to it."""
