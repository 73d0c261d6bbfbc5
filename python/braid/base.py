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
mx_uint = ctypes.c_uint
# What monitor callbacks' arrays cast to: ctypes.cast(array, NDArrayHandle), then NDArray(handle).
NDArrayHandle = ctypes.c_void_p
SymbolHandle = ctypes.c_void_p


class _NoCLibrary:
    """MXNet's ``_LIB`` (its ctypes handle of libmxnet.so). Braid's core is the ``braid._core``
    module, not MXNet's C API: calling one of its functions raises an error naming it."""

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        raise MXNetError("mxnet.base._LIB.%s: Braid has no MXNet C library (libmxnet.so) and no C API function %s; "
                         "use the Python API (mxnet.nd, mxnet.sym, mxnet.gluon) instead" % (name, name))

    def __bool__(self):
        return False


_LIB = _NoCLibrary()


def check_call(ret):
    """MXNet's check of a C API call's return code: raises MXNetError when it is not 0."""
    if ret != 0:
        raise MXNetError("a C API call failed with code %d" % ret)


def c_str(string):
    """string as a C string (bytes, UTF-8)."""
    return ctypes.c_char_p(string.encode("utf-8"))


def c_array(ctype, values):
    """values as a C array of ctype."""
    return (ctype * len(values))(*values)


def c_str_array(strings):
    """strings as a C array of C strings (UTF-8)."""
    array = ctypes.c_char_p * len(strings)
    return array(*[s.encode("utf-8") for s in strings])


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
