"""mx.np's elementwise tests, differences, averages, polynomial and window functions, by NumPy's
rules over the core's operators (so they record for autograd and hybridize)."""
import builtins
import numbers

import numpy as onp

from .. import _core
from .multiarray import _invoke, _reduced_shape
from . import _op
from ._ufunc import ufunc as _ufunc
from ._arranging import _iota

__all__ = ["isnan", "isinf", "isposinf", "isneginf", "isfinite", "all", "any", "diff", "ediff1d", "average",
           "nan_to_num", "polyval", "bincount", "hanning", "hamming", "blackman", "logspace", "bitwise_not",
           "invert", "outer", "inner", "vdot", "tensordot"]


def _bool(x):
    return x.astype("bool")


# The tests below hold for every dtype with the same operators (a hybridized graph is reused for
# inputs of other dtypes): x != x only for NaN; x - x is 0 only for finite x (inf - inf is NaN).
@_ufunc
def isnan(x):
    """True where x is NaN."""
    x = _op._arr(x)
    return _bool(_invoke("broadcast_not_equal", [x, x]))


def _finite(x):
    return _invoke("_equal_scalar", [_op.subtract(x, x)], {"scalar": 0})


def _infinite(x):
    return _invoke("broadcast_mul", [_invoke("broadcast_equal", [x, x]), _invoke("_not_equal_scalar", [
        _op.subtract(x, x)], {"scalar": 0})])


@_ufunc
def isfinite(x):
    """False where x is NaN or infinite."""
    return _bool(_finite(_op._arr(x)))


@_ufunc
def isinf(x):
    """True where x is +inf or -inf."""
    return _bool(_infinite(_op._arr(x)))


@_ufunc
def isposinf(x):
    x = _op._arr(x)
    return _bool(_invoke("broadcast_mul", [_infinite(x), _invoke("_greater_scalar", [x], {"scalar": 0})]))


@_ufunc
def isneginf(x):
    x = _op._arr(x)
    return _bool(_invoke("broadcast_mul", [_infinite(x), _invoke("_lesser_scalar", [x], {"scalar": 0})]))


def all(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Whether every element (along ``axis``) is non-zero."""
    a = _op._arr(a)
    nonzero = _invoke("_not_equal_scalar", [a.astype("float32")], {"scalar": 0.0})
    if a.size == 0:
        return _bool(_op._zeros_from(a.astype("float32"), _reduced_shape(a.shape, axis, keepdims)) + 1)
    return _bool(nonzero.min(axis=axis, keepdims=keepdims))


def any(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Whether some element (along ``axis``) is non-zero."""
    a = _op._arr(a)
    nonzero = _invoke("_not_equal_scalar", [a.astype("float32")], {"scalar": 0.0})
    if a.size == 0:
        return _bool(_op._zeros_from(a, _reduced_shape(a.shape, axis, keepdims)))
    return _bool(nonzero.max(axis=axis, keepdims=keepdims))


def diff(a, n=1, axis=-1, prepend=None, append=None):  # pylint: disable=redefined-outer-name
    """The n-th differences along ``axis`` (a[i+1] - a[i], n times)."""
    a = _op._arr(a)
    if n < 0:
        raise ValueError("order must be non-negative but got %d" % n)
    axis = axis % a.ndim if a.ndim else 0
    parts = [p if isinstance(p, _core.NDArray) else None for p in (prepend, append)]
    if prepend is not None or append is not None:
        shape = list(a.shape)
        shape[axis] = 1
        pieces = []
        for given, p in ((prepend, parts[0]), (None, None), (append, parts[1])):
            if given is None and p is None and pieces and pieces[-1] is a:
                continue
            if given is None:
                pieces.append(a)
                continue
            value = p if p is not None else _op._arr(onp.asarray(given, dtype=onp.dtype(a.dtype)))
            pieces.append(_op.broadcast_to(value, tuple(shape)) if value.ndim == 0 else value)
        a = _op.concatenate(pieces, axis=axis)
    if n == 0:
        return _invoke("_copy", [a])
    for _ in range(n):
        length = a.shape[axis]
        if length <= 1:
            shape = list(a.shape)
            shape[axis] = 0
            return _op._zeros_from(a, shape)
        upper = _invoke("slice_axis", [a], {"axis": axis, "begin": 1, "end": length})
        lower = _invoke("slice_axis", [a], {"axis": axis, "begin": 0, "end": length - 1})
        a = _op.subtract(upper, lower)
    return a


def _values_like(values, like):
    """``values`` (an array, a number or a sequence) as a flat array of ``like``'s dtype; numbers
    are added to zeros made from ``like`` so a hybridized forward records them."""
    if isinstance(values, _core.NDArray):
        return values.reshape(-1).astype(like.dtype)
    flat = onp.asarray(values, dtype=onp.dtype(like.dtype)).reshape(-1)
    zeros = _op._zeros_from(like, (1,))
    parts = [zeros + v.item() for v in flat]
    return parts[0] if len(parts) == 1 else _op.concatenate(parts) if parts else _op._zeros_from(like, (0,))


def ediff1d(ary, to_end=None, to_begin=None):
    """The differences of the flattened ``ary``, with ``to_begin`` before and ``to_end`` after."""
    ary = _op._arr(ary).reshape(-1)
    pieces = [] if to_begin is None else [_values_like(to_begin, ary)]
    pieces.append(diff(ary) if ary.size > 1 else _op._zeros_from(ary, (0,)))
    if to_end is not None:
        pieces.append(_values_like(to_end, ary))
    return pieces[0] if len(pieces) == 1 else _op.concatenate(pieces)


def average(a, axis=None, weights=None, returned=False, out=None):
    """The (weighted) mean along ``axis``; with ``returned``, also the sum of the weights."""
    a = _op._arr(a)
    if weights is None:
        avg = a.mean(axis=axis)
        if not returned:
            return avg
        count = a.size if axis is None else int(onp.prod([a.shape[x] for x in (
            axis if isinstance(axis, (tuple, list)) else (axis,))]))
        return avg, _op._zeros_from(avg, avg.shape) + float(count)
    w = _op._arr(weights)
    if w.shape != a.shape:
        if axis is None or not isinstance(axis, numbers.Integral) or w.ndim != 1 or w.shape[0] != a.shape[axis]:
            raise TypeError("Axis must be specified when shapes of a and weights differ, and weights must be 1-d "
                            "of the length of that axis")
        shape = [1] * a.ndim
        shape[axis] = -1
        w = _op.broadcast_to(w.reshape(shape), a.shape)
    scale = w.sum(axis=axis)
    if onp.any(scale.asnumpy() == 0):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    avg = _op.true_divide(_op.multiply(a, w).sum(axis=axis), scale)
    return (avg, scale) if returned else avg


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None, **kwargs):
    """x with NaN as ``nan`` and the infinities as ``posinf``/``neginf`` (the largest finite
    values of the dtype by default); integers as they are."""
    x = _op._arr(x)
    if onp.dtype(x.dtype).kind != "f":
        return x
    info = onp.finfo(onp.dtype(x.dtype))
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    out = x
    for mask, value in ((isnan(x), nan), (isposinf(x), posinf), (isneginf(x), neginf)):
        out = _invoke("where", [mask.astype(x.dtype), _op._zeros_from(x, x.shape) + value, out])
    from .. import autograd
    if not copy and not autograd.is_recording():  # NumPy's in-place form (a recorded input stays as it is)
        _invoke("_copy", [out], {"out": x})
        return x
    return out


def polyval(p, x):
    """p[0] * x**(n-1) + ... + p[n-1], by Horner's rule."""
    p, x = _op._arr(p), _op._arr(x)
    if p.ndim != 1:
        raise ValueError("polyval: p must be 1-d, got shape %s" % (p.shape,))
    out = _op._zeros_from(x, x.shape).astype(onp.result_type(p.dtype, x.dtype).name)
    for k in range(p.shape[0]):
        out = _op.add(_op.multiply(out, x), p[k])
    return out


def bincount(x, weights=None, minlength=0):
    """How often each value 0..max(x) occurs in the 1-d non-negative int ``x`` (the sums of
    ``weights`` there when given), at least ``minlength`` bins."""
    x = _op._arr(x)
    if x.ndim != 1:
        raise ValueError("bincount: input must be 1-d")
    if minlength < 0:
        raise ValueError("minlength must be non-negative")
    values = x.asnumpy()
    if values.size and values.min() < 0:
        raise ValueError("bincount: input must be non-negative")
    depth = max(int(values.max()) + 1 if values.size else 0, minlength)
    dtype = "int64" if weights is None else onp.dtype(_op._arr(weights).dtype).name
    if x.size == 0 or depth == 0:
        return _invoke("_zeros", [], {"shape": (depth,), "dtype": dtype})
    hot = _invoke("one_hot", [x.astype("int64")], {"depth": depth, "dtype": "float64"})
    if weights is not None:
        hot = _op.multiply(hot, _op._arr(weights).astype("float64").reshape(-1, 1))
    return hot.sum(axis=0).astype(dtype)


def _window(m, dtype, ctx, coefficients):
    """sum_k c_k cos(2 pi k n / (M - 1)), n = 0..M-1 (the generalized cosine windows)."""
    if m <= 0:
        return _invoke("_zeros", [], {"shape": (0,), "dtype": onp.dtype(dtype or "float32").name})
    if m == 1:
        return _invoke("_ones", [], {"shape": (1,), "dtype": onp.dtype(dtype or "float32").name})
    n = _iota(m, dtype="float64", ctx=ctx)
    out = None
    for k, c in enumerate(coefficients):
        term = _invoke("cos", [n * (2.0 * onp.pi * k / (m - 1))]) * c if k else _op._zeros_from(n, n.shape) + c
        out = term if out is None else out + term
    return out.astype(dtype or "float32")


def hanning(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    return _window(M, dtype, ctx, (0.5, -0.5))


def hamming(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    return _window(M, dtype, ctx, (0.54, -0.46))


def blackman(M, dtype=None, ctx=None):  # pylint: disable=invalid-name
    return _window(M, dtype, ctx, (0.42, -0.5, 0.08))


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0, ctx=None):
    """base ** linspace(start, stop, num)."""
    from ._creation import linspace
    exponents = linspace(start, stop, num, endpoint=endpoint, dtype="float64", axis=axis, ctx=ctx)
    return _invoke("_rpower_scalar", [exponents], {"scalar": float(base)}).astype(dtype or "float32")


@_ufunc
def bitwise_not(x):
    """~x: logical not for bool, -x - 1 for integers."""
    x = _op._arr(x)
    kind = onp.dtype(x.dtype).kind
    if kind == "b":
        return _bool(_invoke("_equal_scalar", [x.astype("int32")], {"scalar": 0}))
    if kind not in "iu":
        raise TypeError("bitwise_not is only defined for integers and booleans, not %s" % x.dtype)
    if kind == "u":
        return (_op._zeros_from(x, x.shape) + onp.iinfo(onp.dtype(x.dtype)).max) - x
    return -x - 1


invert = bitwise_not


def outer(a, b):
    """The product of every element of a with every element of b: shape (a.size, b.size)."""
    a, b = _op._arr(a).reshape(-1, 1), _op._arr(b).reshape(1, -1)
    return _op.multiply(a, b)


def vdot(a, b):
    """The dot product of the flattened arrays."""
    return _op.multiply(_op._arr(a).reshape(-1), _op._arr(b).reshape(-1)).sum()


def tensordot(a, b, axes=2):
    """Sums the products over the last ``axes`` axes of a and the first of b (an int), or over
    the given pairs of axes (two sequences)."""
    a, b = _op._arr(a), _op._arr(b)
    if isinstance(axes, numbers.Integral):
        a_axes, b_axes = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        a_axes, b_axes = [list(x) if isinstance(x, (list, tuple)) else [x] for x in axes]
    a_axes, b_axes = [x % a.ndim for x in a_axes], [x % b.ndim for x in b_axes]
    if len(a_axes) != len(b_axes) or builtins.any(a.shape[i] != b.shape[j] for i, j in zip(a_axes, b_axes)):
        raise ValueError("shape-mismatch for sum")
    a_free = [i for i in range(a.ndim) if i not in a_axes]
    b_free = [j for j in range(b.ndim) if j not in b_axes]
    k = int(onp.prod([a.shape[i] for i in a_axes]))
    a2 = _op.transpose(a, a_free + a_axes).reshape(-1, k) if a.ndim else a.reshape(1, 1)
    b2 = _op.transpose(b, b_axes + b_free).reshape(k, -1) if b.ndim else b.reshape(1, 1)
    from .linalg import _matmul
    out_shape = tuple(a.shape[i] for i in a_free) + tuple(b.shape[j] for j in b_free)
    return _matmul(a2, b2).reshape(out_shape)


def inner(a, b):
    """Sums the products over the last axis of each (a scalar operand multiplies)."""
    a, b = _op._arr(a), _op._arr(b)
    if a.ndim == 0 or b.ndim == 0:
        return _op.multiply(a, b)
    return tensordot(a, b, ([a.ndim - 1], [b.ndim - 1]))
