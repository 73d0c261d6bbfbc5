"""mx.np's functions that rearrange or pick the elements of one array (roll, rot90, tril, trace,
diagonals, take, moveaxis, resize, round, ...), NumPy's rules over the core's operators so that
they record for autograd and hybridize; and the index helpers NumPy computes (unravel_index,
indices, shares_memory)."""
import numpy as onp

from .. import _core
from ..base import MXNetError
from .multiarray import _invoke
from ._creation import array
from ._op import _arr, _zeros_from, broadcast_to, concatenate, flip, transpose, multiply

__all__ = ["roll", "rot90", "flipud", "fliplr", "tril", "triu", "trace", "diagonal", "diag", "diagflat",
           "moveaxis", "take", "resize", "around", "round", "round_", "unravel_index", "indices", "diag_indices_from",
           "shares_memory", "may_share_memory"]


def _iota(n, like=None, dtype="float32", ctx=None):
    """0 .. n-1 on ``like``'s device (or ``ctx``), made by an operator (so that a hybridized
    forward records it)."""
    ctx = like.ctx if like is not None else ctx
    attrs = {"start": 0, "stop": max(int(n), 0), "dtype": dtype}
    if ctx is not None:
        attrs["ctx"] = str(ctx)
    return _invoke("_arange", [], attrs)


class AxisError(MXNetError, ValueError):
    """An axis out of range: MXNet raises MXNetError where NumPy raises a ValueError."""


def _axis(axis, ndim):
    if not -ndim <= axis < ndim:
        raise AxisError("axis %d is out of bounds for array of dimension %d" % (axis, ndim))
    return axis % ndim


def roll(a, shift, axis=None):
    """The elements shifted by ``shift`` along ``axis`` (all, flattened, when None), wrapping."""
    a = _arr(a)
    if axis is None:
        return roll(a.reshape(-1), shift, 0).reshape(a.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences of the same length")
    for s, ax in zip(shifts, axes):
        ax = _axis(ax, a.ndim)
        n = a.shape[ax]
        if n == 0 or s % n == 0:
            continue
        k = n - s % n
        head = _invoke("slice_axis", [a], {"axis": ax, "begin": k, "end": n})
        tail = _invoke("slice_axis", [a], {"axis": ax, "begin": 0, "end": k})
        a = concatenate([head, tail], axis=ax)
    return a


def rot90(m, k=1, axes=(0, 1)):
    """``m`` turned by 90 degrees ``k`` times in the plane of ``axes``, from the first axis
    towards the second."""
    m = _arr(m)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    a0, a1 = _axis(axes[0], m.ndim), _axis(axes[1], m.ndim)
    if a0 == a1:
        raise ValueError("Axes must be different.")
    k %= 4
    if k == 0:
        return m
    if k == 2:
        return flip(flip(m, a0), a1)
    order = list(range(m.ndim))
    order[a0], order[a1] = order[a1], order[a0]
    return transpose(flip(m, a1), order) if k == 1 else flip(transpose(m, order), a1)


def flipud(m):
    return flip(m, 0)


def fliplr(m):
    m = _arr(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return flip(m, 1)


def _triangle(m, k, lower):
    m = _arr(m)
    if m.ndim == 1:  # NumPy: the vector repeated as rows
        m = _invoke("broadcast_to", [m.reshape(1, -1)], {"shape": (m.shape[0], m.shape[0])})
    rows, cols = m.shape[-2:]
    if m.size == 0:
        return m
    # keep where col - row <= k (lower) or >= k (upper), from operators so that it hybridizes
    offset = _invoke("broadcast_sub", [_iota(cols, m).reshape(1, -1), _iota(rows, m).reshape(-1, 1)])
    keep = _invoke("_lesser_equal_scalar" if lower else "_greater_equal_scalar", [offset], {"scalar": k})
    return multiply(m, keep.astype(m.dtype))


def tril(m, k=0):
    """The elements on and below the k-th diagonal of the last two axes; the others 0."""
    return _triangle(m, k, True)


def triu(m, k=0):
    """The elements on and above the k-th diagonal of the last two axes; the others 0."""
    return _triangle(m, k, False)


def _diagonal_length(rows, cols, k):
    return max(0, min(rows, cols - k) if k >= 0 else min(rows + k, cols))


def diagonal(a, offset=0, axis1=0, axis2=1):
    """The ``offset`` diagonal of the planes (axis1, axis2), as the last axis."""
    a = _arr(a)
    axis1, axis2 = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    if _diagonal_length(a.shape[axis1], a.shape[axis2], offset) == 0:
        shape = [n for i, n in enumerate(a.shape) if i not in (axis1, axis2)] + [0]
        return _zeros_from(a, shape)
    return _invoke("diag", [a], {"k": offset, "axis1": axis1, "axis2": axis2})


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """The sum along the ``offset`` diagonal of the planes (axis1, axis2)."""
    d = diagonal(a, offset, axis1, axis2)
    d = d if dtype is None else d.astype(dtype)
    return d.sum(axis=-1)


def diag(v, k=0):
    """A 1-d ``v`` as the k-th diagonal of a square matrix, or a 2-d ``v``'s k-th diagonal."""
    v = _arr(v)
    if v.ndim not in (1, 2):
        raise ValueError("Input must be 1- or 2-d.")
    if v.ndim == 2:
        return diagonal(v, k)
    if v.size == 0:
        return _zeros_from(v, (abs(k), abs(k)))
    return _invoke("diag", [v], {"k": k})


def diagflat(v, k=0):
    """The flattened ``v`` as the k-th diagonal of a square matrix."""
    return diag(_arr(v).reshape(-1), k)


def moveaxis(a, source, destination):
    """``a`` with the axes ``source`` moved to ``destination``, the others in their order."""
    a = _arr(a)
    source = [_axis(s, a.ndim) for s in (source if isinstance(source, (tuple, list)) else (source,))]
    destination = [_axis(d, a.ndim) for d in (destination if isinstance(destination, (tuple, list))
                                              else (destination,))]
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    if len(set(source)) != len(source) or len(set(destination)) != len(destination):
        raise ValueError("repeated axis in `source` or `destination` argument")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return transpose(a, order)


def take(a, indices, axis=None, mode="raise", out=None):
    """The elements of ``a`` at ``indices`` along ``axis`` (of the flattened ``a`` when None);
    mode 'clip' or 'wrap' for indices out of range ('raise' checks them)."""
    a = _arr(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    idx = indices if isinstance(indices, _core.NDArray) else array(onp.asarray(indices), dtype="int64", ctx=a.ctx)
    if mode == "raise":
        values = idx.asnumpy()
        n = a.shape[axis]
        if values.size and (values.min() < -n or values.max() >= n):
            raise IndexError("index out of range for axis %d of size %d" % (axis, n))
        mode = "wrap"  # negative indices count from the end, as NumPy
    elif mode not in ("clip", "wrap"):
        raise ValueError("mode must be 'raise', 'clip' or 'wrap', not %r" % (mode,))
    return _invoke("take", [a, idx], {"axis": axis, "mode": mode})


def resize(a, new_shape):
    """``a``'s elements repeated in order to fill ``new_shape`` (zeros when ``a`` is empty)."""
    a = _arr(a)
    new_shape = (new_shape,) if isinstance(new_shape, int) else tuple(new_shape)
    total = int(onp.prod(new_shape, dtype=onp.int64))
    if total == 0 or a.size == 0:
        return _zeros_from(a, new_shape) if total == 0 else _invoke(
            "_zeros", [], {"shape": new_shape, "dtype": onp.dtype(a.dtype).name, "ctx": str(a.ctx)})
    flat = a.reshape(-1)
    reps = -(-total // a.size)
    if reps > 1:
        flat = _invoke("tile", [flat], {"reps": (reps,)})
    if flat.shape[0] != total:
        flat = _invoke("slice_axis", [flat], {"axis": 0, "begin": 0, "end": total})
    return flat.reshape(new_shape)


def around(a, decimals=0, out=None):
    """The values rounded half to even to ``decimals`` places (integers to tens, hundreds, ...
    when decimals is negative)."""
    a = _arr(a)
    if onp.dtype(a.dtype).kind != "f":
        if decimals >= 0:
            return a
        scale = 10.0 ** -decimals
        return (_invoke("rint", [a.astype("float64") / scale]) * scale).astype(a.dtype)
    if decimals == 0:
        return _invoke("rint", [a])
    scale = 10.0 ** decimals
    return _invoke("rint", [a * scale]) / scale


round = around  # pylint: disable=redefined-builtin
round_ = around


def unravel_index(indices, shape, order="C"):
    """The coordinates of flat ``indices`` in an array of ``shape``, stacked on a new first axis
    (MXNet's form; iterating gives NumPy's tuple), each (index // stride) % size."""
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = _arr(indices)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if idx.ndim == 0:
        idx = idx.reshape(1)
        scalar = True
    else:
        scalar = False
    axes = range(len(shape)) if order == "C" else reversed(range(len(shape)))
    stride, strides = 1, {}
    for axis in reversed(list(axes)):
        strides[axis] = stride
        stride *= shape[axis]
    wide = idx.astype("int64")
    coords = [_invoke("_mod_scalar", [_invoke("_div_scalar", [wide], {"scalar": strides[a]})], {"scalar": shape[a]})
              for a in range(len(shape))]
    out = _invoke("stack", coords, {"axis": 0})
    return out.reshape(len(shape)) if scalar else out


def indices(dimensions, dtype="int32", ctx=None):
    """The grid of index arrays of a ``dimensions`` shape, stacked on a new first axis."""
    dimensions = tuple(dimensions)
    grids = []
    for axis, n in enumerate(dimensions):
        shape = [1] * len(dimensions)
        shape[axis] = n
        grid = _iota(n, dtype="int64", ctx=ctx).reshape(shape)
        grids.append(broadcast_to(grid, dimensions))
    if not grids:
        return _invoke("_zeros", [], {"shape": (0,), "dtype": onp.dtype(dtype).name})
    return _invoke("stack", grids, {"axis": 0}).astype(dtype)


def diag_indices_from(arr):
    """The indices of the main diagonal of a square (n, n, ..., n) ``arr``: a tuple of ndim
    int64 arrays 0 .. n-1."""
    arr = _arr(arr)
    if arr.ndim < 2 or len(set(arr.shape)) != 1:
        raise ValueError("input array must be at least 2-d and with all dimensions of equal length")
    return tuple(_iota(arr.shape[0], arr, "int64") for _ in range(arr.ndim))


def _memory(a):
    """(start, end) of the bytes ``a`` views."""
    start = a._data_address()
    return start, start + a.size * onp.dtype(a.dtype).itemsize


def shares_memory(a, b, max_work=None):
    """Whether ``a`` and ``b`` view overlapping memory."""
    if a.size == 0 or b.size == 0:
        return False
    (a0, a1), (b0, b1) = _memory(a), _memory(b)
    return a0 < b1 and b0 < a1


may_share_memory = shares_memory


