"""mxnet.numpy's functions over arrays (ufuncs, reductions, shape functions), run by the core's
registered operators; they give mx.np.ndarray. A Python scalar or NumPy array argument is taken
as an array where NumPy would."""
import numpy as onp

from .. import _core
from .._core import NDArray
from ..base import MXNetError
from .multiarray import (as_np, _invoke, _reduce, add, subtract, multiply, true_divide, divide, mod, power,
                         maximum, minimum, equal, not_equal, greater, greater_equal, less, less_equal,
                         logical_and, logical_or, logical_xor)
from ._creation import array
from ._ufunc import ufunc

__all__ = ["add", "subtract", "multiply", "true_divide", "divide", "mod", "remainder", "power", "maximum", "minimum",
           "equal", "not_equal", "greater", "greater_equal", "less", "less_equal", "logical_and", "logical_or",
           "logical_xor", "logical_not", "negative", "reshape", "concatenate", "stack", "transpose", "swapaxes",
           "expand_dims", "squeeze", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin",
           "dot", "matmul", "where", "clip", "tile", "repeat", "flip", "split", "hsplit", "vsplit", "dsplit",
           "broadcast_to", "sort", "argsort",
           "abs", "absolute", "cumsum", "std", "var", "ravel", "atleast_1d", "shape", "size", "ndim"]

remainder = mod


def _arr(x):
    """x as an array; a Gluon Parameter as it is (in a block's forward, an operator given one
    completes its deferred shape from the other inputs, then reads its value)."""
    if isinstance(x, (NDArray, _core.gluon.Parameter)):
        return x
    return array(x, dtype=getattr(x, "dtype", None))


def _zeros_from(a, shape):
    """Zeros of ``shape`` in ``a``'s dtype that autograd and hybridize see come from ``a``
    (operators throughout: an empty result, or what an empty ``a`` makes). Computed as
    sum(zeros_like(a)) broadcast, in float, so no value of ``a`` (NaN, inf) leaks in."""
    dtype = onp.dtype(a.dtype).name
    work = "float64" if dtype == "float64" else "float32"
    zeros = _invoke("_zeros", [], {"shape": tuple(shape), "dtype": work, "ctx": str(a.ctx)})
    source = a if dtype == work else a.astype(work)
    total = _invoke("sum", [_invoke("zeros_like", [source])], {}).reshape((1,) * len(shape))
    out = _invoke("broadcast_mul", [total, zeros])
    return out if dtype == work else out.astype(dtype)


def _ndim(x):
    return len(x.shape)


# Elementwise functions of one array, by the operator that computes them.
_UNARY = {"exp": "exp", "expm1": "expm1", "log": "log", "log2": "log2", "log10": "log10", "log1p": "log1p",
          "sqrt": "sqrt", "cbrt": "cbrt", "square": "square", "reciprocal": "reciprocal", "sin": "sin",
          "cos": "cos", "tan": "tan", "arcsin": "arcsin", "arccos": "arccos", "arctan": "arctan", "sinh": "sinh",
          "cosh": "cosh", "tanh": "tanh", "arcsinh": "arcsinh", "arccosh": "arccosh", "arctanh": "arctanh",
          "degrees": "degrees", "radians": "radians", "sign": "sign", "floor": "floor", "ceil": "ceil",
          "trunc": "trunc", "rint": "rint", "fix": "fix", "abs": "abs", "absolute": "abs", "negative": "negative"}


def _unary(name, op):
    def fn(x):
        if not isinstance(x, NDArray):
            return getattr(onp, name)(x)
        return _invoke(op, [x])
    fn.__name__ = name
    return ufunc(fn)


for _name, _op in _UNARY.items():
    if _core.operator_exists(_op):
        globals()[_name] = _unary(_name, _op)
        if _name not in __all__:
            __all__.append(_name)


@ufunc
def logical_not(x):
    return as_np(_core.invoke("logical_not", [_arr(x)], {}).astype("bool"))


def reshape(a, newshape, order="C"):
    """``a`` with a new shape of the same size (-1 takes the rest)."""
    return _arr(a).reshape(newshape, order=order)


def ravel(a, order="C"):
    return _arr(a).reshape(-1, order=order)


def concatenate(seq, axis=0, out=None):
    seq = [_arr(a) for a in seq]
    if axis is None:
        seq, axis = [a.reshape(-1) for a in seq], 0
    return _invoke("concat", seq, {"dim": axis})


def stack(arrays, axis=0, out=None):
    return _invoke("stack", [_arr(a) for a in arrays], {"axis": axis})


def transpose(a, axes=None):
    return _arr(a).transpose(axes)


def swapaxes(a, axis1, axis2):
    return _invoke("swapaxes", [_arr(a)], {"dim1": axis1, "dim2": axis2})


def expand_dims(a, axis):
    return _invoke("expand_dims", [_arr(a)], {"axis": axis})


def squeeze(x, axis=None):
    return _arr(x).squeeze(axis)


def sum(a, axis=None, dtype=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    return _arr(a).sum(axis=axis, dtype=dtype, keepdims=keepdims)


def mean(a, axis=None, dtype=None, out=None, keepdims=False):
    return _arr(a).mean(axis=axis, dtype=dtype, keepdims=keepdims)


def prod(a, axis=None, dtype=None, out=None, keepdims=False):
    return _arr(a).prod(axis=axis, dtype=dtype, keepdims=keepdims)


def max(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    return _arr(a).max(axis=axis, keepdims=keepdims)


def min(a, axis=None, out=None, keepdims=False):  # pylint: disable=redefined-builtin
    return _arr(a).min(axis=axis, keepdims=keepdims)


amax, amin = max, min


def argmax(a, axis=None, out=None):
    return _arr(a).argmax(axis)


def argmin(a, axis=None, out=None):
    return _arr(a).argmin(axis)


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    a = _arr(a) if dtype is None else _arr(a).astype(dtype)
    centered = a - a.mean(axis=axis, keepdims=True)
    count = a.size if axis is None else int(onp.prod([a.shape[i] for i in ((axis,) if isinstance(axis, int) else axis)]))
    return _reduce("sum", centered * centered, axis, keepdims) / (count - ddof)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
    return _invoke("sqrt", [var(a, axis, dtype, out, ddof, keepdims)])


def cumsum(a, axis=None, dtype=None, out=None):
    a = _arr(a)
    if dtype is not None:
        a = a.astype(dtype)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if not _core.operator_exists("_np_cumsum"):  # a product with an upper triangle of ones
        n = a.shape[axis]
        if a.size == 0:
            return _zeros_from(a, a.shape)
        # tri[i, j] = i <= j in a's dtype, from operators that take the dtype from their input (no
        # cast: a hybridized graph then serves inputs of every dtype, as MXNet's cumsum does)
        moved = swapaxes(a, axis, -1)
        index = _invoke("_contrib_arange_like", [moved.reshape(-1, n)], {"axis": 1})
        tri = _invoke("broadcast_lesser_equal", [index.reshape(n, 1), index.reshape(1, n)])
        return swapaxes(_invoke("dot", [moved, tri]), axis, -1)
    return _invoke("_np_cumsum", [a], {"axis": axis})


def dot(a, b, out=None):
    a, b = _arr(a), _arr(b)
    if _ndim(a) == 0 or _ndim(b) == 0:
        return multiply(a, b)
    return _invoke("dot", [a, b])


def matmul(a, b, out=None):
    """NumPy's matmul: stacks of matrices with broadcast batches; a 1-d operand is a row (a) or
    a column (b) whose axis leaves the result."""
    from .linalg import _matmul
    a, b = _arr(a), _arr(b)
    if _ndim(a) == 0 or _ndim(b) == 0:
        raise MXNetError("matmul: Input operand does not have enough dimensions (shapes %s and %s)"
                         % (a.shape, b.shape))
    if a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
        raise MXNetError("matmul: shapes %s and %s do not match in the contracted axis" % (a.shape, b.shape))
    if _ndim(a) == 2 and _ndim(b) == 2:
        return _invoke("dot", [a, b])
    try:
        onp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    except ValueError as e:
        raise MXNetError("matmul: the batch axes of %s and %s do not broadcast (%s)" % (a.shape, b.shape, e)) from e
    result = _matmul(a.reshape(1, -1) if a.ndim == 1 else a, b.reshape(-1, 1) if b.ndim == 1 else b)
    shape = result.shape[:-2] + (() if a.ndim == 1 else result.shape[-2:-1]) + (() if b.ndim == 1 else result.shape[-1:])
    return result if result.shape == shape else result.reshape(shape)


def where(condition, x=None, y=None):
    condition = _arr(condition)
    if x is None and y is None:
        return tuple(array(i, dtype="int64", ctx=condition.ctx) for i in onp.nonzero(condition.asnumpy()))
    x = x if isinstance(x, NDArray) else array(x, dtype=y.dtype if isinstance(y, NDArray) else None)
    y = y if isinstance(y, NDArray) else array(y, dtype=x.dtype)
    shape = onp.broadcast_shapes(condition.shape, x.shape, y.shape)
    parts = [_invoke("broadcast_to", [v], {"shape": shape}) if v.shape != shape else v for v in (condition, x, y)]
    return _invoke("where", [parts[0].astype(x.dtype)] + parts[1:])


def clip(a, a_min, a_max, out=None):
    return _arr(a).clip(a_min, a_max)


def tile(A, reps):  # pylint: disable=invalid-name
    A = _arr(A)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    full = (1,) * (len(reps) - A.ndim) + A.shape
    reps = (1,) * (len(full) - len(reps)) + reps
    shape = tuple(n * r for n, r in zip(full, reps))
    if 0 in shape:
        return _zeros_from(A, shape)
    return _invoke("tile", [A], {"reps": reps})


def repeat(a, repeats, axis=None):
    a = _arr(a)
    if isinstance(repeats, int) and repeats == 0 or a.size == 0:
        if axis is None:
            return _zeros_from(a, (a.size * repeats if isinstance(repeats, int) else 0,))
        shape = list(a.shape)
        shape[axis] = shape[axis] * repeats if isinstance(repeats, int) else 0
        return _zeros_from(a, shape)
    return _invoke("repeat", [a], {"repeats": repeats} if axis is None else {"repeats": repeats, "axis": axis})


def flip(m, axis=None, out=None):
    m = _arr(m)
    return _invoke("flip", [m], {"axis": tuple(range(m.ndim)) if axis is None else axis})


def split(ary, indices_or_sections, axis=0):
    """The parts of ``ary`` along ``axis``: ``n`` equal ones, or those between the given indices
    (empty parts included, as NumPy)."""
    from ._joining import split_at
    ary = _arr(ary)
    if isinstance(indices_or_sections, int):
        n = ary.shape[axis]
        if indices_or_sections <= 0 or n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        size = n // indices_or_sections
        indices_or_sections = [size * k for k in range(1, indices_or_sections)]
    return split_at(ary, list(indices_or_sections), axis)


def hsplit(ary, indices_or_sections):
    """split along the columns (axis 1; axis 0 for a 1-D array), as NumPy."""
    ary = _arr(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, axis=1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    """split along the rows (axis 0) of an array of 2 or more dimensions, as NumPy."""
    ary = _arr(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, axis=0)


def dsplit(ary, indices_or_sections):
    """split along the depth (axis 2) of an array of 3 or more dimensions, as NumPy."""
    ary = _arr(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, axis=2)


def broadcast_to(array, shape):  # pylint: disable=redefined-outer-name
    """``array`` broadcast to ``shape`` (NumPy's rules: a 0 in ``shape`` is an empty axis)."""
    array, shape = _arr(array), (shape,) if isinstance(shape, int) else tuple(shape)
    if any(d == -1 for d in shape):  # MXNet: -1 keeps the input's extent there
        lead = len(shape) - array.ndim
        shape = tuple(array.shape[i - lead] if d == -1 and i >= lead else d for i, d in enumerate(shape))
    if onp.broadcast_shapes(array.shape, shape) != shape:
        raise ValueError("operands could not be broadcast together with remapped shapes [original->remapped]: "
                         "%s and requested shape %s" % (array.shape, shape))
    if array.shape == shape:
        return array
    if 0 in shape:
        return _zeros_from(array, shape)
    return _invoke("broadcast_to", [array], {"shape": shape})


def sort(a, axis=-1, kind=None, order=None):
    a = _arr(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.size == 0:
        return _zeros_from(a, a.shape)
    return _invoke("sort", [a], {"axis": axis})


def argsort(a, axis=-1, kind=None, order=None):
    a = _arr(a)
    if axis is None:
        a, axis = a.reshape(-1), 0
    if a.size == 0:
        return _zeros_from(a, a.shape).astype("int64")
    return as_np(_core.invoke("argsort", [a], {"axis": axis, "dtype": "int64"}))


def atleast_1d(*arys):
    res = [a.reshape(1) if a.ndim == 0 else a for a in map(_arr, arys)]
    return res[0] if len(res) == 1 else res


def shape(a):
    return _arr(a).shape


def size(a, axis=None):
    a = _arr(a)
    return a.size if axis is None else a.shape[axis]


def ndim(a):
    return _arr(a).ndim
