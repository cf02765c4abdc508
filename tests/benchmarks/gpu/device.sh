#!/usr/bin/env bash
# Device-side steps of the GPU benchmark (the workplace's H100 machine: Python 3.12, torch, no
# registry). Wheels travel under .whl/ (git-ignored): .whl/common (mlx, mlx-lm, trl, datasets,
# dill, multiprocess) and the mlx-cuda-13 wheel (~86 MB, over one call's 64 MiB) split in two:
# .whl/part_a/mlx_cuda_13.part00 (call 1) and .whl/part_b/mlx_cuda_13.part01 (call 2, same warm
# machine: /tmp survives between back-to-back calls, the working tree is re-sent each call).
#
#   bash tests/benchmarks/gpu/device.sh stage1 [--copy-only]  # env report, part 1 -> /tmp/whl, TRL side alone
#   bash tests/benchmarks/gpu/device.sh stage2 [VARIANTS]     # join, install, checks, both sides, variants -> $OUT
set -uo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT" /tmp/whl
WHEEL=mlx_cuda_13-0.32.4-py3-none-manylinux_2_35_x86_64.whl
SHA=94cb48fba73e5ee39467e51c35c51c691123359ca17bafd1a24cf92ad6732bee
PIP="python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade"

env_report() {
  {
    date -u; nvidia-smi; uname -r; python3 --version; which python3
    python3 -m pip list 2>/dev/null | grep -iE "^(torch|transformers|accelerate|pyarrow|fsspec|huggingface.hub|tokenizers|numpy|nvidia-(cublas|cudnn-cu13|cuda-nvrtc|cuda-runtime|cufft|cusolver|nccl-cu13)|pandas|xxhash|safetensors|jinja2|protobuf|sentencepiece|pyyaml) "
    python3 -c "import nvidia, os; p=list(nvidia.__path__)[0]; print('nvidia dir', p, sorted(os.listdir(p)))"
    ls /usr/local/cuda*/ -d 2>/dev/null; nvcc --version 2>/dev/null | tail -2
  } 2>&1 | tee -a "$OUT/env.log"
}

case "${1:-}" in
stage1)
  env_report
  cp .whl/common/*.whl .whl/part_a/* /tmp/whl/ && ls -la /tmp/whl | tee -a "$OUT/env.log"
  $PIP --target /tmp/site /tmp/whl/trl-*.whl /tmp/whl/datasets-*.whl /tmp/whl/dill-*.whl /tmp/whl/multiprocess-*.whl || exit 3
  export PYTHONPATH=/tmp/site
  [ "${2:-}" = "--copy-only" ] && exit 0
  python3 tests/benchmarks/bench_gpu.py --sides trl --workdir /tmp/bench --out "$OUT" 2>&1 | tee "$OUT/stage1.log"
  ;;
stage2)
  cp .whl/part_b/* /tmp/whl/ 2>/dev/null
  cp -n .whl/common/*.whl /tmp/whl/ 2>/dev/null
  if [ ! -f /tmp/whl/mlx_cuda_13.part00 ]; then echo "part00 missing: the machine is not the warm one of stage1"; exit 4; fi
  cat /tmp/whl/mlx_cuda_13.part00 /tmp/whl/mlx_cuda_13.part01 > /tmp/whl/$WHEEL
  echo "$SHA  /tmp/whl/$WHEEL" | sha256sum -c - | tee -a "$OUT/env.log" || exit 5
  $PIP --target /tmp/site /tmp/whl/*.whl || exit 3  # + pydantic (stages.training needs it)
  # libmlx.so's RPATH looks for $ORIGIN/../../nvidia/*/lib: point it at the image's CUDA wheels.
  NV=$(python3 -c "import nvidia; print(list(nvidia.__path__)[0])")
  ln -sfn "$NV" /tmp/site/nvidia
  export LD_LIBRARY_PATH=$(find "$NV" -maxdepth 3 -type d -name lib | tr '\n' ':')${LD_LIBRARY_PATH:-}
  export PYTHONPATH=/tmp/site
  python3 -c "import mlx.core as mx; a=mx.random.normal((4096,4096)).astype(mx.bfloat16); mx.eval(a@a); print('mlx', mx.__version__, mx.default_device(), mx.device_info())" 2>&1 | tee -a "$OUT/env.log" || exit 6
  # smoke + micro-batched == one-pass check on the GPU at the tiny shape, then the real run:
  # ours (stock grpo_step, micro-batched), TRL, then ours again per variant (default: the
  # uncompiled loss, and the step-by-step decode loop)
  python3 tests/benchmarks/bench_gpu.py --profile tiny --check --sides ours --workdir /tmp/bench --out "$OUT" 2>&1 | tee "$OUT/stage2.log"
  python3 tests/benchmarks/bench_gpu.py --workdir /tmp/bench --out "$OUT" --variants "${2:-eager,syncsample}" 2>&1 | tee -a "$OUT/stage2.log"
  ;;
*)
  echo "usage: $0 stage1|stage2 [bench args]"; exit 2
  ;;
esac
