"""mxnet.test_utils: comparing arrays in tests."""
import numpy as _np

from ._core import NDArray


def _numpy(a):
    return a.asnumpy() if isinstance(a, NDArray) else _np.asarray(a)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False):
    """Raises AssertionError when a and b (NDArrays or NumPy arrays) differ beyond
    |a - b| <= atol + rtol * |b| (defaults 1e-5 and 1e-20, as MXNet's for float32)."""
    rtol = 1e-5 if rtol is None else rtol
    atol = 1e-20 if atol is None else atol
    _np.testing.assert_allclose(_numpy(a), _numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan,
                                err_msg="%s and %s differ" % names)


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False):
    rtol = 1e-5 if rtol is None else rtol
    atol = 1e-20 if atol is None else atol
    return _np.allclose(_numpy(a), _numpy(b), rtol=rtol, atol=atol, equal_nan=equal_nan)
