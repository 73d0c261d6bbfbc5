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
    """A random NDArray: standard-normal values when dense, else rand_sparse_ndarray's array."""
    ctx = ctx or default_context()
    if stype == "default":
        return array(random_arrays(shape), dtype=dtype or default_dtype(), ctx=ctx)
    return rand_sparse_ndarray(shape, stype, density=density, dtype=dtype, distribution=distribution,
                               modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices, ctx=ctx)[0]


def assign_each(the_input, function):
    """`function` applied to every element of a NumPy array (a copy when function is None)."""
    if function is None:
        return _np.array(the_input)
    return _np.vectorize(function, otypes=[_np.float64])(the_input) if the_input.size else _np.zeros(the_input.shape)


def assign_each2(input1, input2, function):
    """`function` applied to the elements of two NumPy arrays of one shape, pairwise."""
    if function is None:
        return _np.array(input1)
    assert input1.shape == input2.shape
    return _np.vectorize(function, otypes=[_np.float64])(input1, input2) if input1.size else _np.zeros(input1.shape)


def shuffle_csr_column_indices(csr):
    """Shuffles the column indices (and values) within each row of a scipy csr matrix, in place."""
    for row in range(csr.shape[0]):
        begin, end = csr.indptr[row], csr.indptr[row + 1]
        order = _np.random.permutation(end - begin) + begin
        csr.indices[begin:end] = csr.indices[order]
        csr.data[begin:end] = csr.data[order]


def _uniform_csr(shape, density, dtype, data_init, shuffle_indices):
    """A csr matrix whose stored positions are chosen uniformly, with uniform [0, 1) values."""
    from scipy import sparse as spsp
    from ..ndarray import sparse
    csr = spsp.rand(shape[0], shape[1], density, dtype=dtype, format="csr")
    if data_init is not None:
        csr.data.fill(data_init)
    if shuffle_indices:
        shuffle_csr_column_indices(csr)
    return sparse.csr_matrix((csr.data, csr.indices, csr.indptr), shape=shape, dtype=dtype)


def _powerlaw_csr(shape, density, dtype):
    """A csr matrix whose rows hold 1, 2, 4, 8... values (the first column of each row first),
    density * rows * cols values in all; values in (1, 3)."""
    rows, cols = shape
    budget = int(rows * cols * density)
    if budget < 2 * rows:
        raise ValueError("the powerlaw distribution needs at least 2 values per row: density %s is too small for "
                         "shape %s" % (density, shape))
    dense = _np.zeros(shape, dtype=dtype)
    dense[:, 0] = 1 + _np.random.uniform(0.001, 2, size=rows)
    budget -= rows
    width = 2
    for row in range(rows):
        if budget <= 0:
            break
        limit = min(width, cols)
        take = cols - 1 if limit == cols and budget > cols else min(limit - 1, budget)  # a full row, or up to 2^i
        dense[row, 1:1 + take] = 1 + _np.random.uniform(0.001, 2, size=take)
        budget -= take
        width *= 2
    if budget > 0:
        raise ValueError("the powerlaw distribution cannot place density %s in shape %s" % (density, shape))
    return array(dense, dtype=dtype).tostype("csr")


def rand_sparse_ndarray(shape, stype, density=None, dtype=None, distribution=None, data_init=None,
                        rsp_indices=None, modifier_func=None, shuffle_csr_indices=False, ctx=None):
    """A random compressed array and its parts as NumPy arrays: for row_sparse ``(arr, (values,
    row_indices))`` with each row stored with probability ``density`` (or the rows
    ``rsp_indices``), values uniform in [0, 1); for csr ``(arr, (indptr, indices, data))`` with
    ``distribution`` "uniform" (each element stored with probability density; needs SciPy) or
    "powerlaw" (row i holds about 2^i values)."""
    from ..ndarray import sparse
    ctx = ctx or default_context()
    density = _np.random.rand() if density is None else density
    dtype = dtype or default_dtype()
    distribution = distribution or "uniform"
    if stype == "row_sparse":
        assert distribution == "uniform", "row_sparse arrays are made with the uniform distribution only"
        if rsp_indices is not None:
            indices = _np.asarray(rsp_indices)
            assert len(indices) <= shape[0]
        else:
            indices = _np.flatnonzero(_np.random.rand(shape[0]) < density)
        if indices.shape[0] == 0:
            return sparse.zeros("row_sparse", shape, ctx=ctx, dtype=dtype), (_np.array([], dtype=dtype), _np.array([]))
        values = _np.random.rand(indices.shape[0], *shape[1:]).astype(dtype)
        if data_init is not None:
            values.fill(data_init)
        if modifier_func is not None:
            values = assign_each(values, modifier_func)
        arr = sparse.row_sparse_array((values, indices), shape=shape, dtype=dtype, ctx=ctx)
        return arr, (values, indices)
    assert stype == "csr", "unknown storage type %r" % (stype,)
    assert len(shape) == 2
    if distribution == "uniform":
        csr = _uniform_csr(shape, density, dtype, data_init, shuffle_csr_indices)
    else:
        assert distribution == "powerlaw", "unknown distribution %r" % (distribution,)
        csr = _powerlaw_csr(shape, density, dtype)
    csr = csr.as_in_context(ctx)
    return csr, (csr.indptr, csr.indices, csr.data)


def create_sparse_array(shape, stype, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                        density=.5, shuffle_csr_indices=False):
    """rand_sparse_ndarray's array, with row_sparse indices sorted."""
    if stype not in ("row_sparse", "csr"):
        raise AssertionError("Unknown storage type: " + stype)
    indices = None if rsp_indices is None else _np.sort(_np.asarray(rsp_indices))
    return rand_sparse_ndarray(shape, stype, density=density, data_init=data_init, rsp_indices=indices, dtype=dtype,
                               modifier_func=modifier_func, shuffle_csr_indices=shuffle_csr_indices)[0]


def create_sparse_array_zd(shape, stype, density, data_init=None, rsp_indices=None, dtype=None, modifier_func=None,
                           shuffle_csr_indices=False):
    """create_sparse_array where row_sparse rows come from rsp_indices only."""
    if stype == "row_sparse":
        density = 0.0
        if rsp_indices is not None:
            assert len(rsp_indices) <= shape[0]
    return create_sparse_array(shape, stype, data_init=data_init, rsp_indices=rsp_indices, dtype=dtype,
                               modifier_func=modifier_func, density=density, shuffle_csr_indices=shuffle_csr_indices)


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
