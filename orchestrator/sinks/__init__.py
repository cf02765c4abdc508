"""The metric sinks (TensorBoard, Weights & Biases, JSON lines): `metrics` turns logged events into
scalars and writes them (`rlvr sink` backfills a run), `live` follows a driver as it appends. They
are not audit readers (`orchestrator.audit` explains a run; these export its numbers)."""
