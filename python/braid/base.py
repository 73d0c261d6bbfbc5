"""MXNet's mxnet.base: the error type every failure of the C++ core raises, and the small helpers
MXNet programs import from here."""
import ctypes
import numbers
import os

import numpy as _np

from ._core import MXNetError

__all__ = ["MXNetError", "NotImplementedForSymbol", "NotSupportedForSparseNDArray", "py_str", "data_dir",
           "string_types", "numeric_types", "integer_types", "mx_real_t", "mx_uint", "NDArrayHandle"]

string_types = (str,)
numeric_types = (float, int, _np.generic)
integer_types = (int, _np.int32, _np.int64)
mx_real_t = _np.float32
mx_uint = int
_LIB = None  # MXNet's ctypes handle of libmxnet; Braid's core is the braid._core module
# What monitor callbacks' arrays cast to: ctypes.cast(array, NDArrayHandle), then NDArray(handle).
NDArrayHandle = ctypes.c_void_p


class NotImplementedForSymbol(MXNetError):
    """An NDArray operation that has no meaning for a Symbol (bool(), in-place updates, ...)."""

    def __init__(self, function, alias, *args):
        super().__init__(function.__name__ if callable(function) else str(function))
        self.function = function.__name__ if callable(function) else str(function)
        self.alias = alias
        self.args = [str(type(a)) for a in args]

    def __str__(self):
        msg = "Function {}".format(self.function)
        if self.alias:
            msg += " (namely operator \"{}\")".format(self.alias)
        if self.args:
            msg += " with arguments ({})".format(", ".join(self.args))
        return msg + " is not implemented for Symbol and only available in NDArray."


class NotSupportedForSparseNDArray(MXNetError):
    def __init__(self, function, alias, *args):
        super().__init__(function.__name__ if callable(function) else str(function))


def py_str(x):
    """bytes from the core as str."""
    return x.decode("utf-8") if isinstance(x, bytes) else x


def data_dir_default():
    return os.path.join(os.path.expanduser("~"), ".mxnet")


def data_dir():
    """Where downloaded models and data go: $MXNET_HOME, else ~/.mxnet."""
    return os.getenv("MXNET_HOME", data_dir_default())


def _as_list(obj):
    return obj if isinstance(obj, list) else [obj]


def _is_number(x):
    return isinstance(x, numbers.Number)
