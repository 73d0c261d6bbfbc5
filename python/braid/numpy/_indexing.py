"""NumPy indexing of mx.np.ndarray over the core's NDArray indexing.

The core indexes with ints, slices, None, Ellipsis and integer arrays. Here the rest of NumPy's
index is turned into those: an mx.np array in the index becomes a Python int (0-d integer) or a
NumPy array, and an index with booleans (masks, lists of bools, True/False) is resolved by NumPy
itself on the positions of the rows it touches, which the core then gathers or writes with one
integer array."""
import numpy as onp

from .. import _core
from .._core import NDArray


def _convert_item(item):
    """One entry of an index, with arrays as NumPy arrays (0-d integer ones as ints, as MXNet)."""
    if isinstance(item, NDArray):
        item = item.asnumpy()
    if isinstance(item, onp.ndarray) and item.dtype.kind == "f":
        item = item.astype(onp.int64)  # MXNet takes float index arrays (mx.np arrays default to float32)
    if isinstance(item, onp.ndarray) and item.ndim == 0 and item.dtype.kind in "iu":
        return int(item)
    if isinstance(item, (list, range)) and not isinstance(item, tuple):
        as_array = onp.asarray(item)
        if as_array.dtype == onp.bool_:
            return as_array
    return item


def _is_bool(item):
    return isinstance(item, (bool, onp.bool_)) or (isinstance(item, onp.ndarray) and item.dtype == onp.bool_)


def normalize(key):
    """(key for the core, whether it holds booleans)."""
    if isinstance(key, tuple):
        key = tuple(_convert_item(k) for k in key)
        return key, any(_is_bool(k) for k in key)
    key = _convert_item(key)
    return key, _is_bool(key)


def _axes_used(key, ndim):
    """How many leading axes of the array the index reads (a boolean array reads its ndim,
    True/False and None none, an Ellipsis all)."""
    items = key if isinstance(key, tuple) else (key,)
    if any(k is Ellipsis for k in items):
        return ndim
    used = 0
    for k in items:
        if k is None or isinstance(k, (bool, onp.bool_)):
            continue
        used += k.ndim if isinstance(k, onp.ndarray) and k.dtype == onp.bool_ else 1
    if used > ndim:
        raise IndexError("too many indices for array: array is %d-dimensional, but %d were indexed" % (ndim, used))
    return used


def rows_and_positions(shape, key):
    """(rows, positions): the array seen as rows (the product of the axes the index reads, then the
    other axes), and the NumPy int64 array of the rows the index selects, shaped as its result."""
    k = _axes_used(key, len(shape))
    lead = tuple(shape[:k])
    count = int(onp.prod(lead, dtype=onp.int64))
    positions = onp.arange(count, dtype=onp.int64).reshape(lead)[key]
    return [count] + list(shape[k:]), onp.asarray(positions, dtype=onp.int64)


def _result_shape(shape, key):
    """The shape NumPy gives ``x[key]`` for an x of ``shape`` (worked out on a view of one element)."""
    return onp.broadcast_to(onp.empty((), onp.int8), shape)[key].shape


def _is_basic(key):
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (slice, int, onp.integer)) for k in items)


def getitem(a, key):
    key, has_bool = normalize(key)
    shape = _result_shape(a.shape, key)
    if a.dtype == onp.bool_ and (0 in shape or not _is_basic(key)):
        # the core gathers no bool arrays: gathered as int8 and cast back
        return _core.invoke("Cast", [getitem(_core.invoke("Cast", [a], {"dtype": "int8"}), key)], {"dtype": "bool"})
    if 0 in shape:
        # Nothing selected (the core's slicing refuses empty ranges): a gather of no elements,
        # so that autograd still sees the result come from ``a``.
        if a.size:
            return _core.invoke("take", [NDArray._reshape(a, [-1]), _core.zeros(shape, a.ctx, "int64")], {})
        total = NDArray._reshape(_core.invoke("sum", [a], {}), [1] * len(shape))  # take refuses empty sources
        return _core.invoke("broadcast_mul", [total, _core.zeros(shape, a.ctx, onp.dtype(a.dtype).name)], {})
    if not has_bool:
        return NDArray.__getitem__(a, key)
    rows, positions = rows_and_positions(a.shape, key)
    return NDArray.__getitem__(NDArray._reshape(a, rows), positions)


def _whole(key):
    items = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or (isinstance(k, slice) and k == slice(None)) for k in items)


def _recorded_copy(a, value):
    """a[...] = value while autograd records: a copy operator into ``a``, so that gradients reach
    ``value`` (MXNet records such a write; writing part of ``a`` is refused by the core)."""
    if value.dtype != a.dtype:
        value = value.astype(a.dtype)
    if a.size == 0:  # nothing to copy, but ``a`` comes from ``value`` in the graph all the same
        total = NDArray._reshape(_core.invoke("sum", [value], {}), [1] * a.ndim)
        value = _core.invoke("broadcast_mul", [total, _core.zeros(a.shape, a.ctx, onp.dtype(a.dtype).name)], {})
    elif value.size == a.size:  # the index's new axes (None) dropped
        value = NDArray._reshape(value, list(a.shape))
    elif value.ndim > a.ndim:
        value = value.reshape(value.shape[value.ndim - a.ndim:])
    if value.shape != a.shape:
        value = _core.invoke("broadcast_to", [value], {"shape": a.shape})
    _core.invoke("_copy", [value], {"out": a})


def setitem(a, key, value):
    from .. import autograd
    key, has_bool = normalize(key)
    recording = autograd.is_recording()
    if recording and isinstance(value, NDArray) and _whole(key):
        return _recorded_copy(a, value)
    if not recording and 0 in _result_shape(a.shape, key):
        return None  # nothing to write (while recording, the core refuses a partial write first)
    if not has_bool:
        return NDArray.__setitem__(a, key, value)
    rows, positions = rows_and_positions(a.shape, key)
    if positions.size == 0:
        return None
    return NDArray.__setitem__(NDArray._reshape(a, rows), positions, value)
