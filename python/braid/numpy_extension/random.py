"""mxnet.numpy_extension.random (``mx.npx.random``): ``seed`` (as ``mx.random.seed``) and
``bernoulli``."""
import numpy as _onp

from .. import _core
from .. import random as _random
from ..numpy.multiarray import _invoke

__all__ = ["seed", "bernoulli", "uniform_n", "normal_n"]


def seed(seed, ctx="all"):  # pylint: disable=redefined-outer-name
    """Reseeds the generators (mx.random.seed; MXNet's npx spells the argument ``seed``)."""
    _random.seed(seed, ctx=ctx)


def bernoulli(logit=None, prob=None, size=None, dtype=None, ctx=None, out=None):
    """1 with probability ``prob`` (or sigmoid(``logit``)), else 0: exactly one of them, a number
    or an array; ``size`` (else their shape), ``dtype`` (float32 by default; bool and ints too)."""
    if (logit is None) == (prob is None):
        raise ValueError("Either `logit` or `prob` must be specified, but not both. Received: logit=%r, prob=%r"
                         % (logit, prob))
    param = prob if prob is not None else logit
    if prob is not None:
        values = prob.asnumpy() if isinstance(prob, _core.NDArray) else _onp.asarray(prob)
        if _onp.any((values < 0) | (values > 1)):
            raise ValueError("prob must be in [0, 1]")
    shape = _onp.shape(param) if size is None and not isinstance(param, _core.NDArray) else (
        param.shape if size is None else ((size,) if isinstance(size, int) else tuple(size)))
    attrs = {"low": 0.0, "high": 1.0, "shape": tuple(shape), "dtype": "float32"}
    if ctx is not None:
        attrs["ctx"] = str(ctx)
    u = _invoke("_random_uniform", [], attrs)
    p = param if prob is not None else (
        _invoke("sigmoid", [param]) if isinstance(param, _core.NDArray) else 1.0 / (1.0 + _onp.exp(-float(param))))
    if isinstance(p, _core.NDArray):
        hits = _invoke("broadcast_lesser", [u, p.astype("float32")])
    else:
        hits = _invoke("_lesser_scalar", [u], {"scalar": float(p)})
    return hits.astype(dtype or "float32")


def _batched(low_or_loc, high_or_scale, batch_shape):
    batch = () if batch_shape is None else ((batch_shape,) if isinstance(batch_shape, int) else tuple(batch_shape))
    shapes = [p.shape if isinstance(p, _core.NDArray) else () for p in (low_or_loc, high_or_scale)]
    return batch + tuple(_onp.broadcast_shapes(*shapes))


def uniform_n(low=0.0, high=1.0, batch_shape=None, dtype=None, ctx=None):
    """U(low, high) samples of shape batch_shape + the parameters' broadcast shape."""
    from ..numpy.random import uniform
    return uniform(low, high, size=_batched(low, high, batch_shape), dtype=dtype, ctx=ctx)


def normal_n(loc=0.0, scale=1.0, batch_shape=None, dtype=None, ctx=None):
    """N(loc, scale**2) samples of shape batch_shape + the parameters' broadcast shape."""
    from ..numpy.random import normal
    return normal(loc, scale, size=_batched(loc, scale, batch_shape), dtype=dtype, ctx=ctx)
