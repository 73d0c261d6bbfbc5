"""mxnet.numpy (``mx.np``): a NumPy-style front for Braid's arrays.

Braid's arrays already follow NumPy's shape rules (scalars of shape (), zero-size dimensions), so
``mx.np`` gives NumPy's names over them: the functions below return Braid NDArrays. It is a subset
of MXNet's ``mx.np`` (which has its own ``ndarray`` class and hundreds of functions); a function it
lacks raises AttributeError naming it.
"""
from .. import _core
from .. import ndarray as _nd
from ..context import current_context
from . import random

__all__ = ["ndarray", "array", "zeros", "ones", "empty", "full", "arange", "reshape", "concatenate", "stack",
           "random", "float16", "float32", "float64", "int8", "uint8", "int32", "int64", "bool_"]

import numpy as _onp

ndarray = _nd.NDArray
float16, float32, float64 = _onp.float16, _onp.float32, _onp.float64
int8, uint8, int32, int64, bool_ = _onp.int8, _onp.uint8, _onp.int32, _onp.int64, _onp.bool_


def _ctx(ctx, device):
    return ctx if ctx is not None else (device if device is not None else current_context())


def array(obj, dtype=None, ctx=None, device=None):
    return _nd.array(obj, dtype=dtype or "float32", ctx=_ctx(ctx, device))


# NumPy's shapes: () and zero-size axes are real here whatever mx.set_np_shape says.
def zeros(shape, dtype=None, order="C", ctx=None, device=None):
    return _core.zeros(shape, _ctx(ctx, device), dtype or "float32")


def ones(shape, dtype=None, order="C", ctx=None, device=None):
    return _core.ones(shape, _ctx(ctx, device), dtype or "float32")


def empty(shape, dtype=None, order="C", ctx=None, device=None):
    return _nd.empty(shape, ctx=_ctx(ctx, device), dtype=dtype or "float32")


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None):
    return _core.full(shape, fill_value, _ctx(ctx, device), dtype or "float32")


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    if stop is None:
        start, stop = 0, start
    return _nd.arange(start, stop, step, ctx=_ctx(ctx, device), dtype=dtype or "float32")


def reshape(a, newshape, order="C"):
    """a with a new shape of the same size (-1 takes the rest); raises MXNetError otherwise."""
    if isinstance(newshape, int):
        newshape = (newshape,)
    return a.reshape(tuple(newshape))


def concatenate(seq, axis=0, out=None):
    return _core.invoke("concat", list(seq), {"dim": axis})


def stack(arrays, axis=0, out=None):
    return _core.invoke("stack", list(arrays), {"axis": axis})
