"""mxnet.numpy's array creation: array, zeros, ones, empty, full, arange, identity, eye, linspace
and the *_like functions. Arrays are float32 unless a dtype is given (MXNet's default), except
that ``array`` of a NumPy or mx.np array keeps its dtype; shapes follow NumPy (0-d and zero-size
arrays exist whatever mx.set_np_shape says)."""
import numpy as onp

from .. import _core
from ..base import MXNetError
from ..context import current_context
from .multiarray import ndarray, as_np, _invoke, _not_implemented
from .utils import dtype_name

__all__ = ["array", "asarray", "empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like",
           "arange", "identity", "eye", "linspace"]


def _ctx(ctx, device=None):
    return ctx if ctx is not None else (device if device is not None else current_context())


def _shape(shape):
    return (int(shape),) if isinstance(shape, (int, onp.integer)) else tuple(int(d) for d in shape)


def _check_order(order):
    if order != "C":
        _not_implemented("order=%r (only 'C')" % (order,))


def array(object, dtype=None, ctx=None, device=None):  # pylint: disable=redefined-builtin
    """A new array holding a copy of ``object`` (an array, a NumPy array, a (nested) list or a scalar)."""
    ctx = _ctx(ctx, device)
    if isinstance(object, _core.NDArray):
        if type(object) is not ndarray:
            raise ValueError("If you're trying to create a mxnet.numpy.ndarray from mx.nd.NDArray, please use the "
                             "zero-copy as_np_ndarray function.")
        name = dtype_name(dtype, default=object.dtype.name)
        out = _core.invoke("Cast", [object], {"dtype": name}) if name != object.dtype.name else object.copy()
        return as_np(out if out.ctx == ctx else out.as_in_context(ctx))
    if dtype is None:
        dtype = object.dtype if hasattr(object, "dtype") else onp.float32
    name = dtype_name(dtype)
    try:
        source = onp.array(object, dtype=name)
    except Exception as e:  # NumPy's own message, as MXNet
        raise TypeError(str(e)) from None
    return as_np(_core.array(source, ctx, name))


def asarray(obj, dtype=None, ctx=None, device=None):
    if type(obj) is ndarray and (dtype is None or onp.dtype(dtype_name(dtype)) == obj.dtype):
        return obj
    return array(obj, dtype=dtype, ctx=ctx, device=device)


def _filled(shape, value, ctx, name):
    """An array of ``value``; a bool one is made as int8 and cast (the core fills no bool arrays)."""
    if name == "bool":
        return as_np(_core.invoke("Cast", [_core.full(shape, bool(value), ctx, "int8")], {"dtype": "bool"}))
    return as_np(_core.full(shape, value, ctx, name))


def empty(shape, dtype=None, order="C", ctx=None, device=None):
    _check_order(order)
    return as_np(_core.empty(_shape(shape), _ctx(ctx, device), dtype_name(dtype)))


def zeros(shape, dtype=None, order="C", ctx=None, device=None):
    _check_order(order)
    return _filled(_shape(shape), 0, _ctx(ctx, device), dtype_name(dtype))


def ones(shape, dtype=None, order="C", ctx=None, device=None):
    _check_order(order)
    return _filled(_shape(shape), 1, _ctx(ctx, device), dtype_name(dtype))


def full(shape, fill_value, dtype=None, order="C", ctx=None, device=None, out=None):
    _check_order(order)
    if isinstance(fill_value, _core.NDArray):  # an array value is broadcast to the shape
        if dtype is not None:
            fill_value = fill_value.astype(dtype_name(dtype))
        from ._op import broadcast_to
        return broadcast_to(fill_value, _shape(shape))
    if dtype is None and isinstance(fill_value, (bool, onp.bool_)):
        dtype = "bool"
    return _filled(_shape(shape), fill_value, _ctx(ctx, device), dtype_name(dtype))


def _like(fill, a, dtype, ctx):
    name = dtype_name(dtype, default=a.dtype.name) if dtype is not None else onp.dtype(a.dtype).name
    ctx = a.ctx if ctx is None else ctx
    if fill is None:
        return as_np(_core.empty(a.shape, ctx, name))
    return _filled(a.shape, fill, ctx, name)


def empty_like(prototype, dtype=None, order="C", subok=False, shape=None):  # pylint: disable=unused-argument
    return _like(None, prototype, dtype, None)


def zeros_like(a, dtype=None, order="C", ctx=None, out=None):  # pylint: disable=unused-argument
    return _like(0, a, dtype, ctx)


def ones_like(a, dtype=None, order="C", ctx=None, out=None):  # pylint: disable=unused-argument
    return _like(1, a, dtype, ctx)


def full_like(a, fill_value, dtype=None, order="C", ctx=None, out=None):  # pylint: disable=unused-argument
    return _like(fill_value, a, dtype, ctx)


def arange(start, stop=None, step=1, dtype=None, ctx=None, device=None):
    if stop is None:
        start, stop = 0, start
    step = 1 if step is None else step
    # NumPy's length, ceil((stop - start) / step), computed here so that empty ranges are fine
    count = max(0, int(onp.ceil((stop - start) / step)))
    if count == 0:
        return as_np(_core.zeros((0,), _ctx(ctx, device), dtype_name(dtype)))
    return as_np(_core.arange(start, stop, step, 1, _ctx(ctx, device), dtype_name(dtype)))


def eye(N, M=None, k=0, dtype=None, ctx=None, device=None):  # pylint: disable=invalid-name
    if N == 0 or M == 0:
        return zeros((N, N if M is None else M), dtype=dtype, ctx=ctx, device=device)
    attrs = {"N": int(N), "M": 0 if M is None else int(M), "k": int(k), "dtype": dtype_name(dtype),
             "ctx": _ctx(ctx, device)}
    return _invoke("_eye", [], attrs)


def identity(n, dtype=None, ctx=None, device=None):
    return eye(n, dtype=dtype, ctx=ctx, device=device)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, ctx=None, device=None):
    if axis != 0:
        _not_implemented("linspace(axis=%r)" % (axis,))
    if not float(num).is_integer() or num < 0:
        raise MXNetError("linspace: num must be a non-negative integer, got %r" % (num,))
    attrs = {"start": float(start), "stop": float(stop), "num": int(num), "endpoint": bool(endpoint),
             "dtype": dtype_name(dtype), "ctx": _ctx(ctx, device)}
    if dtype is not None and onp.dtype(dtype_name(dtype)).kind in "iu" and num > 0:
        # NumPy rounds towards -inf for integer dtypes: computed in float64, floored, cast
        attrs["dtype"] = "float64"
        out = _invoke("floor", [_invoke("_linspace", [], attrs)]).astype(dtype_name(dtype))
    else:
        out = _invoke("_linspace", [], attrs) if num > 0 else zeros((0,), dtype=dtype, ctx=ctx, device=device)
    if retstep:
        return out, (stop - start) / max(1, (num - 1 if endpoint else num))
    return out
