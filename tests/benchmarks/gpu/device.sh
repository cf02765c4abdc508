#!/usr/bin/env bash
# Device-side steps of the GPU benchmark and the GPU smoke run (the workplace's H100 machine:
# Python 3.12, torch, transformers, no registry). Wheels travel under $WHL (default .whl,
# git-ignored): $WHL/deps (the orchestrator's own: sqlmodel, sqlalchemy, greenlet, structlog,
# transitions, apscheduler, tzlocal, orjson), $WHL/common (mlx, mlx-lm, trl, datasets, dill,
# multiprocess, pydantic and its parts) and the mlx-cuda-13 wheel (~86 MB, over one call's
# 64 MiB) split with `split -b 43M` in two: $WHL/part_a/mlx_cuda_13.part00 (call 1) and
# $WHL/part_b/mlx_cuda_13.part01 (call 2). Calls back to back on the same warm machine: /tmp
# survives between them, the working tree is re-sent each call. Each stage writes straight
# into $OUT (at most 8 files come back) and stops itself before a 600 s call limit, so what
# it measured comes back even when a side is slow.
#
#   bash tests/benchmarks/gpu/device.sh stage1            # env report, part 1 + deps -> /tmp/whl
#   bash tests/benchmarks/gpu/device.sh stage2            # join, install, tiny GPU check (~150 s
#                                                         # on a fresh machine)
#   bash tests/benchmarks/gpu/device.sh bench [VARIANTS]  # ONE invocation: ours, trl_plain,
#                                                         # trl_cb, trl_static, then variants
#                                                         # (`async`: grpo.max_staleness = 1;
#                                                         # TRL_PATHS=plain,static drops cb)
#   bash tests/benchmarks/gpu/device.sh smoke [VARIANTS]  # rlvr run configs/gpu_smoke.toml, then
#                                                         # ours again per variant (same model folder)
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
WHL=${WHL:-.whl}
RAW=/tmp/raw
mkdir -p "$OUT" /tmp/whl "$RAW"
WHEEL=mlx_cuda_13-0.32.4-py3-none-manylinux_2_35_x86_64.whl
SHA=94cb48fba73e5ee39467e51c35c51c691123359ca17bafd1a24cf92ad6732bee
PIP="python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade"

env_report() {
  {
    date -u; nvidia-smi; nvidia-smi --query-gpu=uuid --format=csv,noheader; uname -r; python3 --version
    python3 -m pip list 2>/dev/null | grep -iE "^(torch|transformers|accelerate|tokenizers|numpy|sympy|setuptools|typer|rich|httpx) "
  } 2>&1 | tee -a "$RAW/env.log"
}

site() {  # the carried packages, and mlx's CUDA libraries from the image's nvidia wheels
  NV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])")
  ln -sfn "$NV" /tmp/site/nvidia  # libmlx.so's RPATH looks for $ORIGIN/../../nvidia/*/lib
  export LD_LIBRARY_PATH=$(find "$NV" -maxdepth 3 -type d -name lib | tr '\n' ':')${LD_LIBRARY_PATH:-}
  export PYTHONPATH=/tmp/site
}

case "${1:-}" in
stage1)
  env_report
  cp "$WHL"/part_a/* "$WHL"/deps/*.whl /tmp/whl/ && ls -la /tmp/whl | tee -a "$RAW/env.log"
  cp "$RAW/env.log" "$OUT/"
  ;;
stage2)
  cp "$WHL"/part_b/* "$WHL"/common/*.whl /tmp/whl/
  if [ ! -f /tmp/whl/mlx_cuda_13.part00 ]; then echo "part00 missing: the machine is not the warm one of stage1"; exit 4; fi
  cat /tmp/whl/mlx_cuda_13.part00 /tmp/whl/mlx_cuda_13.part01 > /tmp/whl/$WHEEL
  echo "$SHA  /tmp/whl/$WHEEL" | sha256sum -c - | tee -a "$RAW/env.log" || exit 5
  rm /tmp/whl/mlx_cuda_13.part0*
  $PIP --target /tmp/site /tmp/whl/*.whl || exit 3
  site
  python3 -c "import mlx.core as mx; a=mx.random.normal((4096,4096)).astype(mx.bfloat16); mx.eval(a@a); print('mlx', mx.__version__, mx.default_device(), mx.device_info())" 2>&1 | tee -a "$RAW/env.log" || exit 6
  cp "$RAW/env.log" "$OUT/"
  # micro-batched == one pass, compiled == eager, on the GPU at the tiny shape
  timeout 400 python3 tests/benchmarks/bench_gpu.py --profile tiny --check --sides ours --workdir /tmp/bench --out "$OUT" > "$OUT/stage2.log" 2>&1
  ;;
bench)
  site
  timeout "${BENCH_TIMEOUT:-560}" python3 tests/benchmarks/bench_gpu.py --workdir /tmp/bench --out "$OUT" --side-timeout 200 --trl-paths "${TRL_PATHS:-plain,cb,static}" --variants "${2:-}" > "$OUT/bench_stdout.log" 2>&1
  echo "bench exit $?" >> "$OUT/bench_stdout.log"
  ;;
smoke)
  site
  # the console script `rlvr`; where the image cannot build the package, the same entry point
  RLVR=(rlvr)
  python3 -m pip install -q --no-index --no-deps --no-build-isolation --target /tmp/rlvr . \
    > /dev/null 2>&1 || RLVR=(python3 -m orchestrator)
  export PYTHONPATH=/tmp/site:/tmp/rlvr PATH=/tmp/rlvr/bin:$PATH
  rm -rf /tmp/smoke
  echo "\$ ${RLVR[*]} run configs/gpu_smoke.toml log_path=/tmp/smoke" > "$OUT/smoke.log"
  timeout 400 "${RLVR[@]}" run configs/gpu_smoke.toml log_path=/tmp/smoke >> "$OUT/smoke.log" 2>&1
  echo "rlvr run exit: $?" >> "$OUT/smoke.log"
  RUN=$(ls /tmp/smoke | grep gpu_smoke | head -1)
  { "${RLVR[@]}" events "$RUN" --type RunStarted --json --store /tmp/smoke/events.db
    "${RLVR[@]}" events "$RUN" --type MetricsRecorded --json --store /tmp/smoke/events.db
    "${RLVR[@]}" status "$RUN" --store /tmp/smoke/events.db; } > "$OUT/smoke_events.log" 2>&1
  if [ -n "${2:-}" ]; then
    timeout 150 python3 tests/benchmarks/bench_gpu.py --sides "" --variants "$2" --workdir /tmp/bench --out "$OUT/variants" --side-timeout 140 > "$OUT/variants.log" 2>&1
  fi
  ;;
*)
  echo "usage: $0 stage1|stage2|bench [variants]|smoke [variants]"; exit 2
  ;;
esac
