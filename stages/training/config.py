"""Plain, serialisable training configs. Names follow tinker-cookbook's RLVR recipe where they
overlap (model_name, lora_rank, group_size, groups_per_batch, learning_rate, max_tokens,
temperature, kl_penalty_coef, num_substeps)."""

from __future__ import annotations

import string
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from store.settings import Settings

DEFAULT_VOCAB = "".join(c for c in string.printable if c not in "\t\r\x0b\x0c")


class ModelConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    model_name: str = Field(
        "embedded",
        description='"embedded" builds the tiny llama below; otherwise a local path or repo id '
        "that mlx_lm.load accepts.",
    )
    lora_rank: int = Field(0, ge=0, le=4096, description="LoRA rank; 0 means full fine-tuning.")
    lora_scale: float = Field(
        20.0, gt=0, le=10_000, description="LoRA output scale (mlx-lm's `scale`)."
    )
    lora_dropout: float = Field(0.0, ge=0, lt=1, description="Dropout on the LoRA input.")
    lora_layers: int = Field(
        -1,
        ge=-1,
        le=1024,
        description="How many of the last transformer blocks get LoRA; -1 means all.",
    )
    hidden_size: int = Field(128, gt=0, le=65_536, description="Embedded model: hidden width.")
    num_hidden_layers: int = Field(
        2, gt=0, le=1024, description="Embedded model: transformer blocks."
    )
    intermediate_size: int = Field(
        384, gt=0, le=1_048_576, description="Embedded model: MLP width."
    )
    num_attention_heads: int = Field(
        4, gt=0, le=1024, description="Embedded model: attention heads."
    )
    max_position_embeddings: int = Field(
        512, gt=0, le=4_194_304, description="Embedded model: longest sequence it is meant for."
    )
    rms_norm_eps: float = Field(1e-5, gt=0, le=1.0, description="Embedded model: RMSNorm epsilon.")
    rope_theta: float = Field(10000.0, gt=0, le=1e9, description="Embedded model: RoPE base.")
    vocab_chars: str = Field(
        DEFAULT_VOCAB,
        description="Embedded model: the characters of its char-level tokenizer "
        "(plus <pad> and <eos>).",
    )
    init_seed: int = Field(
        0, ge=0, le=2**63 - 1, description="Embedded model: seed of the weight initialisation."
    )
    num_key_value_heads: int | None = Field(
        None,
        gt=0,
        le=1024,
        description="Embedded model: key/value heads (grouped-query attention); "
        "unset: one per attention head.",
    )
    vocab_size: int | None = Field(
        None,
        gt=0,
        le=1_048_576,
        description="Embedded model: rows of the (tied) embedding and LM head, padded past "
        "the tokenizer's tokens as Qwen2.5's 151,936 are (a real-shaped head); unset: the "
        "tokenizer's size.",
    )
    dtype: Literal["float32", "bfloat16"] = Field(
        "float32", description="Embedded model: the dtype its weights are saved (and trained) in."
    )

    @model_validator(mode="after")
    def _check(self) -> ModelConfig:
        if self.hidden_size % self.num_attention_heads:
            raise ValueError(
                f"hidden_size={self.hidden_size} is not divisible by "
                f"num_attention_heads={self.num_attention_heads}"
            )
        kv = self.num_key_value_heads
        if kv is not None and self.num_attention_heads % kv:
            raise ValueError(
                f"num_attention_heads={self.num_attention_heads} is not a multiple of "
                f"num_key_value_heads={kv}"
            )
        if self.vocab_size is not None and self.vocab_size < len(self.vocab_chars) + 2:
            raise ValueError(
                f"vocab_size={self.vocab_size} is below the tokenizer's "
                f"{len(self.vocab_chars) + 2} tokens (vocab_chars plus <pad> and <eos>)"
            )
        if len(set(self.vocab_chars)) != len(self.vocab_chars):
            raise ValueError("vocab_chars has repeated characters")
        return self


LRSchedule = Literal["constant", "cosine", "linear"]


class SFTConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    steps: int = Field(3000, gt=0, le=10_000_000, description="Optimizer steps.")
    batch_size: int = Field(64, gt=0, le=65_536, description="Examples per step.")
    learning_rate: float = Field(3e-3, gt=0, le=1.0, description="Peak AdamW learning rate.")
    lr_schedule: LRSchedule = Field("cosine", description="Decay after warmup.")
    warmup_steps: int = Field(
        100, ge=0, le=10_000_000, description="Linear warmup steps from 0 to peak LR."
    )
    min_lr_ratio: float = Field(0.1, ge=0, le=1, description="Final LR as a fraction of peak.")
    weight_decay: float = Field(0.0, ge=0, le=10.0, description="AdamW weight decay.")
    max_grad_norm: float = Field(
        1.0, ge=0, le=1e6, description="Gradient-norm clip; 0 disables it."
    )
    seed: int = Field(0, ge=0, le=2**63 - 1, description="Seed of batch order and any dropout.")
    report_every: int = Field(
        50, gt=0, le=10_000_000, description="Steps between on_progress reports."
    )
    use_chat_template: bool = Field(
        True, description="Wrap prompts in the tokenizer's chat template when it has one."
    )


class SamplingConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    max_tokens: int = Field(
        16, gt=0, le=131_072, description="Most tokens generated per completion."
    )
    temperature: float = Field(
        1.0, ge=0, le=100.0, description="Sampling temperature; 0 is greedy."
    )
    top_p: float = Field(1.0, gt=0, le=1, description="Nucleus sampling mass; 1 disables it.")
    use_chat_template: bool = Field(
        True, description="Wrap prompts in the tokenizer's chat template when it has one."
    )
    batch_size: int = Field(
        512, gt=0, le=65_536, description="Most sequences decoded together by the batch generator."
    )
    compiled_decode: bool = Field(
        False,
        description="Decode with one mx.compile graph per token step over a fixed-shape KV cache "
        "(traced once per batch and length bucket) instead of building each step's ops in "
        "Python: takes the host off a GPU's critical path. Same tokens and log-probs as the "
        "eager loop on CPU (bitwise there); off by default because on a CPU the device, not "
        "the host, is the bottleneck.",
    )
    decode_lookahead: int = Field(
        1,
        gt=0,
        le=64,
        description="Compiled decode only: steps queued on the device before the oldest is read "
        "back for the EOS check (up to this many steps are decoded past the last EOS).",
    )
    compiled_decode_per_position: bool = Field(
        False,
        description="Compiled decode only: trace the step once per cache position (attention "
        "reads exactly the slots written, no mask: MLX's CUDA decode attention kernels take no "
        "mask) instead of once per length bucket with a mask; one trace per position and batch "
        "size.",
    )


class GRPOConfig(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    group_size: int = Field(8, ge=2, le=1024, description="Completions sampled per prompt.")
    groups_per_batch: int = Field(32, gt=0, le=65_536, description="Prompts per step.")
    learning_rate: float = Field(1e-4, gt=0, le=1.0, description="Base AdamW learning rate.")
    lr_schedule: LRSchedule = Field("constant", description="Decay after warmup.")
    warmup_steps: int = Field(0, ge=0, le=10_000_000, description="Linear warmup steps.")
    total_steps: int = Field(
        100, gt=0, le=10_000_000, description="Horizon of the cosine/linear decay."
    )
    min_lr_ratio: float = Field(0.1, ge=0, le=1, description="Final LR as a fraction of base.")
    weight_decay: float = Field(0.0, ge=0, le=10.0, description="AdamW weight decay.")
    max_grad_norm: float = Field(
        1.0, ge=0, le=1e6, description="Gradient-norm clip; 0 disables it."
    )
    num_substeps: int = Field(
        1,
        gt=0,
        le=1024,
        description="Optimizer steps per pass over the batch (the batch split into this many "
        "minibatches; TRL steps_per_generation, verl ppo_mini_batch_size).",
    )
    micro_batches: int = Field(
        1,
        gt=0,
        le=65_536,
        description="Run the reference pass and each substep's gradient pass in this many "
        "slices, gradients accumulated into one update: same effective batch, less memory.",
    )
    compile_loss: bool = Field(
        False,
        description="Run each micro-batch's loss and gradient as one mx.compile graph, which "
        "fuses its elementwise work (most of all over the vocabulary); micro-batches are padded "
        "to a multiple of 64 positions, so it traces once per (rows, width bucket).",
    )
    clip_eps_low: float = Field(
        0.2, ge=0, le=10.0, description="PPO ratio clip below 1 (TRL epsilon, verl clip_ratio_low)."
    )
    clip_eps_high: float = Field(
        0.28,
        ge=0,
        le=10.0,
        description="PPO ratio clip above 1, clip-higher (DAPO; TRL epsilon_high, verl "
        "clip_ratio_high).",
    )
    scale_rewards: Literal["group", "batch", "none"] = Field(
        "group",
        description="Advantage = reward - group mean, divided by the group std (group), the "
        "batch std (batch) or nothing (none, Dr. GRPO; TRL scale_rewards='none', verl "
        "norm_adv_by_std_in_grpo=False).",
    )
    std_estimator: Literal["population", "bessel"] = Field(
        "population",
        description="The std of scale_rewards: population (divide by N, numpy's default) or "
        "bessel (divide by N - 1, as TRL's torch.std and verl's torch.std do).",
    )
    std_eps: float = Field(
        1e-6, gt=0, le=1.0, description="Added to the std before dividing (TRL: 1e-4, verl: 1e-6)."
    )
    loss_agg: Literal["token-mean", "sequence-mean", "dr-grpo"] = Field(
        "token-mean",
        description="token-mean: mean over all completion tokens of the batch (DAPO; TRL "
        "loss_type='dapo', verl loss_agg_mode='token-mean'); sequence-mean: mean over each "
        "completion, then over completions (original GRPO; TRL 'grpo', verl "
        "'seq-mean-token-mean'); dr-grpo: sum over tokens / (completions x "
        "sampling.max_tokens), a constant normaliser (Dr. GRPO, Liu et al. 2025; TRL 'dr_grpo', "
        "verl 'seq-mean-token-sum-norm').",
    )
    importance_level: Literal["token", "sequence"] = Field(
        "token",
        description="token: one PPO ratio per token; sequence: one per completion, "
        "exp(mean of its tokens' log-ratios), clipped as a whole (GSPO, Zheng et al. 2025; "
        "TRL importance_sampling_level='sequence', verl policy_loss.loss_mode='gspo').",
    )
    delta: float | None = Field(
        None,
        gt=1,
        le=1e6,
        description="Upper bound on the unclipped ratio, two-sided clipping (INTELLECT-2; TRL "
        "delta). It binds only where the advantage is negative, so above 1 + clip_eps_high it "
        "is verl's dual-clip clip_ratio_c. None disables it.",
    )
    kl_estimator: Literal["k3", "k3-bias-corrected"] = Field(
        "k3",
        description="k3: the k3 KL estimate as a loss term, whose gradient follows the forward "
        "KL(ref||pi) (DeepSeekMath; TRL use_bias_correction_kl=False, verl "
        "kl_loss_type='low_var_kl'); k3-bias-corrected: k3 times the differentiable importance "
        "ratio, whose gradient is the reverse KL(pi||ref)'s, on- and off-policy (DeepSeek-V3.2; "
        "TRL use_bias_correction_kl=True, TRL's default).",
    )
    num_iterations: int = Field(
        1,
        gt=0,
        le=64,
        description="Passes over one batch, each split into num_substeps minibatches with an "
        "optimizer step each (PPO epochs; TRL num_iterations, verl ppo_epochs). Above 1 the "
        "ratio's base is the sampler's log-probs.",
    )
    max_staleness: int = Field(
        0,
        ge=0,
        le=8,
        description="Asynchronous rollouts: batches for steps t+1..t+k are sampled while step t "
        "trains, by a sampler process holding its own copy of the weights; the batch for step s "
        "is always the one the weights after step s-1-k sample (stages/rl/async_sampler.py), so "
        "runs and resumes are exact. 0: on-policy, each step samples with its own weights (TRL "
        "AsyncGRPOTrainer max_staleness, verl one-step-off-policy). Above 0 the ratio's base is "
        "the sampler's log-probs. Not supported across ranks.",
    )
    tis_cap: float | None = Field(
        None,
        ge=1,
        le=1e6,
        description="Truncated importance sampling: each token's policy-gradient term weighted "
        "by min(pi_trainer / pi_sampler, tis_cap), not differentiated (Yao et al. 2025, 'Your "
        "efficient RL framework secretly brings you off-policy RL training'; verl "
        "tis_imp_ratio_cap). Needs num_iterations = num_substeps = 1. None disables it.",
    )
    overlong_filter: bool = Field(
        False,
        description="Leave truncated completions (no EOS within max_tokens) out of the loss "
        "(DAPO's overlong filtering; TRL mask_truncated_completions).",
    )
    overlong_buffer: int = Field(
        0,
        ge=0,
        le=131_072,
        description="DAPO's soft overlong punishment: completions longer than max_tokens - "
        "overlong_buffer lose up to overlong_penalty_factor of reward, linearly, before "
        "advantages; 0 disables it (verl reward_model.overlong_buffer.len; TRL "
        "get_soft_overlong_punishment's soft_punish_cache).",
    )
    overlong_penalty_factor: float = Field(
        1.0,
        ge=0,
        le=1000.0,
        description="The most reward the overlong buffer takes away (verl "
        "overlong_buffer.penalty_factor; 1 in DAPO and TRL).",
    )
    kl_penalty_coef: float = Field(
        0.01,
        ge=0,
        le=1000.0,
        description="Initial weight of the k3 KL to the frozen reference; from then on the KL "
        "policy owns it (policies.kl), each change a `HyperparametersChanged` event.",
    )
    entropy_coef: float = Field(0.0, ge=0, le=1000.0, description="Weight of the entropy bonus.")
    drop_zero_variance_groups: bool = Field(
        True, description="Leave groups whose rewards are all equal out of the update."
    )
    dynamic_sampling: bool = Field(
        False,
        description="Leave groups whose verifier rewards are all equal out of the batch and refill "
        "it with groups of fresh prompts, sampled in extra rounds until groups_per_batch groups "
        "vary or max_refill_rounds rounds are spent (then the step trains on those it has). Each "
        "round is logged (`BatchRefilled`) with its prompts and rewards, so a resume replays it "
        "(DAPO dynamic sampling, Yu et al. 2025; verl algorithm.filter_groups.enable, with "
        "max_num_gen_batches = 1 + max_refill_rounds; TRL's GRPOTrainer has none). Implies "
        "drop_zero_variance_groups. Not supported across ranks.",
    )
    max_refill_rounds: int = Field(
        2,
        ge=0,
        le=64,
        description="dynamic_sampling: the most extra sampling rounds one step may spend "
        "refilling its batch; each round samples as many fresh prompts as groups are missing.",
    )
    reward_weights: dict[str, Annotated[float, Field(ge=-100, le=100, allow_inf_nan=False)]] = (
        Field(
            default_factory=dict,
            description="Weights of the task family's reward components (e.g. correctness = 1.0, "
            "format = 0.1; `rlvr` lists a family's components in its error for an unknown one): the "
            "reward is their weighted sum, each component's mean is a step metric "
            "`reward_<name>`. Empty: correctness alone, weight 1 (TRL reward_weights with "
            "multi_objective_aggregation='sum_then_normalize'; verl: a custom reward function).",
        )
    )
    verified_threshold: float = Field(
        1.0, ge=-1000, le=1000, description="A rollout counts as verified when its reward >= this."
    )
    seed: int = Field(
        0, ge=0, le=2**63 - 1, description="Root of every step's key: hash(seed, step, attempt)."
    )
    sampling: SamplingConfig = Field(
        default_factory=SamplingConfig, description="How completions are sampled."
    )

    @model_validator(mode="after")
    def _check_off_policy(self) -> GRPOConfig:
        if self.tis_cap is not None and (self.num_iterations > 1 or self.num_substeps > 1):
            raise ValueError(
                "grpo.tis_cap weighs one update per batch: set grpo.num_iterations = 1 and "
                f"grpo.num_substeps = 1 (got {self.num_iterations} and {self.num_substeps})"
            )
        return self

    def __hash__(self) -> int:
        # Configs key the compiled-loss cache; `reward_weights` (a dict) has no hash of its own.
        return hash(self.model_dump_json())

    def start_settings(self) -> Settings:
        """The settings a run starts with (`RunStarted.hyperparameters`): this config's values."""
        return Settings.of({name: _get(self, path) for name, path in SETTING_FIELDS.items()})

    def in_force(self, settings: Settings) -> GRPOConfig:
        """This config with `settings` in force: what one step runs with. The fields named in
        SETTING_FIELDS are start values only; a step never reads them from the run's config."""
        config: GRPOConfig = self
        for name, path in SETTING_FIELDS.items():
            config = _replaced(config, path, getattr(settings, name))
        return config


# Where each setting in force (store/settings.py) starts: its field in the GRPO config.
SETTING_FIELDS: dict[str, tuple[str, ...]] = {
    "learning_rate": ("learning_rate",),
    "kl_penalty_coef": ("kl_penalty_coef",),
    "temperature": ("sampling", "temperature"),
    "entropy_coef": ("entropy_coef",),
    "group_size": ("group_size",),
    "micro_batches": ("micro_batches",),
}


def _get(model: BaseModel, path: tuple[str, ...]) -> Any:
    value: Any = model
    for part in path:
        value = getattr(value, part)
    return value


def _replaced(model: Any, path: tuple[str, ...], value: Any) -> Any:
    """`model` with the field at `path` set to `value` (no copy when it holds it already)."""
    head, *rest = path
    new = value if not rest else _replaced(getattr(model, head), tuple(rest), value)
    if getattr(model, head) == new and type(getattr(model, head)) is type(new):
        return model
    return model.model_copy(update={head: new})
