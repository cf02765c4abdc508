"""GRPO on a GPU: our mlx trainer (MLX's CUDA backend) against TRL's GRPOTrainer (PyTorch), same
GPU, same call, same model shape (Qwen2.5-0.5B architecture, random weights), same prompts, group
size and lengths. See configs/gpu_bench.toml.

    python tests/benchmarks/bench_gpu.py --config configs/gpu_bench.toml [--sides ours,trl]
        [--trl-paths plain,cb,static] [--side-timeout S] [--profile tiny] [--workdir DIR]
        [--out DIR] [--variants compiled,syncsample,mb4] [--check]

The TRL side runs once per generation path of `--trl-paths` (tests/benchmarks/gpu/trl_side.py:
`trl_plain` transformers generate, `trl_cb` continuous batching, `trl_static` a static KV cache),
each its own process; the fastest path that completes is the anchor of the speedup. A path that
fails or runs past `--side-timeout` seconds is reported as such (rc, error) and the run goes on.
Each side's figures are also written on their own, as `<side>.json` in the output folder.

Ours is the stock `rl_step` (stages/rl/step.py) with `GRPOConfig.micro_batches` = sequences / `micro_batch_rows`.
`--variants` runs ours again after the sides, each a separate process: `mbN` with N
micro-batches (mb1: the unbatched step), `legacy` with the previous log-prob path, `compiled` /
`eager` with `GRPOConfig.compile_loss` on / off, `syncsample` with the step-by-step decode loop
(no pipelining), `fullhead` without the chunked LM head, `eagerdecode` with
`SamplingConfig.compiled_decode` off, `async` with asynchronous rollouts
(`GRPOConfig.max_staleness = 1`: the next batch sampled by a second process while this one
trains; configs/gpu_bench.toml `max_staleness` sets it for every run of ours).

Each side runs in its own process (mlx and torch never share the GPU at once), one after the
other, on the same model folder (built once with transformers when torch is importable, else with
mlx_lm's qwen2 class). Both sides generate exactly `max_tokens` tokens per completion (ours: the
tokenizer's EOS set is emptied; TRL: min_new_tokens = max_completion_length), so the work is equal.

Figures are medians over the measured steps (warm-up steps left out). MFU counts model FLOPs
6 N (prompt+completion tokens trained) + 2 N (tokens sampled), N = matrix-product parameters
(tests/benchmarks/gpu/common.py: flop_params), over step seconds and the peak in [bench].
Last line: one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.benchmarks.gpu import common  # noqa: E402

TIMED_OUT = -9  # run_side's return code for a side killed at its timeout


def run_side(module: str, argv: list[str], env: dict, log, timeout_s: float | None = None) -> int:
    """Run a side in its own process, echoing (and logging) its output as it comes; past
    `timeout_s` seconds it is killed and TIMED_OUT returned."""
    cmd = [sys.executable, "-u", "-m", module, *argv]
    print(f"$ {' '.join(cmd)}", flush=True)
    proc = subprocess.Popen(
        cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    killed = threading.Event()

    def kill() -> None:
        killed.set()
        proc.kill()

    timer = threading.Timer(timeout_s, kill) if timeout_s else None
    if timer:
        timer.start()
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if log:
            log.write(line)
            log.flush()
    rc = proc.wait()
    if timer:
        timer.cancel()
    return TIMED_OUT if killed.is_set() else rc


def failure(rc: int, timeout_s: float | None, what: str) -> dict:
    if rc == TIMED_OUT:
        return {"rc": rc, "error": f"{what} timed out after {timeout_s:.0f} s"}
    return {"rc": rc, "error": f"{what} failed (rc {rc}); see log"}


def anchor(results: dict) -> tuple[str | None, dict]:
    """The fastest TRL path that completed: (its key, its figures), or (None, {})."""
    done = {k: v for k, v in results.items() if k.startswith("trl_") and "step_s" in v}
    if not done:
        return None, {}
    key = min(done, key=lambda k: done[k]["step_s"])
    return key, done[key]


def summarise(steps: list[dict], m: dict, bench: dict, g: dict) -> dict:
    measured = [s for s in steps if not s["warmup"]] or steps
    med = {
        k: common.median([s[k] for s in measured])
        for k in ("step_s", "wall_s", "sample_s", "train_s", "sample_tokens", "train_tokens")
    }
    out = {
        "step_s": med["step_s"],
        "wall_s": med["wall_s"],
        "sample_s": med["sample_s"],
        "train_s": med["train_s"],
        "sample_tokens": med["sample_tokens"],
        "train_tokens": med["train_tokens"],
        "steps_measured": len(measured),
        "step_s_all": [round(s["step_s"], 4) for s in steps],
    }
    out.update(
        common.figures(
            m,
            bench,
            med["sample_tokens"],
            med["train_tokens"],
            med["sample_s"],
            med["train_s"],
            med["step_s"],
        )
    )
    out["peak_mem_gb"] = max((s.get("peak_mem_gb") or 0.0) for s in steps)
    out.update(common.limits(m, bench, g, med["sample_s"], med["train_tokens"]))
    return out


def speedup(peer: dict, ours: dict) -> float | None:
    """TRL's step time over ours; None when either side has no figure (it failed)."""
    if "step_s" in ours and "step_s" in peer:
        return peer["step_s"] / ours["step_s"]
    return None


def gpu_name() -> str:
    try:
        return subprocess.run(
            ["nvidia-smi", "--query-gpu=name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        ).stdout.strip()
    except Exception:
        return f"cpu ({platform.processor() or platform.machine()}, {os.cpu_count()} cores)"


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--config", default=str(ROOT / "configs" / "gpu_bench.toml"))
    ap.add_argument("--profile", default=None, help="a table of the config overriding keys (tiny)")
    ap.add_argument("--sides", default="ours,trl")
    ap.add_argument("--trl-paths", default="plain,cb,static", help="TRL generation paths")
    ap.add_argument("--side-timeout", type=float, default=None, help="seconds per side process")
    ap.add_argument("--workdir", default="/tmp/rlvr_gpu_bench", type=Path)
    ap.add_argument("--out", default=None, type=Path, help="where results JSON and logs go")
    ap.add_argument("--variants", default="", help="more runs of ours (see above)")
    ap.add_argument("--check", action="store_true", help="micro-batched == one pass (tiny)")
    args = ap.parse_args()

    cfg = common.load_config(args.config, args.profile)
    m, g, bench = cfg["model"], cfg["grpo"], cfg["bench"]
    out_dir = args.out or args.workdir
    out_dir.mkdir(parents=True, exist_ok=True)
    tag = args.profile or "full"
    model_dir = args.workdir / f"model_{tag}"
    log = (out_dir / f"bench_gpu_{tag}.log").open("a")
    env = dict(
        os.environ,
        PYTHONPATH=os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p),
        PYTHONUNBUFFERED="1",
    )

    device = gpu_name()
    header = {
        "device": device,
        "python": platform.python_version(),
        "config": str(args.config),
        "profile": args.profile,
        "model": m,
        "grpo": g,
        "bench": bench,
        "flop_params": common.flop_params(m),
        "total_params": common.total_params(m),
    }
    print(f"[bench] {json.dumps(header)}", flush=True)
    t = time.perf_counter()
    common.build_model_dir(m, model_dir)
    print(f"[bench] model folder {model_dir} ready in {time.perf_counter() - t:.1f}s", flush=True)

    base = ["--config", str(args.config), "--model-dir", str(model_dir)] + (
        ["--profile", args.profile] if args.profile else []
    )
    results: dict = {"header": header}
    if args.check:
        r = args.workdir / f"ours_check_{tag}.json"
        r.unlink(missing_ok=True)
        rc = run_side("tests.benchmarks.gpu.ours", [*base, "--result", str(r), "--check"], env, log)
        results["check"] = json.loads(r.read_text())["check"] if rc == 0 else {"rc": rc}
    sides = []
    for side in [s for s in args.sides.split(",") if s]:
        if side == "trl":
            sides += [f"trl_{p}" for p in args.trl_paths.split(",") if p]
        elif side == "ours" or side.startswith("trl_"):
            sides.append(side)
        else:
            raise SystemExit(f"unknown side {side!r}: use ours, trl or trl_<path>")
    for side in sides:
        module, extra = "tests.benchmarks.gpu.ours", []
        if side.startswith("trl_"):
            module, extra = "tests.benchmarks.gpu.trl_side", ["--path", side[4:]]
        r = args.workdir / f"{side}_{tag}.json"
        r.unlink(missing_ok=True)
        rc = run_side(module, [*base, "--result", str(r), *extra], env, log, args.side_timeout)
        if rc != 0 or not r.exists():
            results[side] = failure(rc, args.side_timeout, f"side {side}")
        else:
            raw = json.loads(r.read_text())
            results[side] = {
                **{k: v for k, v in raw.items() if k != "steps"},
                **summarise(raw["steps"], m, bench, g),
                "steps": raw["steps"],
            }
        (out_dir / f"{side}.json").write_text(
            json.dumps({"device": device, "side": side, **results[side]}, indent=2)
        )
    for variant in [v for v in args.variants.split(",") if v]:
        flags = {"legacy": "--legacy-logits", "compiled": "--compile-loss", "eager": "--eager-loss"}
        flags["syncsample"] = "--sync-sampler"
        flags["fullhead"] = "--full-head"
        flags["eagerdecode"] = "--eager-decode"
        flags["async"] = "--max-staleness=1"
        if variant in flags:
            extra = [flags[variant]]
        elif variant.startswith("mb") and variant[2:].isdigit():
            extra = ["--micro-batches", variant[2:]]
        else:
            raise SystemExit(f"unknown variant {variant!r}: use mbN, {', '.join(flags)}")
        r = args.workdir / f"ours_{variant}_{tag}.json"
        r.unlink(missing_ok=True)
        rc = run_side(
            "tests.benchmarks.gpu.ours", [*base, "--result", str(r), *extra], env, log,
            args.side_timeout,
        )  # fmt: skip
        if rc == 0 and r.exists():
            raw = json.loads(r.read_text())
            results[f"ours_{variant}"] = {
                "micro_batches": raw.get("micro_batches"),
                **summarise(raw["steps"], m, bench, g),
            }
        else:
            results[f"ours_{variant}"] = failure(rc, args.side_timeout, f"variant {variant}")
    (out_dir / f"results_{tag}.json").write_text(json.dumps(results, indent=2))

    ours = results.get("ours", {})
    anchor_key, peer = anchor(results)
    trl_keys = [k for k in sides if k.startswith("trl_")]
    print(f"\nanchor (fastest TRL path that completed): {anchor_key}")
    print("\n| figure | ours (mlx) | " + " | ".join(trl_keys) + " |")
    print("| --- | --- |" + " --- |" * len(trl_keys))
    for key, fmt in (
        ("step_s", ".2f"),
        ("sample_s", ".2f"),
        ("train_s", ".2f"),
        ("sample_tokens_per_s", ",.0f"),
        ("train_tokens_per_s", ",.0f"),
        ("mfu", ".2%"),
        ("train_mfu", ".2%"),
        ("sample_mfu", ".2%"),
        ("decode_step_ms", ".2f"),
        ("peak_mem_gb", ".1f"),
    ):
        cells = [ours.get(key)] + [
            results[k].get(key) if "step_s" in results[k]
            else "timed out" if results[k].get("rc") == TIMED_OUT
            else f"failed (rc {results[k].get('rc')})"
            for k in trl_keys
        ]  # fmt: skip
        print(f"| {key} | " + " | ".join(
            format(c, fmt) if isinstance(c, float) else str(c) for c in cells) + " |")  # fmt: skip
    variants = {k[5:]: v for k, v in results.items() if k.startswith("ours_")}
    for name, v in variants.items():
        if "step_s" in v:
            print(
                f"| ours, variant {name} (micro_batches {v['micro_batches']}) | step "
                f"{v['step_s']:.2f} s, sample {v['sample_s']:.2f} s, train {v['train_s']:.2f} s, "
                f"MFU {v['mfu']:.2%}, peak {v['peak_mem_gb']:.1f} GB | |"
            )
        else:
            print(f"| ours, variant {name} | failed (rc {v.get('rc')}) | |")
    final = {
        "device": device,
        "anchor": anchor_key,
        "trl_step_s": {k: results[k].get("step_s") for k in trl_keys},
        "trl_errors": {k: results[k]["error"] for k in trl_keys if "error" in results[k]},
        "step_s": ours.get("step_s"),
        "peer_step_s": peer.get("step_s"),
        "speedup": speedup(peer, ours),
        "mfu": ours.get("mfu"),
        "peer_mfu": peer.get("mfu"),
        "sample_tokens_per_s": ours.get("sample_tokens_per_s"),
        "peer_sample_tokens_per_s": peer.get("sample_tokens_per_s"),
        "train_tokens_per_s": ours.get("train_tokens_per_s"),
        "peer_train_tokens_per_s": peer.get("train_tokens_per_s"),
        "sample_s": ours.get("sample_s"),
        "peer_sample_s": peer.get("sample_s"),
        "train_s": ours.get("train_s"),
        "peer_train_s": peer.get("train_s"),
        "micro_batches": ours.get("micro_batches"),
        "peak_mem_gb": ours.get("peak_mem_gb"),
        "variants": {
            name: {
                "step_s": v.get("step_s"),
                "train_s": v.get("train_s"),
                "speedup": speedup(peer, v),
                "peak_mem_gb": v.get("peak_mem_gb"),
            }
            for name, v in variants.items()
        },
        "profile": tag,
    }
    print(json.dumps(final), flush=True)


if __name__ == "__main__":
    main()
