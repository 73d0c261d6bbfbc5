"""mxnet.numpy.random (``mx.np.random``): samplers with NumPy's argument names."""
from ..ndarray import random as _random

__all__ = ["uniform", "normal", "randint"]


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
