"""mx.np's functions that join, split and broadcast several arrays, NumPy's rules over the core's
concat, _split_v2 and broadcast_to (so they record for autograd and hybridize)."""
import numpy as onp

from .multiarray import as_np, _invoke
from ._op import _arr, broadcast_to, concatenate

__all__ = ["atleast_2d", "atleast_3d", "vstack", "row_stack", "hstack", "dstack", "column_stack", "append",
           "array_split", "broadcast_arrays", "meshgrid"]


def _one_or_list(arrays):
    return arrays[0] if len(arrays) == 1 else arrays


def atleast_2d(*arys):
    """Each array with at least two axes (a 0-d one as (1, 1), a 1-d one as a row)."""
    out = []
    for a in map(_arr, arys):
        out.append(a.reshape(1, 1) if a.ndim == 0 else a.reshape(1, -1) if a.ndim == 1 else a)
    return _one_or_list(out)


def atleast_3d(*arys):
    """Each array with at least three axes: (1, 1, 1), (1, N, 1), (M, N, 1), as NumPy."""
    out = []
    for a in map(_arr, arys):
        if a.ndim == 0:
            a = a.reshape(1, 1, 1)
        elif a.ndim == 1:
            a = a.reshape(1, a.shape[0], 1)
        elif a.ndim == 2:
            a = a.reshape(a.shape + (1,))
        out.append(a)
    return _one_or_list(out)


def vstack(tup, out=None):
    """The arrays stacked as rows (axis 0), 1-d ones as rows of one."""
    return concatenate([atleast_2d(a) for a in tup], axis=0)


row_stack = vstack


def hstack(tup, out=None):
    """The arrays joined along the columns (axis 1; axis 0 for 1-d arrays)."""
    arrays = [_arr(a) for a in tup]
    arrays = [a.reshape(1) if a.ndim == 0 else a for a in arrays]
    return concatenate(arrays, axis=0 if arrays and arrays[0].ndim == 1 else 1)


def dstack(tup):
    """The arrays joined along the depth (axis 2)."""
    return concatenate([atleast_3d(a) for a in tup], axis=2)


def column_stack(tup):
    """1-d arrays as columns, 2-d ones as they are, joined along axis 1."""
    arrays = [_arr(a) for a in tup]
    return concatenate([a.reshape(-1, 1) if a.ndim < 2 else a for a in arrays], axis=1)


def append(arr, values, axis=None):
    """``values`` after ``arr`` (both flattened when axis is None)."""
    return concatenate([_arr(arr), _arr(values)], axis=axis)


def array_split(ary, indices_or_sections, axis=0):
    """split, where a number of sections need not divide the axis: the first ``n % sections``
    parts have one more element."""
    ary = _arr(ary)
    if isinstance(indices_or_sections, int):
        sections = indices_or_sections
        if sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        n = ary.shape[axis]
        size, extra = divmod(n, sections)
        bounds = onp.cumsum([0] + [size + 1] * extra + [size] * (sections - extra))
        indices_or_sections = [int(b) for b in bounds[1:-1]]
    return split_at(ary, list(indices_or_sections), axis)


def split_at(ary, indices, axis):
    """The parts between ``indices`` (NumPy's split at indices, empty parts included)."""
    n = ary.shape[axis]
    bounds = [0] + [min(max(int(i) if i >= 0 else int(i) + n, 0), n) for i in indices] + [n]
    parts = []
    for begin, end in zip(bounds, bounds[1:]):
        end = max(begin, end)
        if end > begin:
            parts.append(_invoke("slice_axis", [ary], {"axis": axis, "begin": begin, "end": end}))
        else:  # an empty part (NumPy indexing makes it, still recorded from ``ary``)
            parts.append(ary[tuple(slice(0, 0) if k == axis % ary.ndim else slice(None) for k in range(ary.ndim))])
    return parts


def broadcast_arrays(*args):
    """The arrays broadcast to their common shape."""
    arrays = [_arr(a) for a in args]
    shape = onp.broadcast_shapes(*(a.shape for a in arrays))
    return [broadcast_to(a, shape) for a in arrays]


def meshgrid(*xi, **kwargs):
    """Coordinate matrices from coordinate vectors (indexing 'xy' or 'ij', sparse, as NumPy)."""
    indexing = kwargs.pop("indexing", "xy")
    sparse = kwargs.pop("sparse", False)
    kwargs.pop("copy", None)
    if kwargs:
        raise TypeError("meshgrid() got unexpected keyword arguments: %s" % ", ".join(kwargs))
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    ndim = len(xi)
    shaped = []
    for i, x in enumerate(xi):
        shape = [1] * ndim
        shape[i] = -1
        shaped.append(_arr(x).reshape(shape))
    if indexing == "xy" and ndim > 1:
        shaped[0] = shaped[0].reshape([1, -1] + [1] * (ndim - 2))
        shaped[1] = shaped[1].reshape([-1, 1] + [1] * (ndim - 2))
    if sparse:
        return shaped
    return as_np(broadcast_arrays(*shaped))

