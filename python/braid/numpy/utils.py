"""mxnet.numpy's dtype names and constants, and how a dtype argument is read.

A dtype is anything NumPy reads as one: a name ('int', 'float32', 'bool_'), a Python type (int,
float, bool), a NumPy scalar type or a numpy.dtype. ``None`` is float32, MXNet's default (not
NumPy's float64)."""
import numpy as onp

__all__ = ["float16", "float32", "float64", "uint8", "int32", "int8", "int64", "bool", "bool_", "pi", "inf",
           "nan", "PZERO", "NZERO", "newaxis", "finfo", "e", "NINF", "PINF", "NAN", "NaN"]

float16, float32, float64 = onp.float16, onp.float32, onp.float64
uint8, int8, int32, int64, bool_ = onp.uint8, onp.int8, onp.int32, onp.int64, onp.bool_
bool = bool  # pylint: disable=redefined-builtin,self-assigning-variable (MXNet: np.bool is Python bool)
int16, uint16, uint32, uint64 = onp.int16, onp.uint16, onp.uint32, onp.uint64

pi, e, inf, nan = onp.pi, onp.e, onp.inf, onp.nan
PINF, NINF, PZERO, NZERO = onp.inf, -onp.inf, 0.0, -0.0
NAN = NaN = onp.nan
newaxis = None
finfo = onp.finfo

# The dtypes Braid's arrays hold (the core's names).
_SUPPORTED = {"float32", "float64", "float16", "uint8", "int32", "int8", "int64", "bool", "int16", "uint16",
              "uint32", "uint64"}


def dtype_name(dtype, default="float32"):
    """The core's name of ``dtype`` (None: ``default``); TypeError for a dtype Braid's arrays lack."""
    if dtype is None:
        return default
    try:
        name = onp.dtype(dtype).name
    except TypeError:
        raise TypeError("data type %r not understood" % (dtype,)) from None
    if name not in _SUPPORTED:
        raise TypeError("mxnet.numpy arrays cannot hold dtype %s (they hold %s)" % (name, ", ".join(sorted(_SUPPORTED))))
    return name
