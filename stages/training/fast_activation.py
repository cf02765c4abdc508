"""SwiGLU for the SFT step with an exp that mlx's CPU compiler can fuse and the CPU runs fast.

The Linux `mlx[cpu]` wheel is built for generic x86-64: its `exp` and `sigmoid` run one float at
a time, each `exp` a chain of calls into libm's `fmaf` (~12 ns an element here, against ~0.2 ns
for a fused multiply-add), and `sigmoid` is a primitive of its own that `mx.compile` does not fuse
(its output is kept for the backward pass). The embedded model's MLP takes ~360k sigmoids a
step forward and again backward: the largest non-matmul cost of an SFT step.

`exp_fast` is Cephes' `expf` (range reduction by ln 2 in two parts, a degree-5 polynomial, the
power of two built in the float's exponent bits) written with mlx's elementwise ops, so
`mx.compile` fuses it into the surrounding kernel (~2.5 ns an element). Its relative error is
under 2e-7 for inputs in [-87, 87] (measured on this wheel: 8e-8; `mx.exp` 4e-6); outside, it
saturates at about 2^-126 / 2^126 (the sigmoid it feeds is then 0 or 1 to float32 precision).
It computes in float32: `swiglu_fast` is for float32 activations (the embedded model's).
`swiglu_fast(gate, up)` = silu(gate) * up with a written backward (silu' = s + g s (1 - s)), so
autograd does not differentiate the polynomial.
"""

from __future__ import annotations

import mlx.core as mx

_LOG2E = 1.44269504088896341
# ln 2 split in two: n * _LN2_HI is exact in float32 for |n| <= 126 (Cephes' C1, C2)
_LN2_HI = 0.693359375
_LN2_LO = -2.12194440e-4
# Cephes expf: e^r ~ 1 + r + r^2 * P(r) on |r| <= ln2 / 2
_P = (
    1.9875691500e-4,
    1.3981999507e-3,
    8.3334519073e-3,
    4.1665795894e-2,
    1.6666665459e-1,
    5.0000001201e-1,
)


def exp_fast(x: mx.array) -> mx.array:
    """e^x (float32) from elementwise ops only; see the module's docstring for its accuracy."""
    x = mx.clip(x, -87.0, 87.0)
    n = mx.floor(x * _LOG2E + 0.5)
    r = x - n * _LN2_HI - n * _LN2_LO
    p = mx.array(_P[0], dtype=x.dtype)
    for c in _P[1:]:
        p = p * r + c
    e_r = p * (r * r) + r + 1.0
    two_n = ((n.astype(mx.int32) + 127) << 23).view(mx.float32)
    return e_r * two_n


def sigmoid_fast(x: mx.array) -> mx.array:
    return 1.0 / (1.0 + exp_fast(-x))


@mx.custom_function
def swiglu_fast(gate: mx.array, up: mx.array) -> mx.array:
    """silu(gate) * up, as mlx-lm's `swiglu`, with `exp_fast` inside."""
    return gate * sigmoid_fast(gate) * up


@swiglu_fast.vjp
def _swiglu_fast_vjp(
    primals: tuple[mx.array, mx.array], cotangent: mx.array, output: mx.array
) -> tuple[mx.array, mx.array]:
    gate, up = primals
    s = sigmoid_fast(gate)
    silu = gate * s
    return cotangent * up * (s + silu * (1.0 - s)), cotangent * silu


__all__ = ["exp_fast", "sigmoid_fast", "swiglu_fast"]
