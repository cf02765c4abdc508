"""Training on mlx / mlx-lm: the embedded tiny model, SFT, batched sampling, GRPO, checkpoints.

Importing this package first loads OpenBLAS under mlx[cpu] on Linux (see `blas.py`); it must run
before anything imports mlx, so the orchestrator imports `stages.training` before mlx.
"""

from stages.training.blas import enable_openblas

enable_openblas()
