"""MXNet's Python front-ends of the contrib optimizer operators (mx.nd.contrib.adamw_update,
multi_lamb_update, ...): lists of weights, gradients and states flattened into the operators'
argument order, and a rescale_grad given as a number turned into the one-element array the
AdamW operators read at run time."""
from .. import _core
from .._core import NDArray

__all__ = ["adamw_update", "mp_adamw_update", "multi_adamw_update", "multi_mp_adamw_update",
           "multi_lamb_update", "multi_mp_lamb_update"]


def _scale_array(rescale_grad, ctx):
    if isinstance(rescale_grad, NDArray):
        return rescale_grad.as_in_context(ctx)
    return _core.full((1,), float(rescale_grad), ctx, "float32")


def _interleaved(*lists):
    return [a for group in zip(*lists) for a in group]


def adamw_update(weight, grad, mean, var, rescale_grad, lr, eta, beta1=0.9, beta2=0.999, epsilon=1e-8, wd=0,
                 clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW on one weight; skipped when rescale_grad is 0, inf or NaN."""
    return _core.invoke("_adamw_update", [weight, grad, mean, var, _scale_array(rescale_grad, weight.context)],
                        dict(kwargs, lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                             clip_gradient=clip_gradient, out=out, name=name))


def mp_adamw_update(weight, grad, mean, var, weight32, rescale_grad, lr, eta, beta1=0.9, beta2=0.999,
                    epsilon=1e-8, wd=0, clip_gradient=-1, out=None, name=None, **kwargs):
    """AdamW on a float32 master copy of a float16 (or float32) weight."""
    return _core.invoke("_mp_adamw_update",
                        [weight, grad, mean, var, weight32, _scale_array(rescale_grad, weight.context)],
                        dict(kwargs, lr=lr, eta=eta, beta1=beta1, beta2=beta2, epsilon=epsilon, wd=wd,
                             clip_gradient=clip_gradient, out=out, name=name))


def multi_adamw_update(weights, grads, mean, var, rescale_grad, lrs, wds, etas, out=None, name=None, size=0,
                       **kwargs):
    """AdamW on several weights at once, with per-weight lrs, wds and etas."""
    scale = _scale_array(rescale_grad, weights[0].context)
    return _core.invoke("_multi_adamw_update", _interleaved(weights, grads, mean, var) + [scale],
                        dict(kwargs, num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, out=out,
                             name=name))


def multi_mp_adamw_update(weights, grads, mean, var, weights32, rescale_grad, lrs, wds, etas, out=None, name=None,
                          size=0, **kwargs):
    """multi_adamw_update on float32 master copies."""
    scale = _scale_array(rescale_grad, weights[0].context)
    return _core.invoke("_multi_mp_adamw_update", _interleaved(weights, grads, mean, var, weights32) + [scale],
                        dict(kwargs, num_weights=size or len(weights), lrs=lrs, wds=wds, etas=etas, out=out,
                             name=name))


def multi_lamb_update(weights, grads, mean, var, step_count, lrs, wds, out=None, num_tensors=0, **kwargs):
    """LAMB on several tensors at once (both phases, norms included)."""
    return _core.invoke("_multi_lamb_update", _interleaved(weights, grads, mean, var),
                        dict(kwargs, num_tensors=num_tensors or len(weights), step_count=step_count,
                             learning_rates=lrs, wds=wds, out=out))


def multi_mp_lamb_update(weights, grads, mean, var, weights32, step_count, lrs, wds, out=None, num_tensors=0,
                         **kwargs):
    """multi_lamb_update on float32 master copies."""
    return _core.invoke("_multi_mp_lamb_update", _interleaved(weights, grads, mean, var, weights32),
                        dict(kwargs, num_tensors=num_tensors or len(weights), step_count=step_count,
                             learning_rates=lrs, wds=wds, out=out))
