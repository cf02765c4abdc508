"""Reinforcement learning with verifiable rewards: the one GRPO step (`step.py`) and the loop the
RL stages drive around it. Layout, each module one job:

- `step.py`: sample, score, train, the step's figures, on a world of one or all `mlx.launch` ranks
- `sampling.py`: the split-invariant sampler; `throughput.py`: how fast a rank samples and trains
- `split.py`: how a step's groups are split over ranks; `session.py`: what the pieces share
- `logged_step.py`: a step as the run logs it; `loop.py`: the loop, its two batches per step
- `decisions.py`: acting on logged decisions; `checkpoints.py`; `chaos.py`; `resume.py`
- `refill.py`: dynamic sampling's extra rounds; `rewards.py`: weighted reward components
"""

import stages.training  # noqa: F401  (OpenBLAS before mlx)
