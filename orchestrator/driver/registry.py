"""The product's stage registry: the real stage implementations, by state name."""

from __future__ import annotations

from stages.data_generation import DataGeneration
from stages.evaluation import Evaluation
from stages.iterative_training import IterativeTraining
from stages.rlvr_optimization import RLVROptimization
from stages.sft_preparation import SFTPreparation
from stages.task_design import TaskDesign
from stages.types import Stage
from stages.verification import Verification


def product_stages() -> dict[str, Stage]:
    """One implementation for each of the seven stages."""
    stages: list[Stage] = [
        SFTPreparation(),
        TaskDesign(),
        Verification(),
        DataGeneration(),
        RLVROptimization(),
        IterativeTraining(),
        Evaluation(),
    ]
    return {stage.name: stage for stage in stages}
