"""mxnet.test_utils: random input arrays and shapes, and the NumPy reductions tests compute
expected values with."""
import numpy as _np

from ..ndarray import array
from ._environment import default_context, default_dtype


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
        from ..base import MXNetError
        raise MXNetError("rand_ndarray(stype=%r): Braid stores arrays densely; use stype='default'" % stype)
    return array(random_arrays(shape), dtype=dtype or default_dtype(), ctx=ctx or default_context())


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    rand_ndarray(shape, stype)  # raises for the sparse storage types


# ---------------------------------------------------------------- NumPy references for expected values

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
