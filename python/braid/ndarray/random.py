"""mxnet.ndarray.random: arrays of random numbers from the global generator (mx.random.seed)."""
from .. import _core
from ..context import current_context


def _sample(op, shape, ctx, dtype, **params):
    attrs = dict(params, shape=shape if isinstance(shape, (list, tuple)) else (shape,),
                 ctx=ctx if ctx is not None else current_context())
    if dtype is not None:
        attrs["dtype"] = dtype
    return _core.invoke(op, [], attrs)


def uniform(low=0, high=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_uniform", shape, ctx, dtype, low=float(low), high=float(high))


def normal(loc=0, scale=1, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_normal", shape, ctx, dtype, loc=float(loc), scale=float(scale))


def randn(*shape, **kwargs):
    return normal(kwargs.get("loc", 0), kwargs.get("scale", 1), shape, kwargs.get("dtype"), kwargs.get("ctx"))


def randint(low, high, shape=(1,), dtype=None, ctx=None, out=None, **kwargs):
    return _sample("_random_randint", shape, ctx, dtype, low=int(low), high=int(high))

