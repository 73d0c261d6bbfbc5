"""mxnet.test_utils: tolerances by dtype and the comparisons of arrays (NDArrays, NumPy arrays or
numbers) that tests assert with, up to whole optimizer updates."""
import numbers

import numpy as _np

from .._core import NDArray
from .._core import invoke as _invoke
from ..ndarray import array


# ---------------------------------------------------------------- tolerances

def default_rtols():
    """Relative tolerances by dtype (MXNet's)."""
    tols = {_np.dtype(_np.float16): 1e-2, _np.dtype(_np.float32): 1e-4, _np.dtype(_np.float64): 1e-5,
            _np.dtype(_np.bool_): 0}
    tols.update({_np.dtype(t): 0 for t in (_np.int8, _np.uint8, _np.int32, _np.int64)})
    return tols


def default_atols():
    """Absolute tolerances by dtype (MXNet's)."""
    tols = {_np.dtype(_np.float16): 1e-1, _np.dtype(_np.float32): 1e-3, _np.dtype(_np.float64): 1e-20,
            _np.dtype(_np.bool_): 0}
    tols.update({_np.dtype(t): 0 for t in (_np.int8, _np.uint8, _np.int32, _np.int64)})
    return tols


def default_numeric_eps():
    """Finite-difference steps by dtype (MXNet's)."""
    return {_np.dtype(_np.float16): 1.0 / 2 ** 6, _np.dtype(_np.float32): 1.0 / 2 ** 9,
            _np.dtype(_np.float64): 1.0 / 2 ** 14}


def effective_dtype(dat):
    return _np.dtype(_dtype_of(dat))


def _dtype_of(dat):
    if isinstance(dat, NDArray):
        return dat.dtype
    return _np.asarray(dat).dtype


def get_tolerance(dat, tol, default_tol):
    """tol if given; else default_tol's entry for dat's dtype (default_tol a dict or a number)."""
    if tol is not None:
        return tol
    if isinstance(default_tol, dict):
        return default_tol.get(_np.dtype(_dtype_of(dat)), default_tol.get(_np.dtype(_np.float32)))
    return default_tol


def get_tols(x, y, rtol, atol):
    """The larger of the two arrays' default tolerances, where not given."""
    rtol = max(get_tolerance(x, rtol, default_rtols()), get_tolerance(y, rtol, default_rtols()))
    atol = max(get_tolerance(x, atol, default_atols()), get_tolerance(y, atol, default_atols()))
    return rtol, atol


def get_rtol(rtol=None, dtype=_np.dtype(_np.float64)):
    return default_rtols()[_np.dtype(dtype)] if rtol is None else rtol


def get_atol(atol=None, dtype=_np.dtype(_np.float64)):
    return default_atols()[_np.dtype(dtype)] if atol is None else atol


def get_etol(etol=None):
    return 0 if etol is None else etol


# ---------------------------------------------------------------- comparing arrays

def _as_numpy(a):
    if isinstance(a, NDArray):
        return a.asnumpy()
    if isinstance(a, numbers.Number):
        return _np.array(a)
    return _np.asarray(a)


def same(a, b):
    """True when a and b have the same values (NDArrays or NumPy arrays)."""
    return _np.array_equal(_as_numpy(a), _as_numpy(b))


def same_array(array1, array2):
    """True when the two NDArrays share their memory (a change to one shows in the other)."""
    array1[:] += 1
    if not same(array1.asnumpy(), array2.asnumpy()):
        array1[:] -= 1
        return False
    array1[:] -= 1
    return same(array1.asnumpy(), array2.asnumpy())


def reldiff(a, b):
    """sum|a - b| / (sum|a| + sum|b|), 0 where both are 0."""
    a, b = _as_numpy(a), _as_numpy(b)
    diff = _np.sum(_np.abs(a - b))
    norm = _np.sum(_np.abs(a)) + _np.sum(_np.abs(b))
    return 0 if diff == 0 else diff / norm


_CHUNK = 1 << 20


def _allclose(a, b, rtol, atol, equal_nan):
    """np.allclose, a chunk at a time for big arrays of one shape: NumPy's temporaries of a
    whole 512 MB array cost more in fresh pages than the comparison itself."""
    if a.shape != b.shape or a.size <= _CHUNK:
        return _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    a, b = a.reshape(-1), b.reshape(-1)
    return all(_np.allclose(a[i:i + _CHUNK], b[i:i + _CHUNK], rtol=rtol, atol=atol, equal_nan=equal_nan)
               for i in range(0, a.size, _CHUNK))


def _close_where_they_are(a, b, rtol, atol, equal_nan):
    """True when a and b are floating-point NDArrays of one shape, dtype and CPU context that
    _contrib_allclose finds close: no copies to NumPy (MXNet's assert_almost_equal does the same)."""
    if not (isinstance(a, NDArray) and isinstance(b, NDArray) and a.shape == b.shape and a.dtype == b.dtype
            and a.context == b.context and a.context.device_type == "cpu"
            and _np.issubdtype(_np.dtype(a.dtype), _np.floating)):
        return False
    return int(_invoke("_contrib_allclose", [a, b], {"rtol": rtol, "atol": atol,
                                                     "equal_nan": equal_nan}).asscalar()) == 1


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """|a - b| <= atol + rtol * |b| everywhere, with dtype-dependent default tolerances."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    return _allclose(a, b, rtol, atol, equal_nan)


def find_max_violation(a, b, rtol=None, atol=None):
    """The index where |a - b| / (atol + rtol |b|) is largest, and that ratio."""
    rtol, atol = get_tols(a, b, rtol, atol)
    diff = _np.abs(a - b)
    tol = atol + rtol * _np.abs(b)
    violation = _np.asarray(diff / (tol + 1e-20))  # an array even for 0-d inputs
    violation[_np.isnan(violation)] = 0
    loc = _np.argmax(violation)
    idx = _np.unravel_index(loc, violation.shape)
    return idx, _np.max(violation)


def _mismatch_report(a, b, rtol, atol, names, mismatches):
    bad = ~_np.isclose(a, b, rtol=rtol, atol=atol)
    locations = list(zip(*_np.nonzero(bad)))[: mismatches[0]]
    lines = ["%s%s: %s=%r %s=%r" % ("", tuple(int(i) for i in loc), names[0], a[loc], names[1], b[loc])
             for loc in locations]
    return "\n".join(lines)


def assert_almost_equal(a, b, rtol=None, atol=None, names=("a", "b"), equal_nan=False,
                        use_broadcast=True, mismatches=(10, 10)):
    """Raises AssertionError naming the worst mismatch when a and b (NDArrays, NumPy arrays or
    numbers) differ beyond |a - b| <= atol + rtol * |b|. Default tolerances depend on the dtypes
    (default_rtols, default_atols: float32 1e-4 / 1e-3)."""
    rtol, atol = get_tols(a, b, rtol, atol)
    if _close_where_they_are(a, b, rtol, atol, equal_nan):
        return
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError("shapes differ: %s %s, %s %s" % (names[0], a.shape, names[1], b.shape))
    if _allclose(a, b, rtol, atol, equal_nan):
        return
    a_b, b_b = (_np.atleast_1d(x) for x in _np.broadcast_arrays(a, b))  # 0-d values reported as (1,)
    a_b, b_b = a_b.astype(_np.float64, copy=False) if a_b.dtype == bool else a_b, b_b
    index, rel = find_max_violation(_np.asarray(a_b, dtype=_np.float64), _np.asarray(b_b, dtype=_np.float64),
                                    rtol, atol)
    raise AssertionError(
        "\nItems are not equal:\nError %f exceeds tolerance rtol=%e, atol=%e (mismatch at %s: %s=%r, %s=%r).\n%s\n"
        " %s: %s\n %s: %s" % (rel, rtol, atol, index, names[0], a_b[index], names[1], b_b[index],
                              _mismatch_report(a_b, b_b, rtol, atol, names, mismatches), names[0], a, names[1], b))


def assert_almost_equal_with_err(a, b, rtol=None, atol=None, etol=None, names=("a", "b"), equal_nan=False,
                                 mismatches=(10, 10)):
    """Like assert_almost_equal, but a share etol of the elements may mismatch."""
    etol = get_etol(etol)
    if etol <= 0:
        return assert_almost_equal(a, b, rtol, atol, names, equal_nan, mismatches=mismatches)
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    close = _np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    share = 1.0 - _np.mean(close)
    if share > etol:
        raise AssertionError("%.2f%% of the elements of %s and %s differ (%.2f%% allowed)" %
                             (share * 100, names[0], names[1], etol * 100))


def _zero_nans(a, b):
    a, b = _np.copy(_as_numpy(a)), _np.copy(_as_numpy(b))
    nans = _np.logical_or(_np.isnan(a), _np.isnan(b))
    a[nans] = 0
    b[nans] = 0
    return a, b


def almost_equal_ignore_nan(a, b, rtol=None, atol=None):
    """almost_equal where positions that are NaN in either array are not compared."""
    return almost_equal(*_zero_nans(a, b), rtol=rtol, atol=atol)


def assert_almost_equal_ignore_nan(a, b, rtol=None, atol=None, names=("a", "b")):
    assert_almost_equal(*_zero_nans(a, b), rtol=rtol, atol=atol, names=names)


def assert_allclose(a, b, rtol=1e-07, atol=0, equal_nan=True):
    """assert_almost_equal with NumPy's assert_allclose defaults (NaNs equal)."""
    assert_almost_equal(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def assert_exception(f, exception_type, *args, **kwargs):
    """Asserts that f(*args, **kwargs) raises exception_type."""
    try:
        f(*args, **kwargs)
    except exception_type:
        return
    raise AssertionError("%s did not raise %s" % (getattr(f, "__name__", f), exception_type.__name__))


def compare_ndarray_tuple(t1, t2, rtol=None, atol=None):
    """Compares two (nested) tuples of arrays element by element."""
    if t1 is None or t2 is None:
        return
    if isinstance(t1, tuple):
        for s1, s2 in zip(t1, t2):
            compare_ndarray_tuple(s1, s2, rtol, atol)
    else:
        assert_almost_equal(t1, t2, rtol=rtol, atol=atol)


def _uniform(shape, dtype):
    """Weights and gradients for compare_optimizer: uniform in [0, 1), drawn in `dtype` by mx.random
    as MXNet's test_utils draws them."""
    from ..ndarray import random as _random
    return _random.uniform(shape=shape, dtype=dtype)


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Runs one update of each optimizer on the same random weights and gradients and compares the
    weights (and, with compare_states, the optimizer states)."""
    if ntensors > 1:
        # opt2 updates all the tensors in one call (indices 0..n-1); opt1, the reference, one by one
        shapes = shape if isinstance(shape, list) else [shape] * ntensors
        w1 = [_uniform(s, dtype) for s in shapes]
        g1 = [_uniform(s, dtype) for s in shapes]
        w2, g2 = [w.copy() for w in w1], [g.copy() for g in g1]
        state2 = [opt2.create_state_multi_precision(0, w) for w in w2]
        opt2.update_multi_precision(list(range(ntensors)), w2, g2, state2)
        for i in range(ntensors):
            state1 = opt1.create_state_multi_precision(i, w1[i])
            opt1.update_multi_precision(i, w1[i], g1[i], state1)
            if compare_states:
                compare_ndarray_tuple(state1, state2[i], rtol, atol)
            compare_ndarray_tuple(w1[i], w2[i], rtol, atol)
        return
    # opt2 gets the compressed arrays (a weight storing every row, a gradient some rows), opt1 their
    # dense copies.
    from ._random_inputs import rand_ndarray
    w2 = _uniform(shape, dtype) if w_stype == "default" else \
        rand_ndarray(shape, w_stype, density=1, dtype=dtype)
    g2 = _uniform(shape, dtype) if g_stype == "default" else \
        rand_ndarray(shape, g_stype, dtype=dtype)
    w1, g1 = w2.tostype("default"), g2.tostype("default")
    state1 = opt1.create_state_multi_precision(0, w1)
    state2 = opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(state1, state2)
    opt1.update_multi_precision(0, w1, g1, state1)
    opt2.update_multi_precision(0, w2, g2, state2)
    if compare_states:
        compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
    assert_almost_equal(w1, w2, rtol=rtol, atol=atol)
