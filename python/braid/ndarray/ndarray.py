"""mxnet.ndarray.ndarray: the NDArray class (Braid's C++ array, ``braid._core.NDArray``), the
members MXNet writes in Python over its operators, and the array functions of this module
(creation, elementwise arithmetic with scalars, concatenation, moveaxis)."""
import builtins as _builtins

import numpy as _np

from .. import _core
from .._core import NDArray, array, empty, zeros, ones, full, arange, waitall
from ..base import MXNetError

def _package():
    """braid.ndarray, where every operator is a function (nd.<op>)."""
    import sys
    return sys.modules[__name__.rpartition(".")[0]]


__all__ = ["NDArray", "concatenate", "_DTYPE_NP_TO_MX", "_DTYPE_MX_TO_NP", "_GRAD_REQ_MAP",
           "ones", "add", "arange", "divide", "equal", "full", "greater",
           "greater_equal", "lesser", "lesser_equal",
           "maximum", "minimum", "multiply", "not_equal",
           "power", "subtract", "true_divide", "waitall", "zeros", "empty", "array"]

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


def zeros_like(data, **kwargs):
    return zeros(data.shape, ctx=data.context, dtype=data.dtype)


def ones_like(data, **kwargs):
    return ones(data.shape, ctx=data.context, dtype=data.dtype)


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
    if kwargs.get("reverse"):
        raise MXNetError("reshape(reverse=True) is not supported by Braid")
    return self._reshape([int(d) for d in shape])


def _bool(self):
    if self.size == 0:
        return False
    if self.size == 1:
        return bool(self.asscalar())
    raise ValueError("The truth value of an NDArray with multiple elements is ambiguous.")


def _squeeze(self, axis=None, inplace=False):
    return _core.invoke("squeeze", [self], {"axis": axis})


def _fluent(name):
    def method(self, *args, **kwargs):
        return getattr(_package(), name)(self, *args, **kwargs)
    method.__name__ = name
    return method


_FLUENT = ("zeros_like", "ones_like", "broadcast_to", "broadcast_like", "repeat", "split", "slice_axis", "take",
           "one_hot", "pick", "sort", "topk", "argsort", "argmax", "argmin", "clip", "abs", "sign", "flatten",
           "tile", "transpose", "flip", "sum", "prod", "mean", "max", "min", "norm", "round", "rint", "fix",
           "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh", "tanh",
           "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "square", "reciprocal",
           "relu", "sigmoid", "softmax", "log_softmax", "swapaxes", "nansum", "sigmoid")
for _name in _FLUENT:
    if _name in ("zeros_like", "ones_like") or _core.operator_exists(_name):
        setattr(NDArray, _name, _fluent(_name))
NDArray.reshape = _reshape
NDArray.squeeze = _squeeze
NDArray.T = property(lambda self: _core.invoke("transpose", [self], {}))
NDArray.__bool__ = _bool
NDArray.__iter__ = lambda self: (self[i] for i in range(len(self)))
NDArray.__array__ = lambda self, dtype=None: self.asnumpy() if dtype is None else self.asnumpy().astype(dtype)
NDArray.tostype = lambda self, stype: self if stype == "default" else (_ for _ in ()).throw(
    MXNetError("sparse storage types are not supported by Braid"))
