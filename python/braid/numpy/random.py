"""mxnet.numpy.random (``mx.np.random``): samplers with NumPy's argument names, giving mx.np arrays."""
import numpy as _onp

from .. import _core
from .. import ndarray as _nd
from ..ndarray import random as _random
from .multiarray import as_np

from ._distributions import *  # noqa: F401,F403
from ._distributions import shifted_and_scaled
from ._distributions import __all__ as _distributions_all

__all__ = ["uniform", "normal", "randint", "choice", "multinomial", "rand", "randn", "shuffle"] + _distributions_all


def _shape(size):
    if size is None:
        return ()
    return (size,) if isinstance(size, int) else tuple(size)


def _dtype(dtype):
    from .utils import dtype_name
    return None if dtype is None else dtype_name(dtype)


def uniform(low=0.0, high=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """U(low, high); array bounds broadcast, and get their gradients (low + (high - low) U)."""
    if isinstance(low, _nd.NDArray) or isinstance(high, _nd.NDArray):
        return shifted_and_scaled("_random_uniform", low, high - low, size, _dtype(dtype), ctx or device,
                                  low=0.0, high=1.0)
    return as_np(_random.uniform(low, high, shape=_shape(size), dtype=_dtype(dtype), ctx=ctx or device))


def normal(loc=0.0, scale=1.0, size=None, dtype=None, ctx=None, device=None, out=None):
    """N(loc, scale**2); array parameters broadcast, and get their gradients (loc + scale N)."""
    if isinstance(loc, _nd.NDArray) or isinstance(scale, _nd.NDArray):
        return shifted_and_scaled("_random_normal", loc, scale, size, _dtype(dtype), ctx or device,
                                  loc=0.0, scale=1.0)
    return as_np(_random.normal(loc, scale, shape=_shape(size), dtype=_dtype(dtype), ctx=ctx or device))


def rand(*size, **kwargs):
    return uniform(size=size, **kwargs)


def randn(*size, **kwargs):
    return normal(size=size, **kwargs)


def randint(low, high=None, size=None, dtype=None, ctx=None, device=None, out=None):
    if high is None:
        low, high = 0, low
    return as_np(_random.randint(low, high, shape=_shape(size), dtype=_dtype(dtype) or "int64", ctx=ctx or device))


def shuffle(x):
    """Shuffles ``x`` along its first axis, in place."""
    x[:] = _random.shuffle(x)


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
    return as_np(picked if isinstance(a, int) else _nd.take(a, picked))


def multinomial(n, pvals, size=None):
    """Counts of ``n`` draws among ``len(pvals)`` outcomes of probabilities ``pvals`` (the last takes
    the rest), ``size`` times: shape size + (len(pvals),), int64 (NumPy's multinomial)."""
    probs = _onp.asarray(pvals.asnumpy() if isinstance(pvals, _nd.NDArray) else pvals, dtype=_onp.float64)
    shape = _shape(size)
    k = probs.shape[0]
    trials = int(_onp.prod(shape, dtype=_onp.int64))
    if k == 0 or trials == 0 or n == 0:
        return as_np(_core.zeros(shape + (k,), None, "int64"))
    probs = probs.copy()
    probs[-1] = max(0.0, 1.0 - probs[:-1].sum())
    # n categorical draws per trial from the core's sampler, counted per outcome
    p = _nd.array(_onp.broadcast_to(probs, (trials, k)), dtype="float32")
    draws = _core.invoke("_sample_multinomial", [p], {"shape": (int(n),), "dtype": "int32"})
    onehot = _core.invoke("one_hot", [draws], {"depth": k, "dtype": "int64"})
    counts = _core.invoke("sum", [onehot], {"axis": 1})
    return as_np(counts.reshape(shape + (k,)))
