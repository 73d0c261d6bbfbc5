"""mxnet.ndarray.sparse: arrays that store only their non-zero part.

- ``CSRNDArray``: a 2-d matrix in compressed sparse rows (``data``, ``indices``, ``indptr``);
- ``RowSparseNDArray``: an array of which only some rows are stored (``data``, ``indices``);

both subclasses of ``NDArray`` (``x.stype`` is ``'csr'`` or ``'row_sparse'``). Make them with
``csr_matrix``, ``row_sparse_array``, ``zeros``, ``array`` or ``x.tostype(stype)``. Operators take
them like dense arrays: those with a compressed implementation keep the storage, the others
compute on a dense copy (MXNet's storage fallback). ``mx.nd.sparse.<op>`` names MXNet's sparse
operators (``retain``, ``dot``, ``square_sum``...) and every other operator.
"""
import builtins as _builtins
import operator as _operator

import numpy as _np

from .. import _core, _signatures
from ..base import MXNetError
from ..context import current_context
from .ndarray import NDArray, array as _dense_array

__all__ = ["csr_matrix", "row_sparse_array", "zeros", "empty", "array", "CSRNDArray", "RowSparseNDArray",
           "BaseSparseNDArray", "add", "subtract", "multiply", "divide", "zeros_like"]

BaseSparseNDArray = _core.BaseSparseNDArray
CSRNDArray = _core.CSRNDArray
RowSparseNDArray = _core.RowSparseNDArray

# Operators are looked up into this module's globals (mx.nd.sparse.slice is an operator).
_py_slice = _builtins.slice

try:
    import scipy.sparse as _spsp
except ImportError:  # only (data, (row, col)) and SciPy inputs need it
    _spsp = None


def _is_scipy_csr(x):
    return _spsp is not None and isinstance(x, _spsp.csr_matrix)


def _default_dtype(source, dtype):
    """MXNet's rule: the given dtype, else the source's when it is an array, else float32."""
    if dtype is not None:
        return dtype
    if isinstance(source, (NDArray, _np.ndarray)) or _is_scipy_csr(source):
        return source.dtype
    return _np.float32


def _values(source, dtype, ctx):
    """A dense NDArray of `source` (an NDArray, NumPy array or sequence) as `dtype` on `ctx`."""
    if isinstance(source, NDArray):
        return source.astype(dtype).as_in_context(ctx)
    return _dense_array(_np.asarray(source, dtype=dtype), ctx=ctx, dtype=dtype)


def _index_array(source, ctx):
    return _values(source, _np.int64, ctx)


def _check_shape(given, expected):
    if expected is not None and tuple(given) != tuple(expected):
        raise ValueError("shape mismatch: the data has shape %s, but shape=%s was given" % (tuple(given), expected))


def _is_shape(arg):
    return isinstance(arg, tuple) and all(isinstance(d, (int, _np.integer)) for d in arg)


def _from_array(arg, shape, ctx, dtype, stype):
    """An array of `stype` from another array: a copy of one of that type (or of a SciPy csr
    matrix), a conversion of a dense one; the other compressed type is refused, as in MXNet."""
    same, other = (CSRNDArray, RowSparseNDArray) if stype == "csr" else (RowSparseNDArray, CSRNDArray)
    if isinstance(arg, other):
        raise ValueError("a %s cannot be made %s; use tostype('default') first" % (other.__name__, stype))
    if isinstance(arg, same) or (stype == "csr" and _is_scipy_csr(arg)):
        _check_shape(arg.shape, shape)
        return array(arg, ctx=ctx, dtype=dtype)
    dense = _values(arg, _default_dtype(arg, dtype), ctx)
    _check_shape(dense.shape, shape)
    return dense.tostype(stype)


def csr_matrix(arg1, shape=None, ctx=None, dtype=None):
    """A CSRNDArray from ``(data, indices, indptr)``, ``(data, (row, col))`` (COO, summing
    repeats; needs SciPy), a shape ``(M, N)`` (all zeros), a dense array, a CSRNDArray or a
    ``scipy.sparse.csr_matrix``. The shape of ``(data, indices, indptr)`` defaults to
    ``(len(indptr) - 1, max(indices) + 1)``; aux arrays are stored as int64."""
    ctx = current_context() if ctx is None else ctx
    if isinstance(arg1, tuple) and len(arg1) == 2 and isinstance(arg1[1], tuple):
        if _spsp is None:
            raise ImportError("csr_matrix((data, (row, col))) needs SciPy (python3-scipy)")
        data, (row, col) = arg1
        data, row, col = (x.asnumpy() if isinstance(x, NDArray) else x for x in (data, row, col))
        return array(_spsp.coo_matrix((data, (row, col)), shape=shape).tocsr(), ctx=ctx, dtype=dtype)
    if _is_shape(arg1):
        _check_shape(arg1, shape)
        return zeros("csr", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple):
        if len(arg1) != 3:
            raise ValueError("csr_matrix: expected (data, indices, indptr), (data, (row, col)) or a shape, got a "
                             "tuple of %d" % len(arg1))
        data = _values(arg1[0], _default_dtype(arg1[0], dtype), ctx)
        indices, indptr = _index_array(arg1[1], ctx), _index_array(arg1[2], ctx)
        if shape is None:
            if indices.shape[0] == 0:
                raise ValueError("csr_matrix: give shape= for a matrix without stored values")
            shape = (indptr.shape[0] - 1, int(indices.asnumpy().max()) + 1)
        return _core.sparse_csr(data, indptr, indices, shape)
    return _from_array(arg1, shape, ctx, dtype, "csr")


def row_sparse_array(arg1, shape=None, ctx=None, dtype=None):
    """A RowSparseNDArray from ``(data, indices)`` (the stored rows and their numbers), a shape
    (all zeros), a dense array or a RowSparseNDArray. The shape of ``(data, indices)`` defaults to
    ``(max(indices) + 1,) + data.shape[1:]``; indices are stored as int64."""
    ctx = current_context() if ctx is None else ctx
    if _is_shape(arg1):
        _check_shape(arg1, shape)
        return zeros("row_sparse", arg1, ctx=ctx, dtype=dtype)
    if isinstance(arg1, tuple):
        if len(arg1) != 2:
            raise ValueError("row_sparse_array: expected (data, indices) or a shape, got a tuple of %d" % len(arg1))
        data = _values(arg1[0], _default_dtype(arg1[0], dtype), ctx)
        indices = _index_array(arg1[1], ctx)
        if shape is None:
            if indices.shape[0] == 0:
                raise ValueError("row_sparse_array: give shape= for an array without stored rows")
            shape = (int(indices.asnumpy().max()) + 1,) + tuple(data.shape[1:])
        return _core.sparse_row_sparse(data, indices, shape)
    return _from_array(arg1, shape, ctx, dtype, "row_sparse")


def zeros(stype, shape, ctx=None, dtype=None, **kwargs):
    """An all-zero array of storage type ``stype`` that stores nothing."""
    if kwargs.get("out") is not None:
        kwargs["out"][:] = 0
        return kwargs["out"]
    if stype not in ("csr", "row_sparse", "default"):
        raise ValueError("unknown storage type %r; valid: 'csr', 'row_sparse', 'default'" % (stype,))
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return _core.sparse_zeros(stype, shape, ctx, dtype)


def empty(stype, shape, ctx=None, dtype=None):
    """Same as zeros: a compressed array stores nothing until written."""
    return zeros(stype, shape, ctx, dtype)


def array(source_array, ctx=None, dtype=None):
    """A copy of a CSRNDArray, a RowSparseNDArray or a ``scipy.sparse.csr_matrix``."""
    ctx = current_context() if ctx is None else ctx
    if isinstance(source_array, BaseSparseNDArray):
        out = source_array.copyto(ctx)
        return out if dtype is None or _np.dtype(dtype) == _np.dtype(out.dtype) else out.astype(dtype)
    if _is_scipy_csr(source_array):
        src = source_array.sorted_indices()
        src.sum_duplicates()
        return csr_matrix((src.data, src.indices, src.indptr), shape=src.shape, ctx=ctx,
                          dtype=_default_dtype(source_array, dtype))
    raise ValueError("sparse.array: expected a CSRNDArray, a RowSparseNDArray or a scipy.sparse.csr_matrix, got %s; "
                     "use csr_matrix or row_sparse_array for dense data" % type(source_array).__name__)


def zeros_like(data, **kwargs):
    return _core.invoke("zeros_like", [data], kwargs)


def _elementwise(broadcast_op, same_shape_op, with_number):
    def apply(lhs, rhs):
        if isinstance(lhs, NDArray) and isinstance(rhs, NDArray):
            op = same_shape_op if lhs.shape == rhs.shape else broadcast_op
            return _core.invoke(op, [lhs, rhs], {})
        return with_number(lhs, rhs)
    return apply


add = _elementwise("broadcast_add", "elemwise_add", _operator.add)
subtract = _elementwise("broadcast_sub", "elemwise_sub", _operator.sub)
multiply = _elementwise("broadcast_mul", "elemwise_mul", _operator.mul)
divide = _elementwise("broadcast_div", "elemwise_div", _operator.truediv)


def _csr_getitem(self, key):
    """Rows of a csr matrix: x[i], x[i:j] (step 1)."""
    if isinstance(key, (int, _np.integer)):
        if key < 0:
            key += self.shape[0]
        return self._slice0(key, key + 1)
    if isinstance(key, _py_slice):
        if key.step not in (None, 1):
            raise ValueError("CSRNDArray slicing takes step 1 only, got %s" % key.step)
        begin, end, _ = key.indices(self.shape[0])
        return self._slice0(begin, max(begin, end))
    raise ValueError("CSRNDArray: index with an int or a slice of rows, got %s" % type(key).__name__)


def _rsp_getitem(self, key):
    if isinstance(key, _py_slice) and key == _py_slice(None):
        return self
    raise ValueError("RowSparseNDArray: only x[:] is supported, got %r; use tostype('default') to index" % (key,))


def _setitem(self, key, value):
    """x[:] = value: an NDArray, a NumPy array or (row_sparse only) a number."""
    if not (isinstance(key, _py_slice) and key == _py_slice(None)):
        raise ValueError("%s: only x[:] = value is supported, got key %r" % (type(self).__name__, key))
    if isinstance(value, NDArray):
        if not value._same_as(self):
            value.copyto(self)
    elif isinstance(value, (int, float, _np.number)):
        self._fill(float(value))
    else:
        _dense_array(_np.asarray(value), ctx=self.context, dtype=self.dtype).copyto(self)


def _tostype(kind):
    other = "row_sparse" if kind == "csr" else "csr"

    def tostype(self, stype):
        if stype == other:  # as MXNet: no direct conversion between the two compressed types
            raise ValueError("cast_storage from %s to %s is not supported" % (kind, other))
        return NDArray.tostype(self, stype)
    return tostype


def _asscipy(self):
    if _spsp is None:
        raise ImportError("asscipy needs SciPy (python3-scipy)")
    return _spsp.csr_matrix((self.data.asnumpy(), self.indices.asnumpy(), self.indptr.asnumpy()), shape=self.shape)


def _retain(self, *args, **kwargs):
    return retain(self, *args, **kwargs)


def _unsupported(name):
    def method(self, *args, **kwargs):
        raise MXNetError("%s.%s is not supported for compressed arrays; convert with tostype('default')"
                         % (type(self).__name__, name))
    method.__name__ = name
    return method


CSRNDArray.__getitem__ = _csr_getitem
RowSparseNDArray.__getitem__ = _rsp_getitem
BaseSparseNDArray.__setitem__ = _setitem
CSRNDArray.tostype = _tostype("csr")
RowSparseNDArray.tostype = _tostype("row_sparse")
CSRNDArray.asscipy = _asscipy
RowSparseNDArray.retain = _retain
for _name in ("reshape", "_at", "expand_dims", "__iter__"):
    setattr(BaseSparseNDArray, _name, _unsupported(_name))


def __getattr__(name):
    """mx.nd.sparse.<op>: MXNet's sparse operator `_sparse_<op>` when there is one, else `<op>`."""
    prefix = "_sparse_" if _core.operator_exists("_sparse_" + name) else ""
    return _signatures.lookup(globals(), "ndarray.sparse", name, (NDArray, _core.gluon.Parameter), _core.invoke,
                              prefix)
