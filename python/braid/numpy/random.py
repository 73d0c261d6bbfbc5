"""mxnet.numpy.random (``mx.np.random``): samplers with NumPy's argument names."""
import numpy as _onp

from .. import ndarray as _nd
from ..ndarray import random as _random

__all__ = ["uniform", "normal", "randint", "choice"]


def _shape(size):
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    return _random.uniform(low, high, shape=_shape(size), dtype=dtype, ctx=ctx or device)


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    return _random.normal(loc, scale, shape=_shape(size), dtype=dtype, ctx=ctx or device)


def randint(low, high=None, size=None, dtype=None, ctx=None, device=None, out=None):
    if high is None:
        low, high = 0, low
    return _random.randint(low, high, shape=_shape(size), dtype=dtype, ctx=ctx or device)


def choice(a, size=None, replace=True, p=None, ctx=None, out=None):
    """Samples of ``a``: of range(a) for an int, else of a 1-D array's elements; with or without
    replacement, uniformly or with probabilities ``p`` (NumPy's choice). Indices are int64."""
    n = a if isinstance(a, int) else a.shape[0]
    shape = _shape(size)
    count = int(_onp.prod(shape, dtype=_onp.int64))
    if p is not None and not isinstance(p, _nd.NDArray):
        p = _nd.array(p, ctx=ctx)
    if replace:
        if p is None:
            picked = _random.randint(0, n, shape=shape, dtype="int64", ctx=ctx)
        else:
            picked = _random.multinomial(p, shape=shape, dtype="int64")
    else:
        if count > n:
            raise ValueError("Cannot take a larger sample than population when replace=False")
        if p is None:
            order = _random.shuffle(_nd.arange(n, dtype="int64", ctx=ctx))
        else:  # Gumbel top-k: weighted sampling without replacement
            keys = _nd.log(p) - _nd.log(-_nd.log(_random.uniform(shape=(n,), ctx=p.context)))
            order = _nd.topk(keys, k=n, ret_typ="indices", dtype="int64")
        picked = order[:count].reshape(shape)
    return picked if isinstance(a, int) else _nd.take(a, picked)
