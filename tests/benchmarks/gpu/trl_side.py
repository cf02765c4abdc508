"""The peer side of the GPU benchmark: TRL's GRPOTrainer (PyTorch, transformers generation, no
vLLM) on the same model folder, prompts, group size and lengths as our side.

    python -m tests.benchmarks.gpu.trl_side --config C --model-dir D --result R.json
        [--path plain|cb|static]

`--path` picks TRL's generation path (vLLM is out of scope: not available where this runs):
`plain` transformers `generate` (the default), `cb` `use_transformers_continuous_batching=True`,
`static` `cache_implementation="static"` (a fixed-shape KV cache). The result's `side` is
`trl_<path>`.
One optimizer step = one generation of groups_per_batch x group_size completions, then
gradient accumulation over micro-batches of `micro_batch_rows` (per_device_train_batch_size).
Fixed length: generation_kwargs min_new_tokens = max_completion_length (EOS masked until then).
Timing: a TrainerCallback synchronizes CUDA at on_step_begin / on_step_end; generation time is
measured by wrapping the trainer's `_generate`.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from tests.benchmarks.gpu import common

# GRPOConfig settings of each of TRL's transformers generation paths
PATHS: dict[str, dict] = {
    "plain": {},
    "cb": {"use_transformers_continuous_batching": True},
    "static": {"cache_implementation": "static"},
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--profile", default=None)
    ap.add_argument("--model-dir", required=True, type=Path)
    ap.add_argument("--result", required=True, type=Path)
    ap.add_argument("--path", choices=sorted(PATHS), default="plain")
    args = ap.parse_args()
    cfg = common.load_config(args.config, args.profile)
    m, g, bench = cfg["model"], cfg["grpo"], cfg["bench"]

    import datasets
    import torch
    import transformers
    import trl
    from transformers import AutoTokenizer, TrainerCallback
    from trl import GRPOConfig, GRPOTrainer

    cuda = torch.cuda.is_available()
    sync = torch.cuda.synchronize if cuda else (lambda: None)
    out: dict = {
        "side": f"trl_{args.path}",
        "generation_path": args.path,
        "generation_settings": PATHS[args.path],
        "torch": torch.__version__,
        "transformers": transformers.__version__,
        "trl": trl.__version__,
        "datasets": datasets.__version__,
        "device": torch.cuda.get_device_name(0) if cuda else "cpu",
    }
    print(f"[trl] {json.dumps(out)}", flush=True)

    n_seq = g["groups_per_batch"] * g["group_size"]
    if n_seq % g["micro_batch_rows"]:
        raise ValueError("groups_per_batch * group_size must be a multiple of micro_batch_rows")
    total_steps = bench["warmup_steps"] + bench["steps"]
    tokenizer = AutoTokenizer.from_pretrained(args.model_dir)
    prompts = common.prompts(g, m["vocab_size"])
    dataset = datasets.Dataset.from_dict({"prompt": prompts * total_steps})

    def reward_fn(prompts, completions, **kwargs):
        return [common.reward(c) for c in completions]

    tmp = tempfile.mkdtemp(prefix="trl_bench_")
    config = GRPOConfig(
        output_dir=tmp,
        per_device_train_batch_size=g["micro_batch_rows"],
        gradient_accumulation_steps=n_seq // g["micro_batch_rows"],
        num_generations=g["group_size"],
        max_completion_length=g["max_tokens"],
        temperature=g["temperature"],
        top_p=g["top_p"],
        top_k=0,
        generation_kwargs={"min_new_tokens": g["max_tokens"]},
        learning_rate=g["learning_rate"],
        lr_scheduler_type="constant",
        weight_decay=0.0,
        beta=g["kl_penalty_coef"],
        epsilon=0.2,
        epsilon_high=0.28,
        loss_type="dapo",  # token-mean over the batch, as our default loss_agg
        scale_rewards="group",
        max_grad_norm=g["max_grad_norm"],
        gradient_checkpointing=False,  # TRL's default is True; our trainer has none
        bf16=cuda and m["dtype"] == "bfloat16",
        model_init_kwargs={"dtype": m["dtype"]},
        use_vllm=False,
        max_steps=total_steps,
        logging_steps=1,
        report_to="none",
        save_strategy="no",
        shuffle_dataset=False,
        seed=0,
        disable_tqdm=True,
        use_cpu=not cuda,
        dataloader_num_workers=0,
        **PATHS[args.path],
    )

    class Timer(TrainerCallback):
        def __init__(self) -> None:
            self.begin, self.steps, self.ends, self.logs = None, [], [], []

        def on_step_begin(self, args, state, control, **kw):
            sync()
            self.begin = time.perf_counter()

        def on_step_end(self, args, state, control, **kw):
            sync()
            now = time.perf_counter()
            self.steps.append(now - self.begin)
            self.ends.append(now)

        def on_log(self, args, state, control, logs=None, **kw):
            self.logs.append(dict(logs or {}))

    t0 = time.perf_counter()
    timer = Timer()
    trainer = GRPOTrainer(
        model=str(args.model_dir),
        reward_funcs=reward_fn,
        args=config,
        train_dataset=dataset,
        processing_class=tokenizer,
        callbacks=[timer],
    )
    out["load_s"] = time.perf_counter() - t0
    out["param_dtype"] = str(next(trainer.model.parameters()).dtype)
    out["ref_model"] = trainer.ref_model is not None
    out["attn_implementation"] = getattr(trainer.model.config, "_attn_implementation", None)

    gens = []
    original = trainer._generate

    def timed_generate(prompts_list):
        sync()
        t = time.perf_counter()
        result = original(prompts_list)
        sync()
        prompt_ids, completion_ids = result[0], result[1]
        gens.append(
            {
                "s": time.perf_counter() - t,
                "n": len(completion_ids),
                "completion_tokens": sum(len(c) for c in completion_ids),
                "prompt_tokens": sum(len(p) for p in prompt_ids),
            }
        )
        return result

    trainer._generate = timed_generate
    trainer.train()

    if len(gens) != total_steps or len(timer.steps) != total_steps:
        raise RuntimeError(
            f"expected {total_steps} steps/generations, got {len(timer.steps)}/{len(gens)}"
        )
    step_logs = [lg for lg in timer.logs if "loss" in lg]
    steps = []
    for i in range(total_steps):
        gen = gens[i]
        step_s = timer.steps[i]
        lg = step_logs[i] if i < len(step_logs) else {}
        row = {
            "step": i,
            "warmup": i < bench["warmup_steps"],
            "step_s": step_s,
            "wall_s": timer.ends[i] - (timer.ends[i - 1] if i else timer.ends[0] - step_s),
            "sample_s": gen["s"],
            "train_s": step_s - gen["s"],
            "sample_tokens": gen["completion_tokens"],
            "train_tokens": gen["completion_tokens"] + gen["prompt_tokens"],
            "n_completions": gen["n"],
            "response_len": lg.get("completions/mean_length"),
            "loss": lg.get("loss"),
            "kl": lg.get("kl"),
            "entropy": lg.get("entropy"),
            "grad_norm": lg.get("grad_norm"),
            "peak_mem_gb": torch.cuda.max_memory_allocated() / 1e9 if cuda else None,
        }
        steps.append(row)
        print(f"[trl] step {json.dumps(row)}", flush=True)
    out["steps"] = steps
    args.result.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    sys.exit(main())
