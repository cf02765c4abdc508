"""Reinforcement learning with verifiable rewards: the one GRPO step (`step.py`) and the loop the
RL stages drive around it. Layout, each module one job:

- `step.py`: the step's phases sample -> score -> refill -> update, on a world of one or all
  `mlx.launch` ranks; `figures.py`: its last phase, the figures; `types.py`: each phase's result
- `sampling.py`: the split-invariant sampler; `throughput.py`: how fast a rank samples and trains
- `split.py`: the split of a step's groups over ranks; `session.py`: a stage's context over the
  run's services, and the settings in force (the log's fold)
- `logged_step.py`: a step as the run logs it; `loop.py`: the loop, its two batches per step
- `decisions.py`: acting on logged decisions; `checkpoints.py`; `chaos.py`; `resume.py`
- `refill.py`: dynamic sampling's extra rounds; `rewards.py`: weighted reward components
"""

import stages.training  # noqa: F401  (OpenBLAS before mlx)
