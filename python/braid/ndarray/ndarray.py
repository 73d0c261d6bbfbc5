"""mxnet.ndarray.ndarray: the NDArray class (Braid's C++ array, ``braid._core.NDArray``), the
members MXNet writes in Python over its operators, and the array functions of this module
(creation, elementwise arithmetic with scalars, concatenation, moveaxis)."""
import builtins as _builtins

import numpy as _np

from .. import _core, _signatures
from .._core import NDArray, waitall
from ..base import MXNetError
from ..util import is_np_shape


def _package():
    """braid.ndarray, where every operator is a function (nd.<op>)."""
    import sys
    return sys.modules[__name__.rpartition(".")[0]]


__all__ = ["NDArray", "concatenate", "_DTYPE_NP_TO_MX", "_DTYPE_MX_TO_NP", "_GRAD_REQ_MAP",
           "ones", "add", "arange", "eye", "linspace", "divide", "equal", "full", "greater",
           "greater_equal", "lesser", "lesser_equal", "logical_and", "logical_or", "logical_xor",
           "maximum", "minimum", "moveaxis", "modulo", "multiply", "not_equal", "onehot_encode",
           "power", "subtract", "true_divide", "waitall", "zeros", "empty", "array",
           "choose_element_0index", "fill_element_0index", "split_v2", "histogram", "to_dlpack_for_read",
           "to_dlpack_for_write", "from_dlpack", "from_numpy"]

# MXNet's names for Python's slice here (tests and MXNet's own code check `isinstance(i, py_slice)`).
py_slice = _builtins.slice

_STORAGE_TYPE_UNDEFINED = -1
_STORAGE_TYPE_DEFAULT = 0
_STORAGE_TYPE_ROW_SPARSE = 1
_STORAGE_TYPE_CSR = 2
_STORAGE_TYPE_STR_TO_ID = {"undefined": _STORAGE_TYPE_UNDEFINED, "default": _STORAGE_TYPE_DEFAULT,
                           "row_sparse": _STORAGE_TYPE_ROW_SPARSE, "csr": _STORAGE_TYPE_CSR}
_STORAGE_TYPE_ID_TO_STR = {v: k for k, v in _STORAGE_TYPE_STR_TO_ID.items()}

# MXNet's dtype codes (base/dtype.h has the same numbering).
_DTYPE_NP_TO_MX = {None: -1, _np.float32: 0, _np.float64: 1, _np.float16: 2, _np.uint8: 3, _np.int32: 4,
                   _np.int8: 5, _np.int64: 6, _np.bool_: 7, _np.int16: 8, _np.uint16: 9, _np.uint32: 10,
                   _np.uint64: 11}
_DTYPE_MX_TO_NP = {v: k for k, v in _DTYPE_NP_TO_MX.items()}
_GRAD_REQ_MAP = {"null": 0, "write": 1, "add": 3}


def array(source_array, ctx=None, dtype=None):
    """An array holding a copy of `source_array`: an NDArray (its storage type and dtype are kept),
    a scipy.sparse.csr_matrix (a CSRNDArray), or anything numpy.array takes (float32 unless
    `dtype` is given)."""
    if type(source_array).__module__.startswith("scipy.sparse"):
        from . import sparse
        return sparse.array(source_array, ctx=ctx, dtype=dtype)
    return _core.array(source_array, ctx, dtype)


def empty(shape, ctx=None, dtype=None, stype=None):
    """An array whose elements are not set (float32 unless `dtype` is given); a compressed one
    stores nothing."""
    if stype not in (None, "default"):
        from . import sparse
        return sparse.empty(stype, shape, ctx=ctx, dtype=dtype)
    return _core.empty(shape, ctx, dtype)


def _check_legacy_shape(op, shape):
    """MXNet's legacy shapes read () and 0-sized axes as unknown: such arrays exist only under
    mx.np_shape(), as in MXNet."""
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if (len(dims) == 0 or 0 in dims) and not is_np_shape():
        raise MXNetError("%s: shape %s has %s, which MXNet's legacy shapes read as unknown; make 0-d and zero-size "
                         "arrays under mx.np_shape() (or after mx.set_np_shape(True))"
                         % (op.lstrip("_"), dims, "no axes" if not dims else "a zero-size axis"))


def _creation(op, shape, ctx, dtype, out, attrs):
    """An array made by creation operator ``op`` (_zeros, _ones, _full), into ``out`` when given."""
    _check_legacy_shape(op, shape)
    stype = attrs.pop("stype", None)
    if stype not in (None, "default"):
        if op != "_zeros":
            raise MXNetError("%s: a %s array would store every element; make it dense and convert it with "
                             "tostype(%r)" % (op.lstrip("_"), stype, stype))
        from . import sparse
        return sparse.zeros(stype, shape, ctx=ctx, dtype=dtype, out=out)
    if out is None and not attrs:
        return getattr(_core, op.lstrip("_"))(shape, ctx, dtype)
    attrs = dict(attrs, shape=(shape,) if isinstance(shape, int) else tuple(shape))
    if ctx is not None:
        attrs["ctx"] = ctx
    attrs["dtype"] = "float32" if dtype is None else dtype
    if out is not None:
        attrs["out"] = out
    return _core.invoke(op, [], attrs)


def zeros(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of zeros; float32 unless ``dtype`` is given."""
    return _creation("_zeros", shape, ctx, dtype, out, kwargs)


def ones(shape, ctx=None, dtype=None, out=None, **kwargs):
    """An array of ones; float32 unless ``dtype`` is given."""
    return _creation("_ones", shape, ctx, dtype, out, kwargs)


def full(shape, val, ctx=None, dtype=None, out=None):
    """An array filled with ``val``."""
    _check_legacy_shape("_full", shape)
    if out is None:
        return _core.full(shape, val, ctx, dtype)
    return _creation("_full", shape, ctx, dtype, out, {"value": float(val)})


def arange(start, stop=None, step=1.0, repeat=1, infer_range=None, ctx=None, dtype=None):
    """Evenly spaced values in [start, stop), each repeated ``repeat`` times (MXNet's nd.arange)."""
    return _core.arange(start, stop, step, repeat, ctx, dtype)


def eye(N, M=0, k=0, ctx=None, dtype=None, **kwargs):
    """An N x M array (M=0: N x N) with ones on diagonal ``k``, zeros elsewhere (MXNet's nd.eye)."""
    attrs = dict(kwargs, N=N, M=M, k=k, dtype="float32" if dtype is None else dtype)
    if ctx is not None:
        attrs["ctx"] = ctx
    return _core.invoke("_eye", [], attrs)


def linspace(start, stop, num, endpoint=True, ctx=None, dtype=None):
    """``num`` evenly spaced values from ``start`` to ``stop`` (included when ``endpoint``), each
    ``start + i * step`` converted to ``dtype`` (truncated for integers, as NumPy and MXNet)."""
    attrs = {"start": start, "stop": stop, "num": num, "endpoint": endpoint,
             "dtype": "float32" if dtype is None else dtype}
    if ctx is not None:
        attrs["ctx"] = ctx
    return _core.invoke("_linspace", [], attrs)


def _normalize_axes(axes, ndim, what):
    axes = [axes] if isinstance(axes, int) else list(axes)
    for a in axes:
        if not -ndim <= a < ndim:
            raise ValueError("moveaxis: %s axis %d is out of range for an array of %d axes" % (what, a, ndim))
    normal = [a % ndim for a in axes]
    if len(set(normal)) != len(normal):
        raise ValueError("moveaxis: repeated %s axis in %r" % (what, axes))
    return normal


def moveaxis(tensor, source, destination):
    """The array with axes ``source`` (an int or a sequence) moved to positions ``destination``,
    the others in their order (NumPy's moveaxis)."""
    src = _normalize_axes(source, tensor.ndim, "source")
    dst = _normalize_axes(destination, tensor.ndim, "destination")
    if len(src) != len(dst):
        raise ValueError("moveaxis: %d source axes but %d destination axes" % (len(src), len(dst)))
    order = [a for a in range(tensor.ndim) if a not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _core.invoke("transpose", [tensor], {"axes": tuple(order)})


def onehot_encode(indices, out):
    """Writes into ``out`` (rows, classes) the one-hot rows of ``indices`` (one class per row)."""
    return _core.invoke("one_hot", [indices], {"depth": out.shape[1], "dtype": out.dtype, "out": out})


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False):
    """Splits ``ary`` along ``axis`` into equal sections (an int) or at the given indices (a tuple),
    as numpy.split."""
    return _core.invoke("_split_v2", [ary], _signatures.split_v2_attributes(indices_or_sections, axis, squeeze_axis))


def histogram(a, bins=10, range=None):  # pylint: disable=redefined-builtin
    """numpy.histogram: the counts of ``a``'s elements in ``bins`` equal bins over ``range``
    (default: from a's min to its max), or between the edges of the NDArray ``bins``; returns
    [counts (int64), edges]."""
    if isinstance(bins, NDArray):
        return _core.invoke("_histogram", [a, bins], {})
    if range is None:
        range = (a.min().asscalar(), a.max().asscalar())
    return _core.invoke("_histogram", [a], {"bin_cnt": int(bins), "range": tuple(float(v) for v in range)})


def choose_element_0index(lhs, rhs, out=None, **kwargs):
    """Row i's element at column rhs[i] of the 2-d ``lhs`` (MXNet's legacy op; pick on axis 1)."""
    attrs = {"axis": 1} if out is None else {"axis": 1, "out": out}
    return _core.invoke("pick", [lhs, rhs], attrs)


def fill_element_0index(lhs, mhs, rhs, out=None, **kwargs):
    """``lhs`` with row i's element at column rhs[i] replaced by mhs[i] (MXNet's legacy op)."""
    mask = _core.invoke("one_hot", [rhs], {"depth": lhs.shape[1], "dtype": lhs.dtype})
    kept = _core.invoke("elemwise_mul", [lhs, _core.invoke("_rminus_scalar", [mask], {"scalar": 1.0})], {})
    filled = _core.invoke("broadcast_mul", [mask, mhs.reshape((-1, 1))], {})
    attrs = {} if out is None else {"out": out}
    return _core.invoke("elemwise_add", [kept, filled], attrs)


# Shaped like an existing array (0-d and zero-size ones included, whatever the shape mode).
def zeros_like(data, **kwargs):
    if data.stype != "default":
        return _core.sparse_zeros(data.stype, data.shape, data.context, data.dtype)
    return _core.zeros(data.shape, data.context, data.dtype)


def ones_like(data, **kwargs):
    return _core.ones(data.shape, data.context, data.dtype)


def _binary(array_op, scalar_op, reverse_scalar_op=None):
    def fn(lhs, rhs):
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
            return array_op(lhs, rhs)
        if isinstance(lhs, NDArray):
            return scalar_op(lhs, float(rhs))
        if isinstance(rhs, NDArray):
            return (reverse_scalar_op or scalar_op)(rhs, float(lhs))
        return array_op(array([lhs]), array([rhs]))[0].asscalar()
    return fn


add = _binary(lambda a, b: a + b, lambda a, s: a + s)
subtract = _binary(lambda a, b: a - b, lambda a, s: a - s, lambda a, s: s - a)
multiply = _binary(lambda a, b: a * b, lambda a, s: a * s)
divide = _binary(lambda a, b: a / b, lambda a, s: a / s, lambda a, s: s / a)
true_divide = divide
power = _binary(lambda a, b: a ** b, lambda a, s: a ** s, lambda a, s: s ** a)
equal = _binary(lambda a, b: a == b, lambda a, s: a == s)
not_equal = _binary(lambda a, b: a != b, lambda a, s: a != s)
greater = _binary(lambda a, b: a > b, lambda a, s: a > s, lambda a, s: a < s)
greater_equal = _binary(lambda a, b: a >= b, lambda a, s: a >= s, lambda a, s: a <= s)
lesser = _binary(lambda a, b: a < b, lambda a, s: a < s, lambda a, s: a > s)
lesser_equal = _binary(lambda a, b: a <= b, lambda a, s: a <= s, lambda a, s: a >= s)
modulo = _binary(lambda a, b: _core.invoke("broadcast_mod", [a, b], {}),
                 lambda a, s: _core.invoke("_mod_scalar", [a], {"scalar": s}),
                 lambda a, s: _core.invoke("_rmod_scalar", [a], {"scalar": s}))
logical_and = _binary(lambda a, b: _core.invoke("broadcast_logical_and", [a, b], {}),
                      lambda a, s: _core.invoke("_logical_and_scalar", [a], {"scalar": s}))
logical_or = _binary(lambda a, b: _core.invoke("broadcast_logical_or", [a, b], {}),
                     lambda a, s: _core.invoke("_logical_or_scalar", [a], {"scalar": s}))
logical_xor = _binary(lambda a, b: _core.invoke("broadcast_logical_xor", [a, b], {}),
                      lambda a, s: _core.invoke("_logical_xor_scalar", [a], {"scalar": s}))
maximum = _binary(lambda a, b: _core.invoke("broadcast_maximum", [a, b], {}),
                  lambda a, s: _core.invoke("_maximum_scalar", [a], {"scalar": s}))
minimum = _binary(lambda a, b: _core.invoke("broadcast_minimum", [a, b], {}),
                  lambda a, s: _core.invoke("_minimum_scalar", [a], {"scalar": s}))


def concatenate(arrays, axis=0, always_copy=True):
    return _core.invoke("concat", list(arrays), {"dim": axis})


# ---- NDArray members written over the registry (MXNet's fluent methods) ----

def _reshape(self, *shape, **kwargs):
    if "shape" in kwargs:
        shape = kwargs.pop("shape")
    elif len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        shape = shape[0]
    spec = [int(d) for d in shape]
    try:
        if kwargs.get("reverse"):
            # MXNet's reverse: the special codes apply right to left, i.e. to the reversed shape with
            # the reversed spec, the result reversed back. Worked out on views (nothing is copied).
            flipped = self._reshape(list(reversed(self.shape)))._reshape(list(reversed(spec)))
            spec = list(reversed(flipped.shape))
        return self._reshape(spec)
    except MXNetError as e:
        raise ReshapeError(str(e)) from None


class ReshapeError(MXNetError, ValueError):
    """A shape that does not fit the array: MXNet raises it as a ValueError."""


def _asscalar(self):
    """The one element as a NumPy scalar of the array's dtype (MXNet's ``asnumpy()[0]``; for
    other shapes ``asnumpy()[()]``, as MXNet)."""
    if self.size != 1:
        raise ValueError("The current array is not a scalar: its shape is %s" % (self.shape,))
    return self.asnumpy()[0] if self.ndim == 1 else self.asnumpy()[()]


def _bool(self):
    if self.size == 0:
        return False
    if self.size == 1:
        return bool(self.asscalar())
    raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")


def _flatten(self, inplace=False):
    """(d0, d1 * d2 * ...): a view of the same memory with ``inplace`` (MXNet's), else a new array."""
    if inplace:
        return self.reshape((self.shape[0], -1) if self.ndim else (1, 1))
    return _core.invoke("Flatten", [self], {})


_expand_dims_view = NDArray.expand_dims  # the C++ view


def _expand_dims(self, axis, inplace=False):
    """A new axis of size 1 at ``axis``: a view of the same memory with ``inplace``, else a new array."""
    if inplace:
        return _expand_dims_view(self, axis)
    return _core.invoke("expand_dims", [self], {"axis": axis})


def _squeeze(self, axis=None, inplace=False):
    """Without the axes of size 1 (all, or those of ``axis``): a view of the same memory with
    ``inplace``, else a new array. Squeezing every axis leaves shape (1,), as MXNet."""
    if not inplace:
        return _core.invoke("squeeze", [self], {"axis": axis})
    axes = range(self.ndim) if axis is None else [axis] if isinstance(axis, int) else axis
    axes = {a % self.ndim for a in axes}
    if axis is None:
        axes = {a for a in axes if self.shape[a] == 1}
    for a in axes:
        if self.shape[a] != 1:
            raise MXNetError("squeeze: axis %d has size %d, not 1" % (a, self.shape[a]))
    return self.reshape([d for a, d in enumerate(self.shape) if a not in axes] or [1])


def _fluent(name):
    def method(self, *args, **kwargs):
        return getattr(_package(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


_FLUENT = ("zeros_like", "ones_like", "broadcast_to", "broadcast_like", "repeat", "split", "slice_axis", "slice", "take",
           "one_hot", "pick", "sort", "topk", "argsort", "argmax", "argmin", "clip", "abs", "sign", "flatten",
           "tile", "transpose", "flip", "sum", "prod", "mean", "max", "min", "norm", "round", "rint", "fix",
           "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
           "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "square", "reciprocal",
           "relu", "sigmoid", "softmax", "log_softmax", "swapaxes", "nansum", "nanprod", "arcsinh", "arccosh",
           "arctanh", "rcbrt", "degrees", "radians", "softmin", "argmax_channel", "broadcast_axes", "pad",
           "reshape_like", "slice", "slice_like", "shape_array", "size_array", "split_v2")
for _name in _FLUENT:
    if _name in ("zeros_like", "ones_like", "split_v2") or _core.operator_exists(_name):
        setattr(NDArray, _name, _fluent(_name))
NDArray.reshape = _reshape
NDArray.squeeze = _squeeze
NDArray.flatten = _flatten
NDArray.expand_dims = _expand_dims
NDArray.T = property(lambda self: _core.invoke("transpose", [self], {}))
NDArray.asscalar = _asscalar
NDArray.__bool__ = _bool
NDArray.__mod__ = lambda self, other: modulo(self, other)
NDArray.__rmod__ = lambda self, other: modulo(other, self)
NDArray.__iter__ = lambda self: (self[i] for i in range(len(self)))
NDArray.__array__ = lambda self, dtype=None: self.asnumpy() if dtype is None else self.asnumpy().astype(dtype)


_cast_storage = NDArray.tostype


def _tostype(self, stype):
    """A copy in storage type `stype` ('default', 'row_sparse' or 'csr'; csr for 2-d arrays only)."""
    if stype == "csr" and len(self.shape) != 2:
        raise ValueError("tostype('csr'): a CSR array is 2-d, this array has shape %s" % (self.shape,))
    return _cast_storage(self, stype)


NDArray.tostype = _tostype


def _from_pickle(state):
    return _core._ndarray_from_state(state)


# Pickled as MXNet's raw bytes of the array (__getstate__), rebuilt by a function of this module.
NDArray.__reduce__ = lambda self: (_from_pickle, (self.__getstate__(),))
NDArray.__setstate__ = lambda self, state: self._set_from_state(state)


# DLPack (PyTorch, NumPy, CuPy...): the same memory, no copy. A capsule is taken once.
def to_dlpack_for_read(data):
    """A DLPack capsule of `data`'s memory, once pending writes to it are done."""
    return _core.to_dlpack(data, False)


def to_dlpack_for_write(data):
    """A DLPack capsule of `data`'s memory, once every pending operation on it is done."""
    return _core.to_dlpack(data, True)


def from_dlpack(dlpack):
    """An NDArray over a DLPack capsule's memory (or an object with __dlpack__, such as a torch tensor)."""
    return _core.from_dlpack(dlpack)


def from_numpy(ndarray, zero_copy=True, array_cls=NDArray):
    """An NDArray of a NumPy array. With zero_copy (C-contiguous arrays only) it shares the array's
    memory, and the NumPy array is made read-only: write through the NDArray."""
    if not zero_copy:
        return array(ndarray, dtype=ndarray.dtype)
    if not ndarray.flags["C_CONTIGUOUS"]:
        raise ValueError("Only c-contiguous arrays are supported for zero-copy")
    ndarray.flags["WRITEABLE"] = False
    return _core.borrow_numpy(ndarray)


NDArray.to_dlpack_for_read = to_dlpack_for_read
NDArray.to_dlpack_for_write = to_dlpack_for_write
NDArray.__dlpack__ = lambda self, stream=None: to_dlpack_for_read(self)
NDArray.__dlpack_device__ = lambda self: _core.dlpack_device(self)
