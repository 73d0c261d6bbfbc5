"""mxnet.test_utils: what tests of MXNet programs use to compare arrays, check gradients, draw
random inputs and set the environment, with MXNet's names, arguments and tolerances."""
import contextlib
import functools
import numbers
import os
import sys

import numpy as _np

from . import _core
from .context import current_context, _set_current_context
from ._core import NDArray

# MXNet's test_utils has these module names at top level, and tests get them with
# `from mxnet.test_utils import *`.
import numpy as np  # noqa: E402,F401
mx = sys.modules[__package__]  # the braid package, which `import mxnet as mx` also names
from .ndarray import array  # noqa: E402,F401 (MXNet's test_utils imports it at top level)

# ---------------------------------------------------------------- contexts and dtypes

def default_context():
    """The context tests run on: this thread's current context (cpu(0) unless changed)."""
    return current_context()


def set_default_context(ctx):
    """Makes ctx this thread's current context (what new arrays use)."""
    _set_current_context(ctx)


def default_dtype():
    return _np.float32


def list_gpus():
    return list(range(_core.num_gpus()))


def is_cd_run():
    return os.environ.get("CD_JOB", "0") == "1"


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


def almost_equal(a, b, rtol=None, atol=None, equal_nan=False, use_broadcast=True):
    """|a - b| <= atol + rtol * |b| everywhere, with dtype-dependent default tolerances."""
    rtol, atol = get_tols(a, b, rtol, atol)
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        return False
    return _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


def find_max_violation(a, b, rtol=None, atol=None):
    """The index where |a - b| / (atol + rtol |b|) is largest, and that ratio."""
    rtol, atol = get_tols(a, b, rtol, atol)
    diff = _np.abs(a - b)
    tol = atol + rtol * _np.abs(b)
    violation = diff / (tol + 1e-20)
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
    a, b = _as_numpy(a), _as_numpy(b)
    if not use_broadcast and a.shape != b.shape:
        raise AssertionError("shapes differ: %s %s, %s %s" % (names[0], a.shape, names[1], b.shape))
    if _np.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan):
        return
    a_b, b_b = _np.broadcast_arrays(a, b)
    a_b, b_b = a_b.astype(_np.float64, copy=False) if a_b.dtype == bool else a_b, b_b
    index, rel = find_max_violation(_np.asarray(a_b, dtype=_np.float64), _np.asarray(b_b, dtype=_np.float64), rtol, atol)
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


def compare_optimizer(opt1, opt2, shape, dtype, w_stype="default", g_stype="default", rtol=1e-4, atol=1e-5,
                      compare_states=True, ntensors=1):
    """Runs one update of each optimizer on the same random weights and gradients and compares the
    weights (and, with compare_states, the optimizer states)."""
    from .ndarray import array
    if ntensors > 1:
        # opt2 updates all the tensors in one call (indices 0..n-1); opt1, the reference, one by one
        shapes = shape if isinstance(shape, list) else [shape] * ntensors
        w1 = [array(_np.random.uniform(-1, 1, s), dtype=dtype) for s in shapes]
        g1 = [array(_np.random.uniform(-1, 1, s), dtype=dtype) for s in shapes]
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
    if w_stype != "default" or g_stype != "default":
        raise NotImplementedError("compare_optimizer: sparse storage types are not supported by Braid")
    w1 = array(_np.random.uniform(-1, 1, shape), dtype=dtype)
    g1 = array(_np.random.uniform(-1, 1, shape), dtype=dtype)
    w2, g2 = w1.copy(), g1.copy()
    state1 = opt1.create_state_multi_precision(0, w1)
    state2 = opt2.create_state_multi_precision(0, w2)
    if compare_states:
        compare_ndarray_tuple(state1, state2)
    opt1.update_multi_precision(0, w1, g1, state1)
    opt2.update_multi_precision(0, w2, g2, state2)
    if compare_states:
        compare_ndarray_tuple(state1, state2, rtol=rtol, atol=atol)
    assert_almost_equal(w1, w2, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- random inputs

def random_arrays(*shapes):
    """Standard-normal float32 NumPy arrays of the given shapes (one array for one shape)."""
    arrays = [_np.array(_np.random.randn(), dtype=default_dtype()) if len(s) == 0 else
              _np.random.randn(*s).astype(default_dtype()) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def random_sample(population, k):
    """k distinct elements of population, in random order."""
    population_copy = list(population)
    _np.random.shuffle(population_copy)
    return population_copy[0:k]


def random_uniform_arrays(*shapes, **kwargs):
    low, high = kwargs.pop("low", 0.0), kwargs.pop("high", 1.0)
    dtype = kwargs.pop("dtype", default_dtype())
    arrays = [_np.random.uniform(low, high, size=s).astype(dtype) for s in shapes]
    return arrays[0] if len(arrays) == 1 else arrays


def rand_shape_2d(dim0=10, dim1=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return _np.random.randint(low, dim0 + 1), _np.random.randint(low, dim1 + 1)


def rand_shape_3d(dim0=10, dim1=10, dim2=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return _np.random.randint(low, dim0 + 1), _np.random.randint(low, dim1 + 1), _np.random.randint(low, dim2 + 1)


def rand_shape_nd(num_dim, dim=10, allow_zero_size=False):
    low = 0 if allow_zero_size else 1
    return tuple(_np.random.randint(low, dim + 1, size=num_dim))


def rand_coord_2d(x_low, x_high, y_low, y_high):
    return _np.random.randint(x_low, x_high), _np.random.randint(y_low, y_high)


def rand_ndarray(shape, stype="default", density=None, dtype=None, modifier_func=None,
                 shuffle_csr_indices=False, distribution=None, ctx=None):
    """A standard-normal NDArray of the given shape (dense storage: Braid's only one)."""
    if stype != "default":
        from .base import MXNetError
        raise MXNetError("rand_ndarray(stype=%r): Braid stores arrays densely; use stype='default'" % stype)
    from .ndarray import array
    return array(random_arrays(shape), dtype=dtype or default_dtype(), ctx=ctx or default_context())


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    rand_ndarray(shape, stype)  # raises for the sparse storage types


def np_reduce(dat, axis, keepdims, numpy_reduce_func):
    """numpy_reduce_func over several axes in turn (axis an int, a tuple or None), keeping the
    reduced axes as size 1 when keepdims."""
    if isinstance(axis, int):
        axis = [axis]
    else:
        axis = list(axis) if axis is not None else range(len(dat.shape))
    ret = dat
    for i in reversed(sorted(axis)):
        ret = numpy_reduce_func(ret, axis=i)
    if keepdims:
        keepdims_shape = list(dat.shape)
        for i in axis:
            keepdims_shape[i] = 1
        ret = ret.reshape(tuple(keepdims_shape))
    return ret


def collapse_sum_like(a, shape):
    """Sums a over the axes broadcasting expanded to give shape."""
    assert len(a.shape) >= len(shape)
    if _np.prod(shape) == 0 or a.size == 0:
        return _np.zeros(shape, dtype=a.dtype)
    axes = []
    ndim_diff = len(a.shape) - len(shape)
    for i in range(ndim_diff):
        axes.append(i)
    for i, s in enumerate(shape):
        if s != a.shape[i + ndim_diff]:
            assert s == 1
            axes.append(i + ndim_diff)
    return _np.sum(a, axis=tuple(axes)).reshape(shape)


# ---------------------------------------------------------------- symbols: forward, backward, gradients

def _parse_location(sym, location, ctx, dtype=default_dtype()):
    """{argument name: NDArray} from a list (in list_arguments order) or a dict of arrays."""
    from .ndarray import array
    names = sym.list_arguments()
    if isinstance(location, dict):
        unknown = set(location) - set(names)
        if unknown:
            raise ValueError("Symbol arguments and keys of the given location do not match. "
                             "symbol args:%s, location.keys():%s" % (names, sorted(location)))
    else:
        location = dict(zip(names, location))
    return {k: v.as_in_context(ctx) if isinstance(v, NDArray) else array(v, ctx=ctx, dtype=v.dtype if
            _np.asarray(v).dtype != _np.float64 else dtype) for k, v in location.items()}


def _parse_aux_states(sym, aux_states, ctx, dtype=default_dtype()):
    from .ndarray import array
    if aux_states is None:
        return None
    names = sym.list_auxiliary_states()
    if not isinstance(aux_states, dict):
        aux_states = dict(zip(names, aux_states))
    return {k: v.as_in_context(ctx) if isinstance(v, NDArray) else array(v, ctx=ctx, dtype=dtype)
            for k, v in aux_states.items()}


def _bind(sym, ctx, args, args_grad=None, grad_req="write", aux_states=None):
    return sym.bind(ctx, args, args_grad=args_grad, grad_req=grad_req, aux_states=aux_states)


def simple_forward(sym, ctx=None, is_train=False, **inputs):
    """Binds sym to the NumPy inputs, runs a forward and returns the outputs as NumPy arrays (one
    array for one output)."""
    from .ndarray import array
    ctx = ctx or default_context()
    inputs = {k: array(v, ctx=ctx) for k, v in inputs.items()}
    exe = sym.bind(ctx, args=inputs)
    exe.forward(is_train=is_train)
    outputs = [x.asnumpy() for x in exe.outputs]
    return outputs[0] if len(outputs) == 1 else outputs


def check_symbolic_forward(sym, location, expected, rtol=None, atol=None, aux_states=None, ctx=None,
                           equal_nan=False, dtype=default_dtype()):
    """Binds sym to location (arrays by argument), runs a forward (not training) and compares every
    output with expected (a list, or a dict by output name). Returns the outputs as NumPy arrays."""
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, dict):
        expected = [expected[k] for k in sym.list_outputs()]
    args_grad = {k: v.copy() for k, v in location.items()}
    exe = sym.bind(ctx, args=location, args_grad=args_grad, aux_states=aux_states)
    exe.forward(is_train=False)
    outputs = [x.asnumpy() for x in exe.outputs]
    for name, expect, output in zip(sym.list_outputs(), expected, outputs):
        assert_almost_equal(expect, output, rtol, atol, ("EXPECTED_%s" % name, "FORWARD_%s" % name),
                            equal_nan=equal_nan)
    return outputs


def check_symbolic_backward(sym, location, out_grads, expected, rtol=None, atol=None, aux_states=None,
                            grad_req="write", ctx=None, grad_stypes=None, equal_nan=False, dtype=default_dtype()):
    """Binds sym to location, runs a forward (training) and a backward with out_grads, and compares
    the arguments' gradients with expected (a list in argument order or a dict by name; with
    grad_req 'add', gradients accumulate onto random initial values). Returns the gradients."""
    from .ndarray import array
    ctx = ctx or default_context()
    location = _parse_location(sym, location, ctx, dtype)
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    if isinstance(expected, (list, tuple)):
        expected = {k: v for k, v in zip(sym.list_arguments(), expected)}
    args_grad_npy = {k: _np.random.normal(size=location[k].shape) for k in expected}
    args_grad_data = {k: array(v, ctx=ctx, dtype=expected[k].dtype if isinstance(expected[k], _np.ndarray)
                               and expected[k].dtype != _np.float64 else dtype) for k, v in args_grad_npy.items()}
    if isinstance(grad_req, str):
        grad_req = {k: grad_req for k in sym.list_arguments()}
    elif isinstance(grad_req, (list, tuple)):
        grad_req = {k: v for k, v in zip(sym.list_arguments(), grad_req)}
    exe = sym.bind(ctx, args=location, args_grad=args_grad_data, aux_states=aux_states, grad_req=grad_req)
    exe.forward(is_train=True)
    if isinstance(out_grads, (tuple, list)):
        out_grads = [array(v, ctx=ctx, dtype=dtype) if not isinstance(v, NDArray) else v for v in out_grads]
    elif isinstance(out_grads, dict):
        out_grads = [array(out_grads[k], ctx=ctx, dtype=dtype) if not isinstance(out_grads[k], NDArray)
                     else out_grads[k] for k in sym.list_outputs()]
    elif isinstance(out_grads, _np.ndarray):
        out_grads = [array(out_grads, ctx=ctx, dtype=dtype)]
    exe.backward(out_grads)
    grads = {k: v.asnumpy() for k, v in exe.grad_dict.items() if v is not None}
    for name in expected:
        req = grad_req.get(name, "write")
        if req == "write":
            assert_almost_equal(expected[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif req == "add":
            assert_almost_equal(expected[name], grads[name] - args_grad_npy[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        elif req == "null":
            assert_almost_equal(args_grad_npy[name], grads[name], rtol, atol,
                                ("EXPECTED_%s" % name, "BACKWARD_%s" % name), equal_nan=equal_nan)
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (req, name))
    return grads


def numeric_grad(executor, location, aux_states=None, eps=1e-4, use_forward_train=True, dtype=default_dtype()):
    """Central finite differences of the sum of the executor's outputs with respect to each array
    of location ({name: NumPy array}); returns {name: gradient}."""
    for k, v in location.items():
        executor.arg_dict[k][:] = v
    approx_grads = {k: _np.zeros(v.shape, dtype=dtype) for k, v in location.items()}
    for k, v in location.items():
        old_value = v.copy()
        for i in range(int(_np.prod(v.shape))):
            v.ravel()[i] = old_value.ravel()[i] + eps / 2.0
            executor.arg_dict[k][:] = v
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = val
            executor.forward(is_train=use_forward_train)
            f_peps = sum(x.asnumpy().astype(_np.float64).sum() for x in executor.outputs)
            v.ravel()[i] = old_value.ravel()[i] - eps / 2.0
            executor.arg_dict[k][:] = v
            if aux_states is not None:
                for key, val in aux_states.items():
                    executor.aux_dict[key][:] = val
            executor.forward(is_train=use_forward_train)
            f_neps = sum(x.asnumpy().astype(_np.float64).sum() for x in executor.outputs)
            approx_grads[k].ravel()[i] = (f_peps - f_neps) / eps
            v.ravel()[i] = old_value.ravel()[i]
        executor.arg_dict[k][:] = old_value
    return approx_grads


def check_numeric_gradient(sym, location, aux_states=None, numeric_eps=None, rtol=None, atol=None,
                           grad_nodes=None, use_forward_train=True, ctx=None, grad_stype_dict=None,
                           dtype=default_dtype()):
    """Compares the symbol's backward with central finite differences, for a random projection of
    its outputs (MXNet's check: the outputs are multiplied by random weights and summed)."""
    from . import symbol as _sym
    from .ndarray import array
    ctx = ctx or default_context()
    numeric_eps = numeric_eps if numeric_eps is not None else default_numeric_eps()[_np.dtype(dtype)]
    location = _parse_location(sym, location, ctx, dtype)
    location_npy = {k: v.asnumpy() for k, v in location.items()}
    aux_states = _parse_aux_states(sym, aux_states, ctx, dtype)
    aux_states_npy = {k: v.asnumpy() for k, v in aux_states.items()} if aux_states is not None else None
    if grad_nodes is None:
        grad_nodes = sym.list_arguments()
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, (list, tuple)):
        grad_nodes = list(grad_nodes)
        grad_req = {k: "write" for k in grad_nodes}
    elif isinstance(grad_nodes, dict):
        grad_req = dict(grad_nodes)
        grad_nodes = list(grad_nodes)
    else:
        raise ValueError("grad_nodes must be a list, a tuple or a dict")

    input_shape = {k: v.shape for k, v in location.items()}
    _, out_shape, _ = sym.infer_shape(**input_shape)
    proj = _sym.Variable("__random_proj")
    out = sym * proj
    out = _sym.make_loss(out)
    location = dict(list(location.items()) +
                    [("__random_proj", array(_np.random.normal(0, 0.01, size=out_shape[0]), ctx=ctx, dtype=dtype))])
    args_grad_npy = dict([(k, _np.random.normal(0, 0.01, size=location[k].shape)) for k in grad_nodes] +
                         [("__random_proj", _np.random.normal(0, 0.01, size=out_shape[0]))])
    args_grad = {k: array(v, ctx=ctx, dtype=dtype) for k, v in args_grad_npy.items()}
    grad_req["__random_proj"] = "write"
    executor = out.bind(ctx, args=location, args_grad=args_grad, grad_req=grad_req, aux_states=aux_states)
    inps = executor.arg_arrays
    if len(inps) != len(location):
        raise ValueError("Executor arg_arrays and and location len do not match. Got %d inputs and %d locations"
                         % (len(inps), len(location)))
    executor.forward(is_train=True)
    executor.backward()
    symbolic_grads = {k: executor.grad_dict[k].asnumpy() for k in grad_nodes}
    numeric_gradients = numeric_grad(executor, location_npy, aux_states_npy, eps=numeric_eps,
                                     use_forward_train=use_forward_train, dtype=dtype)
    for name in grad_nodes:
        fd_grad = numeric_gradients[name]
        orig_grad = args_grad_npy[name]
        sym_grad = symbolic_grads[name]
        if grad_req[name] == "write":
            assert_almost_equal(fd_grad, sym_grad, rtol, atol, ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "add":
            assert_almost_equal(fd_grad, sym_grad - orig_grad, rtol, atol,
                                ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        elif grad_req[name] == "null":
            assert_almost_equal(orig_grad, sym_grad, rtol, atol, ("NUMERICAL_%s" % name, "BACKWARD_%s" % name))
        else:
            raise ValueError("Invalid grad_req %s for argument %s" % (grad_req[name], name))


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, tol=None,
                      raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False, rand_type=_np.float64):
    """Runs sym forward and backward on every context of ctx_list (each a dict with 'ctx', the input
    shapes and optionally 'type_dict') from the same random inputs, and compares the outputs and
    gradients with those of the most precise one. Returns the NumPy outputs and gradients of each."""
    from .ndarray import array
    if tol is None:
        tol = {_np.dtype(_np.float16): 1e-1, _np.dtype(_np.float32): 1e-3, _np.dtype(_np.float64): 1e-5,
               _np.dtype(_np.uint8): 0, _np.dtype(_np.int32): 0, _np.dtype(_np.int64): 0}
    elif isinstance(tol, numbers.Number):
        tol = {_np.dtype(t): tol for t in (_np.float16, _np.float32, _np.float64, _np.uint8, _np.int32, _np.int64)}
    assert len(ctx_list) > 1
    syms = sym if isinstance(sym, list) else [sym] * len(ctx_list)
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exe_list = []
    for s, ctx in zip(syms, ctx_list):
        spec = dict(ctx)
        context = spec.pop("ctx")
        type_dict = spec.pop("type_dict", {})
        exe_list.append(s.simple_bind(context, grad_req=grad_req, type_dict=type_dict, **spec))
    arg_params = {} if arg_params is None else dict(arg_params)
    aux_params = {} if aux_params is None else dict(aux_params)
    for n, arr in exe_list[0].arg_dict.items():
        if n not in arg_params:
            if use_uniform:
                arg_params[n] = _np.random.uniform(low=-0.92 * scale, high=0.92 * scale, size=arr.shape).astype(rand_type)
            else:
                arg_params[n] = _np.random.normal(size=arr.shape, scale=scale).astype(rand_type)
    for n in exe_list[0].aux_dict:
        if n not in aux_params:
            aux_params[n] = 0
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
    dtypes = [_np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    max_idx = _np.argmax([d.itemsize if d.kind == "f" else 0 for d in dtypes])
    gt = ground_truth
    for exe in exe_list:
        exe.forward(is_train=False)
    if gt is None:
        gt = {n: o.asnumpy() for n, o in zip(output_names, exe_list[max_idx].outputs)}
    for i, exe in enumerate(exe_list):
        if i == max_idx:
            continue
        rtol = atol = tol[dtypes[i]]
        for name, arr in zip(output_names, exe.outputs):
            gtarr = gt[name].astype(dtypes[i])
            try:
                assert_almost_equal(arr.asnumpy(), gtarr, rtol=rtol, atol=atol, equal_nan=equal_nan)
            except AssertionError as e:
                print("Predict Err: ctx %d vs ctx %d at %s" % (i, max_idx, name))
                if raise_on_err:
                    raise e
    if grad_req != "null":
        for exe in exe_list:
            exe.forward(is_train=True)
            exe.backward([array(o.asnumpy(), ctx=o.context, dtype=o.dtype) for o in exe.outputs])
        if ground_truth is None:
            gt = {n: o.asnumpy() for n, o in zip(output_names, exe_list[max_idx].outputs)}
            gt.update({n: g.asnumpy() for n, g in exe_list[max_idx].grad_dict.items() if g is not None})
        for i, exe in enumerate(exe_list):
            if i == max_idx:
                continue
            rtol = atol = tol[dtypes[i]]
            curr = list(zip(output_names, exe.outputs)) + [(n, g) for n, g in exe.grad_dict.items() if g is not None]
            for name, arr in curr:
                if name not in gt or gt[name] is None:
                    continue
                try:
                    assert_almost_equal(arr.asnumpy(), gt[name].astype(dtypes[i]), rtol=rtol, atol=atol,
                                        equal_nan=equal_nan)
                except AssertionError as e:
                    print("Train Err: ctx %d vs ctx %d at %s" % (i, max_idx, name))
                    if raise_on_err:
                        raise e
    return gt


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4, atol=1e-4):
    """Runs the network built by net_builder imperatively and hybridized and compares outputs (and
    the gradients of the inputs); with numpy_func, also against it."""
    from . import autograd
    saved_out_np = None
    saved_grad_np_l = None
    params_init = None
    use_autograd_flags = [False, True] if test_grad else [False]
    for hybridize in [False, True]:
        for use_autograd in use_autograd_flags:
            net = net_builder()
            if params_init is None:
                net.initialize()
            else:
                net.load_dict(params_init)
            if hybridize:
                net.hybridize()
            in_data_l = [ele.copy() for ele in data_l]
            if use_autograd:
                for ele in in_data_l:
                    ele.attach_grad()
                with autograd.record():
                    out = net(*in_data_l)
                out.backward(out.ones_like())
            else:
                out = net(*in_data_l)
            if params_init is None:
                params_init = {k: v.data() for k, v in net.collect_params().items()}
            out_np = out.asnumpy()
            if saved_out_np is None:
                saved_out_np = out_np
            else:
                assert_almost_equal(out_np, saved_out_np, rtol=rtol, atol=atol)
            if use_autograd:
                grad_np_l = [ele.grad.asnumpy() for ele in in_data_l]
                if saved_grad_np_l is None:
                    saved_grad_np_l = grad_np_l
                else:
                    for data, saved_data in zip(grad_np_l, saved_grad_np_l):
                        assert_almost_equal(data, saved_data, rtol=rtol, atol=atol)
    if numpy_func is not None:
        numpy_out = numpy_func(*[ele.asnumpy() for ele in data_l])
        assert_almost_equal(saved_out_np, numpy_out, rtol=rtol, atol=atol)


# ---------------------------------------------------------------- distributions of random generators

def gen_buckets_probs_with_ppf(ppf, nbuckets):
    """nbuckets equal-probability buckets [(low, high)] of a continuous distribution given by its
    inverse CDF, and their probabilities."""
    probs = [1.0 / nbuckets for _ in range(nbuckets)]
    buckets = [(ppf(i / float(nbuckets)), ppf((i + 1) / float(nbuckets))) for i in range(nbuckets)]
    return buckets, probs


def mean_check(generator, mu, sigma, nsamples=1000000):
    """True when the sample mean of nsamples draws is within 3 standard errors of mu."""
    samples = _np.array(generator(nsamples))
    sample_mean = samples.mean()
    return (sample_mean > mu - 3 * sigma / _np.sqrt(nsamples)) and (sample_mean < mu + 3 * sigma / _np.sqrt(nsamples))


def var_check(generator, sigma, nsamples=1000000):
    """True when the sample variance of nsamples draws is within 3 standard errors of sigma**2."""
    samples = _np.array(generator(nsamples))
    sample_var = samples.var(ddof=1)
    return (sample_var > sigma ** 2 - 3 * _np.sqrt(2 * sigma ** 4 / (nsamples - 1))) and \
           (sample_var < sigma ** 2 + 3 * _np.sqrt(2 * sigma ** 4 / (nsamples - 1)))


def chi_square_check(generator, buckets, probs, nsamples=1000000):
    """Pearson's chi-square test of nsamples draws against the buckets' probabilities (buckets are
    (low, high) ranges, or discrete values). Returns the p-value, the observed and expected counts."""
    from scipy import stats as ss
    if not isinstance(buckets, list):
        raise AssertionError("buckets must be a list")
    continuous_dist = isinstance(buckets[0], (list, tuple))  # (low, high) ranges, as lists or tuples
    if continuous_dist:
        buckets_npy = _np.zeros((len(buckets) * 2,), dtype=_np.float32)
        for i, _ in enumerate(buckets):
            buckets_npy[i * 2] = buckets[i][0]
            buckets_npy[i * 2 + 1] = buckets[i][1]
    else:
        buckets_npy = _np.array(buckets, dtype=_np.float32)
    expected_freq = (nsamples * _np.array(probs, dtype=_np.float32)).astype(_np.int32)
    samples = generator(nsamples)
    samples = samples.asnumpy() if isinstance(samples, NDArray) else _np.asarray(samples)
    assert samples.shape[0] == nsamples, "generator made %d samples, %d wanted" % (samples.shape[0], nsamples)
    if continuous_dist:
        sample_bucket_ids = _np.searchsorted(buckets_npy, samples, side="right")
    else:
        sample_bucket_ids = _np.array(samples)
    if continuous_dist:
        sample_bucket_ids = sample_bucket_ids // 2
        obs_freq = _np.zeros(shape=len(buckets), dtype=_np.int64)
        for i, _ in enumerate(buckets):
            obs_freq[i] = (sample_bucket_ids == i).sum()
    else:
        obs_freq = _np.zeros(shape=len(buckets), dtype=_np.int64)
        for i, value in enumerate(buckets):
            obs_freq[i] = (sample_bucket_ids == value).sum()
    # SciPy >= 1.9 rejects expected counts whose total differs from the observed one (the int32
    # rounding above, or buckets that do not cover every sample); older SciPy, which MXNet's tests
    # were written against, did not check: compare against the expected counts rescaled.
    f_exp = expected_freq * (obs_freq.sum() / max(expected_freq.sum(), 1))
    _, p = ss.chisquare(f_obs=obs_freq, f_exp=f_exp)
    return p, obs_freq, expected_freq


def verify_generator(generator, buckets, probs, nsamples=1000000, nrepeat=5, success_rate=0.2, alpha=0.05):
    """Runs chi_square_check nrepeat times; raises AssertionError when fewer than success_rate of
    the runs have a p-value above alpha. Returns the p-values."""
    cs_ret_l = []
    obs_freq_l = []
    expected_freq_l = []
    for _ in range(nrepeat):
        cs_ret, obs_freq, expected_freq = chi_square_check(generator=generator, buckets=buckets, probs=probs,
                                                           nsamples=nsamples)
        cs_ret_l.append(cs_ret)
        obs_freq_l.append(obs_freq)
        expected_freq_l.append(expected_freq)
    success_num = (_np.array(cs_ret_l) > alpha).sum()
    if success_num < nrepeat * success_rate:
        raise AssertionError("Generator test fails, Chi-square p=%s, obs_freq=%s, expected_freq=%s."
                             "\nbuckets=%s, probs=%s" % (str(cs_ret_l), str(obs_freq_l), str(expected_freq_l),
                                                          str(buckets), str(probs)))
    return cs_ret_l


# ---------------------------------------------------------------- environment and process helpers

@contextlib.contextmanager
def environment(*args):
    """Sets environment variables for the block and restores them after: environment('NAME', 'v')
    or environment({'A': '1', 'B': None}) (None unsets)."""
    if len(args) == 1 and isinstance(args[0], dict):
        settings = args[0]
    elif len(args) == 2:
        settings = {args[0]: args[1]}
    else:
        raise ValueError("environment() takes a dict, or a name and a value")
    saved = {k: os.environ.get(k) for k in settings}
    try:
        for k, v in settings.items():
            _set_env(k, v)
        yield
    finally:
        for k, v in saved.items():
            _set_env(k, v)


def _set_env(name, value):
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


def set_env_var(key, val, default_val=""):
    """Sets an environment variable and returns its previous value (default_val if unset)."""
    prev_val = os.environ.get(key, default_val)
    os.environ[key] = val
    return prev_val


def retry(n):
    """Decorator: reruns a test up to n times while it raises AssertionError."""
    assert n > 0

    def test_helper(orig_test):
        @functools.wraps(orig_test)
        def test_new(*args, **kwargs):
            for i in range(n):
                try:
                    orig_test(*args, **kwargs)
                    return
                except AssertionError as e:
                    if i == n - 1:
                        raise e
                    _np.random.seed(None)
        return test_new
    return test_helper


@contextlib.contextmanager
def discard_stderr():
    """Sends the process's standard error to /dev/null for the block (C++ messages included)."""
    stderr_fileno = sys.stderr.fileno()
    old_stderr = os.dup(stderr_fileno)
    bit_bucket = open(os.devnull, "w")
    try:
        sys.stderr.flush()
        os.dup2(bit_bucket.fileno(), stderr_fileno)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(old_stderr, stderr_fileno)
        os.close(old_stderr)
        bit_bucket.close()


def download(url, fname=None, dirname=None, overwrite=False, retries=5):
    """Downloads url to fname (or dirname/<last part of url>), unless it is there already; returns
    the file name. Raises after `retries` failed attempts."""
    import urllib.request
    if fname is None:
        fname = url.split("/")[-1]
    if dirname is not None:
        os.makedirs(dirname, exist_ok=True)
        fname = os.path.join(dirname, fname)
    if not overwrite and os.path.exists(fname):
        return fname
    last = None
    for _ in range(max(1, retries)):
        try:
            tmp = fname + ".part"
            with urllib.request.urlopen(url, timeout=30) as response, open(tmp, "wb") as out:
                out.write(response.read())
            os.replace(tmp, fname)
            return fname
        except OSError as e:
            last = e
    raise RuntimeError("download of %s failed: %s" % (url, last))


class DummyIter:
    """A data iterator that returns the first batch of real_iter forever (for speed tests)."""

    def __init__(self, real_iter):
        self.real_iter = real_iter
        self.provide_data = real_iter.provide_data
        self.provide_label = real_iter.provide_label
        self.batch_size = real_iter.batch_size
        self.the_batch = next(iter(real_iter))

    def __iter__(self):
        return self

    def next(self):
        return self.the_batch

    __next__ = next


def use_np(func):
    """MXNet's switch to its NumPy-compatible interface (mx.np), which Braid does not have: the
    function is returned unchanged."""
    return func


def is_op_runnable():
    return True
