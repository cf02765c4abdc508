import mlx.core as mx
import numpy as np
from mlx_lm.models.activations import swiglu

from stages.training.fast_activation import exp_fast, sigmoid_fast, swiglu_fast


def test_exp_fast_is_float32_exact_to_a_few_ulps_over_its_whole_range():
    x = mx.concatenate(
        [mx.linspace(-87, 87, 200_001), mx.random.normal((100_000,), key=mx.random.key(0)) * 5]
    )
    exact = np.exp(np.array(x, dtype=np.float64))
    relative = np.abs(np.array(exp_fast(x), dtype=np.float64) / exact - 1)
    assert relative.max() < 2e-7


def test_exp_fast_saturates_outside_the_float32_range_instead_of_overflowing():
    big = exp_fast(mx.array([-1000.0, -88.0, 88.0, 1000.0]))
    assert np.isfinite(np.array(big)).all()
    low, high = np.array(sigmoid_fast(mx.array([-1000.0, 1000.0]))).tolist()
    assert 0.0 <= low < 1e-37 and high == 1.0


def test_swiglu_fast_and_its_gradients_equal_mlx_lms_swiglu():
    key_g, key_u, key_c = mx.random.split(mx.random.key(1), 3)
    gate = mx.random.normal((64, 96), key=key_g) * 4
    up = mx.random.normal((64, 96), key=key_u)
    cotangent = mx.random.normal((64, 96), key=key_c)

    def loss(fn):
        return lambda g, u: (fn(g, u) * cotangent).sum()

    assert np.allclose(np.array(swiglu_fast(gate, up)), np.array(swiglu(gate, up)), atol=1e-5)
    fast = mx.grad(loss(swiglu_fast), argnums=(0, 1))(gate, up)
    reference = mx.grad(loss(swiglu), argnums=(0, 1))(gate, up)
    for a, b in zip(fast, reference, strict=True):
        assert np.allclose(np.array(a), np.array(b), atol=1e-5, rtol=1e-5)
    compiled = mx.compile(mx.grad(loss(swiglu_fast), argnums=(0, 1)))(gate, up)
    for a, b in zip(compiled, fast, strict=True):
        assert np.allclose(np.array(a), np.array(b), atol=1e-6)
