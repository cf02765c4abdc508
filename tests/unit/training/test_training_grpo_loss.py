"""The GRPO loss on fixed log-probs (no model): masking, and each option's reason to exist."""

import mlx.core as mx
import numpy as np

from stages.training.config import GRPOConfig
from stages.training.grpo_loss import loss_from_logprobs


def _loss_and_grad(logp, mask, adv, ref, old, config, kl_coef=0.04):
    def f(lp):
        return loss_from_logprobs(lp, mx.zeros_like(lp), mask, adv, ref, old, kl_coef, config)[0]

    loss, grad = mx.value_and_grad(f)(logp)
    return loss.item(), np.array(grad)


def test_an_overflowing_kl_term_in_a_padded_slot_leaves_loss_and_gradient_finite():
    mask = mx.array([[1.0, 1.0, 0.0], [1.0, 0.0, 0.0]])
    logp = mx.array([[-1.0, -2.0, -200.0], [-0.5, -300.0, -250.0]])  # exp(ref - logp) = inf
    ref = mx.array([[-1.1, -1.9, 0.0], [-0.4, 0.0, 0.0]])
    old = mx.array([[-1.0, -2.1, 0.0], [-0.6, 0.0, 0.0]])
    adv = mx.array([1.0, -1.0])
    for agg in ("token-mean", "sequence-mean"):
        config = GRPOConfig(loss_agg=agg)
        loss, grad = _loss_and_grad(logp, mask, adv, ref, old, config)
        assert np.isfinite(loss) and np.all(np.isfinite(grad))
        assert np.all(grad[mask == 0] == 0)
        # the padded slots change nothing: the same loss with them set to harmless values
        tame = mx.where(mask > 0, logp, -1.0)
        assert abs(loss - _loss_and_grad(tame, mask, adv, ref, old, config)[0]) < 1e-6
