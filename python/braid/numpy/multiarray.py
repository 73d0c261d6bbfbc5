"""mxnet.numpy.ndarray: Braid's array with NumPy's semantics.

An ``ndarray`` is a Python subclass of the core NDArray (so ``isinstance(a, mx.nd.NDArray)`` holds, as
in MXNet); ``as_np(x)`` gives the core array ``x`` as an ndarray sharing its memory and its autograd
history. What differs from the legacy NDArray: ``dtype`` is a numpy.dtype, comparisons give bool
arrays, operands of different dtypes are promoted as NumPy does, reductions over all axes give 0-d
arrays, indexing takes booleans, and the printed form is NumPy's ``array(...)``."""
import numpy as onp

from .. import _core
from ..base import MXNetError
from .._core import NDArray
from . import _indexing
from .utils import dtype_name
from ._ufunc import check_keywords, write_out

__all__ = ["ndarray", "as_np"]

_base_dtype = NDArray.dtype.fget


def as_np(x):
    """``x`` (a core array, or lists and tuples of them) as mx.np.ndarray, sharing memory."""
    if isinstance(x, NDArray):
        return x if type(x) is ndarray else ndarray(x._as_parameter_)
    if isinstance(x, (list, tuple)):
        return type(x)(as_np(v) for v in x)
    return x


def _invoke(op, inputs, attrs=None):
    return as_np(_core.invoke(op, inputs, attrs or {}))


def _is_float(dtype):
    return onp.dtype(dtype).kind == "f"


def _promote_arrays(a, b):
    """a and b in their common dtype: NumPy's, except that an integer or bool array meeting a
    float one takes the float's dtype (MXNet's rule: int32 / float16 is float16)."""
    da, db = _base_dtype(a), _base_dtype(b)
    if da == db:
        return a, b
    if _is_float(da) != _is_float(db):
        common = onp.dtype(da if _is_float(da) else db)
    else:
        common = onp.result_type(da, db)
    return (a if da == common else a.astype(common)), (b if db == common else b.astype(common))


def _scalar_operand(a, scalar):
    """``a`` ready for an operation with a Python scalar: an integer or bool array meeting a
    non-integral float is computed in float32 (MXNet's default float)."""
    if isinstance(scalar, (bool, onp.bool_)):
        return a, float(scalar)
    if not _is_float(_base_dtype(a)) and isinstance(scalar, float) and not isinstance(scalar, onp.integer):
        return a.astype("float32"), float(scalar)
    return a, float(scalar)


def _binary(array_op, scalar_op, rscalar_op=None, out_dtype=None, float_result=False):
    """A NumPy binary function on arrays and scalars; ``out_dtype`` fixes the result's dtype
    (bool for comparisons), ``float_result`` makes integer operands float32 (true division)."""
    rscalar_op = rscalar_op or scalar_op

    def fn(x1, x2, out=None, **kwargs):
        check_keywords(fn.__name__, kwargs)
        return write_out(fn.__name__, compute(x1, x2), out)

    def compute(x1, x2):
        if isinstance(x1, onp.ndarray):
            x1 = array_from_numpy(x1)
        if isinstance(x2, onp.ndarray):
            x2 = array_from_numpy(x2)
        if isinstance(x1, NDArray) and isinstance(x2, NDArray):
            a, b = _promote_arrays(x1, x2)
            if float_result and not _is_float(_base_dtype(a)):
                a, b = a.astype("float32"), b.astype("float32")
            out = _core.invoke(array_op, [a, b], {})
        elif isinstance(x1, NDArray):
            a, s = _scalar_operand(x1, x2)
            if float_result and not _is_float(_base_dtype(a)):
                a = a.astype("float32")
            out = _core.invoke(scalar_op, [a], {"scalar": s})
        elif isinstance(x2, NDArray):
            b, s = _scalar_operand(x2, x1)
            if float_result and not _is_float(_base_dtype(b)):
                b = b.astype("float32")
            out = _core.invoke(rscalar_op, [b], {"scalar": s})
        else:
            return getattr(onp, fn.__name__)(x1, x2)
        if out_dtype is not None and _base_dtype(out) != out_dtype:
            out = out.astype(out_dtype)
        return as_np(out)
    return fn


add = _binary("broadcast_add", "_plus_scalar")
subtract = _binary("broadcast_sub", "_minus_scalar", "_rminus_scalar")
multiply = _binary("broadcast_mul", "_mul_scalar")
true_divide = _binary("broadcast_div", "_div_scalar", "_rdiv_scalar", float_result=True)
divide = true_divide
mod = _binary("broadcast_mod", "_mod_scalar", "_rmod_scalar")
power = _binary("broadcast_power", "_power_scalar", "_rpower_scalar")
maximum = _binary("broadcast_maximum", "_maximum_scalar")
minimum = _binary("broadcast_minimum", "_minimum_scalar")
equal = _binary("broadcast_equal", "_equal_scalar", out_dtype=onp.bool_)
not_equal = _binary("broadcast_not_equal", "_not_equal_scalar", out_dtype=onp.bool_)
greater = _binary("broadcast_greater", "_greater_scalar", "_lesser_scalar", out_dtype=onp.bool_)
greater_equal = _binary("broadcast_greater_equal", "_greater_equal_scalar", "_lesser_equal_scalar",
                        out_dtype=onp.bool_)
less = _binary("broadcast_lesser", "_lesser_scalar", "_greater_scalar", out_dtype=onp.bool_)
less_equal = _binary("broadcast_lesser_equal", "_lesser_equal_scalar", "_greater_equal_scalar", out_dtype=onp.bool_)
logical_and = _binary("broadcast_logical_and", "_logical_and_scalar", out_dtype=onp.bool_)
logical_or = _binary("broadcast_logical_or", "_logical_or_scalar", out_dtype=onp.bool_)
logical_xor = _binary("broadcast_logical_xor", "_logical_xor_scalar", out_dtype=onp.bool_)
for _f, _n in ((add, "add"), (subtract, "subtract"), (multiply, "multiply"), (true_divide, "true_divide"),
               (mod, "mod"), (power, "power"), (maximum, "maximum"), (minimum, "minimum"), (equal, "equal"),
               (not_equal, "not_equal"), (greater, "greater"), (greater_equal, "greater_equal"), (less, "less"),
               (less_equal, "less_equal"), (logical_and, "logical_and"), (logical_or, "logical_or"),
               (logical_xor, "logical_xor")):
    _f.__name__ = _n


def array_from_numpy(obj, dtype=None, ctx=None):
    """A new mx.np.ndarray holding a copy of NumPy array ``obj``."""
    return as_np(_core.array(obj, ctx, dtype_name(dtype, default=obj.dtype.name)))


def _reduce(op, a, axis, keepdims, extra=None):
    if isinstance(axis, (tuple, list)) and not axis:  # NumPy: no axis reduced
        return as_np(_core.invoke("_copy", [a], {}))
    attrs = dict(extra or {}, keepdims=bool(keepdims))
    if _base_dtype(a) == onp.bool_:  # the core reduces no bool arrays; NumPy sums them as int64
        a = a.astype("float32" if op == "mean" else "int64")
    if axis is not None:
        attrs["axis"] = axis
    out = _core.invoke(op, [a], attrs)
    expected = _reduced_shape(a.shape, axis, keepdims)
    if out.shape != expected:  # NumPy: a reduction over every axis is 0-d, where MXNet 1.x gives (1,)
        out = out._reshape(list(expected))
    return as_np(out)


def _reduced_shape(shape, axis, keepdims):
    """The shape NumPy gives reducing ``shape`` over ``axis`` (an int, a tuple, or None: all)."""
    ndim = len(shape)
    if axis is None:
        axes = set(range(ndim))
    else:
        axes = {int(x) % ndim if ndim else 0 for x in (axis if isinstance(axis, (tuple, list)) else (axis,))}
    if keepdims:
        return tuple(1 if i in axes else n for i, n in enumerate(shape))
    return tuple(n for i, n in enumerate(shape) if i not in axes)


def _not_implemented(what):
    raise NotImplementedError("mxnet.numpy.ndarray: %s is not supported (as in MXNet)" % what)


class ndarray(NDArray):  # pylint: disable=invalid-name
    """An array of mxnet.numpy (see the module's description)."""
    __slots__ = ()
    __module__ = "mxnet.numpy"  # MXNet's name in reprs and messages

    # -- attributes ---------------------------------------------------------------------------------
    @property
    def dtype(self):
        return onp.dtype(_base_dtype(self))

    @property
    def T(self):  # pylint: disable=invalid-name
        return self.transpose()

    @property
    def grad(self):
        return as_np(NDArray.grad.fget(self))

    # -- conversions --------------------------------------------------------------------------------
    def as_nd_ndarray(self):
        """The same array as a legacy mx.nd.NDArray (no copy)."""
        return NDArray(self._as_parameter_)

    def as_np_ndarray(self):
        return self

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):  # pylint: disable=unused-argument
        name = dtype_name(dtype)
        if not copy and self.dtype == onp.dtype(name):
            return self
        return as_np(NDArray.astype(self, name, True))

    def copy(self, order="C"):  # pylint: disable=arguments-differ
        if order != "C":
            _not_implemented("copy(order=%r)" % (order,))
        return as_np(NDArray.copy(self))

    def item(self, *args):
        return self.asnumpy().item(*args)

    def tolist(self):
        return self.asnumpy().tolist()

    def __array__(self, dtype=None):
        out = self.asnumpy()
        return out if dtype is None else out.astype(dtype)

    def __float__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return float(self.item())

    def __int__(self):
        if self.size != 1:
            raise TypeError("only size-1 arrays can be converted to Python scalars")
        return int(self.item())

    def __index__(self):
        if self.ndim != 0 or self.dtype.kind not in "iu":
            raise TypeError("only integer scalar arrays can be converted to a scalar index")
        return int(self.item())

    def __bool__(self):
        if self.size == 0:
            return False
        if self.size == 1:
            return bool(self.item())
        raise ValueError("The truth value of an ndarray with multiple elements is ambiguous.")

    def __len__(self):
        if self.ndim == 0:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __iter__(self):
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        return (self[i] for i in range(self.shape[0]))

    def __reduce__(self):
        return _from_state, (self.__getstate__(),)

    def backward(self, out_grad=None, retain_graph=False, train_mode=True):
        if out_grad is None and self.dtype == onp.bool_:
            # the core cannot fill a bool head gradient of ones: given here, made as int8 and cast
            out_grad = _core.invoke("Cast", [_core.ones(self.shape, self.ctx, "int8")], {"dtype": "bool"})
        return NDArray.backward(self, out_grad, retain_graph, train_mode)

    # -- printing (NumPy's, with MXNet's rules for dtype and context) --------------------------------
    def __repr__(self):
        text = repr(self.asnumpy())
        if "dtype=" in text:
            if self.dtype == onp.float32:
                text = text[:text.rindex(",")] + ")"
        elif self.dtype not in (onp.float32, onp.bool_):
            text = text[:-1] + ", dtype=%s)" % self.dtype
        if self.ctx.device_type != "cpu":
            text = text[:-1] + ", ctx=%s)" % self.ctx
        return text

    def __str__(self):
        text = str(self.asnumpy())
        if self.ctx.device_type == "cpu" or self.ndim == 0:
            return text
        return "%s @%s" % (text, self.ctx)

    def __format__(self, fmt):
        if self.ndim == 0:
            return self.item().__format__(fmt)
        if not fmt:
            return str(self)
        raise TypeError("Cannot format mxnet.numpy.ndarray with format_spec")

    # -- indexing -----------------------------------------------------------------------------------
    def __getitem__(self, key):
        return as_np(_indexing.getitem(self, key))

    def __setitem__(self, key, value):
        _indexing.setitem(self, key, value)

    # -- arithmetic ---------------------------------------------------------------------------------
    __add__ = __radd__ = lambda self, other: add(self, other)
    __sub__ = lambda self, other: subtract(self, other)
    __rsub__ = lambda self, other: subtract(other, self)
    __mul__ = __rmul__ = lambda self, other: multiply(self, other)
    __truediv__ = lambda self, other: true_divide(self, other)
    __rtruediv__ = lambda self, other: true_divide(other, self)
    __mod__ = lambda self, other: mod(self, other)
    __rmod__ = lambda self, other: mod(other, self)
    __pow__ = lambda self, other: power(self, other)
    __rpow__ = lambda self, other: power(other, self)
    __eq__ = lambda self, other: equal(self, other)
    __ne__ = lambda self, other: not_equal(self, other)
    __gt__ = lambda self, other: greater(self, other)
    __ge__ = lambda self, other: greater_equal(self, other)
    __lt__ = lambda self, other: less(self, other)
    __le__ = lambda self, other: less_equal(self, other)
    __and__ = lambda self, other: logical_and(self, other)
    __or__ = lambda self, other: logical_or(self, other)
    __xor__ = lambda self, other: logical_xor(self, other)
    __hash__ = NDArray.__hash__

    def __neg__(self):
        return _invoke("negative", [self])

    def __abs__(self):
        return _invoke("abs", [self])

    def __invert__(self):
        if self.dtype != onp.bool_:
            _not_implemented("~ on a %s array" % self.dtype)
        return as_np(_core.invoke("logical_not", [self], {}).astype("bool"))

    def __matmul__(self, other):
        return _invoke("dot", [self, other])

    def _inplace(self, result):
        if result.shape != self.shape:
            raise ValueError("non-broadcastable output operand with shape %s doesn't match the broadcast shape %s"
                             % (self.shape, result.shape))
        NDArray._assign(self, result if result.dtype == self.dtype else result.astype(self.dtype))
        return self

    __iadd__ = lambda self, other: self._inplace(add(self, other))
    __isub__ = lambda self, other: self._inplace(subtract(self, other))
    __imul__ = lambda self, other: self._inplace(multiply(self, other))
    __itruediv__ = lambda self, other: self._inplace(true_divide(self, other))
    __imod__ = lambda self, other: self._inplace(mod(self, other))

    # -- shape --------------------------------------------------------------------------------------
    def reshape(self, *shape, order="C", **kwargs):  # pylint: disable=arguments-differ
        if order != "C":
            _not_implemented("reshape(order=%r)" % (order,))
        if "newshape" in kwargs:
            shape = kwargs.pop("newshape")
        elif len(shape) == 1 and isinstance(shape[0], (list, tuple)):
            shape = shape[0]
        if kwargs:
            raise TypeError("reshape() got unexpected keyword arguments: %s" % ", ".join(kwargs))
        return _invoke("_np_reshape", [self], {"newshape": tuple(int(d) for d in shape)})

    def transpose(self, *axes):
        if len(axes) == 1 and isinstance(axes[0], (list, tuple)):
            axes = axes[0]
        attrs = {"axes": tuple(axes)} if axes and axes[0] is not None else {}
        if attrs and len({a % self.ndim if -self.ndim <= a < self.ndim else a for a in axes}) != len(axes):
            raise ValueError("repeated axis in transpose: %s" % (tuple(axes),))
        return _invoke("transpose", [self], attrs)

    def flatten(self, order="C"):  # pylint: disable=arguments-differ
        return self.reshape(-1, order=order)

    def squeeze(self, axis=None):  # pylint: disable=arguments-differ
        return _invoke("_np_squeeze", [self], {} if axis is None else {"axis": axis})

    # -- reductions ---------------------------------------------------------------------------------
    def sum(self, axis=None, dtype=None, out=None, keepdims=False):  # pylint: disable=arguments-differ
        a = self if dtype is None else self.astype(dtype)
        return _reduce("sum", a, axis, keepdims)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False):  # pylint: disable=arguments-differ
        a = self if dtype is None else self.astype(dtype)
        return _reduce("mean", a, axis, keepdims)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False):  # pylint: disable=arguments-differ
        a = self if dtype is None else self.astype(dtype)
        return _reduce("prod", a, axis, keepdims)

    def max(self, axis=None, out=None, keepdims=False):  # pylint: disable=arguments-differ
        return _reduce("max", self, axis, keepdims)

    def min(self, axis=None, out=None, keepdims=False):  # pylint: disable=arguments-differ
        return _reduce("min", self, axis, keepdims)

    def _arg_extreme(self, op, axis):
        """argmax/argmin: int64 indices; a 0-d array takes axis 0 or -1 (its one element), an
        empty axis is an error (MXNetError, as MXNet), other empty axes give empty results."""
        a = self.reshape(-1) if axis is None else self
        if self.ndim == 0:
            if axis not in (None, 0, -1):
                raise MXNetError("%s: axis %d is out of range for a 0-d array" % (op, axis))
            return _invoke("_zeros", [], {"shape": (), "dtype": "int64", "ctx": str(self.ctx)})
        axis = 0 if axis is None else axis
        if not -a.ndim <= axis < a.ndim or a.shape[axis] == 0:
            raise MXNetError("%s: axis %s is out of range or empty for shape %s" % (op, axis, a.shape))
        if a.size == 0:
            from ._op import _zeros_from
            return _zeros_from(a, tuple(n for i, n in enumerate(a.shape) if i != axis % a.ndim)).astype("int64")
        out = as_np(_core.invoke(op, [a], {"axis": axis}).astype("int64"))
        shape = tuple(n for i, n in enumerate(a.shape) if i != axis % a.ndim)
        return out if out.shape == shape else out.reshape(shape)

    def argmax(self, axis=None, out=None):  # pylint: disable=arguments-differ
        return self._arg_extreme("argmax", axis)

    def argmin(self, axis=None, out=None):  # pylint: disable=arguments-differ
        return self._arg_extreme("argmin", axis)

    def repeat(self, repeats, axis=None):  # pylint: disable=arguments-differ
        from ._op import repeat
        return repeat(self, repeats, axis)

    def tile(self, reps):  # pylint: disable=arguments-differ
        from ._op import tile
        return tile(self, reps)

    def sort(self, axis=-1, kind=None, order=None):  # pylint: disable=arguments-differ
        from ._op import sort
        return sort(self, axis, kind, order)

    def argsort(self, axis=-1, kind=None, order=None):  # pylint: disable=arguments-differ
        from ._op import argsort
        return argsort(self, axis, kind, order)

    def cumsum(self, axis=None, dtype=None, out=None):
        from ._op import cumsum
        return cumsum(self, axis, dtype)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        from ._op import var
        return var(self, axis, dtype, out, ddof, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False):
        from ._op import std
        return std(self, axis, dtype, out, ddof, keepdims)

    def all(self, axis=None, out=None, keepdims=False):
        return _reduce("min", self.astype("bool").astype("int32"), axis, keepdims).astype("bool")

    def any(self, axis=None, out=None, keepdims=False):
        return _reduce("max", self.astype("bool").astype("int32"), axis, keepdims).astype("bool")

    def dot(self, b, out=None):
        return _invoke("dot", [self, b])

    def clip(self, min=None, max=None, out=None):  # pylint: disable=redefined-builtin,arguments-differ
        lo = -onp.inf if min is None else float(min)
        hi = onp.inf if max is None else float(max)
        return _invoke("clip", [self], {"a_min": lo, "a_max": hi})


def _from_state(state):
    return as_np(_core._ndarray_from_state(state))


def _wrapping(method):
    def wrapped(self, *args, **kwargs):
        return as_np(method(self, *args, **kwargs))
    wrapped.__name__ = method.__name__ if hasattr(method, "__name__") else "method"
    return wrapped


# Legacy methods whose result is an array: the same, as mx.np.ndarray.
_WRAPPED = ("copyto", "as_in_context", "as_in_ctx", "detach", "expand_dims", "broadcast_to", "broadcast_like", "tile",
            "repeat", "flip", "swapaxes", "take", "sort", "argsort", "topk", "split", "abs", "sign", "round", "rint",
            "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos", "arctan", "sinh", "cosh",
            "tanh", "arcsinh", "arccosh", "arctanh", "exp", "expm1", "log", "log10", "log2", "log1p", "sqrt",
            "rsqrt", "cbrt", "rcbrt", "square", "reciprocal", "relu", "sigmoid", "softmax", "log_softmax", "softmin",
            "degrees", "radians", "norm", "one_hot", "pick", "slice", "slice_axis", "slice_like", "reshape_like",
            "zeros_like", "ones_like", "pad", "nansum", "nanprod", "shape_array", "size_array", "split_v2",
            "broadcast_axes", "tostype")
for _name in _WRAPPED:
    if hasattr(NDArray, _name) and _name not in vars(ndarray):  # NumPy's own forms (repeat, sort, ...) kept
        setattr(ndarray, _name, _wrapping(getattr(NDArray, _name)))


def _as_np_ndarray(self):
    """The same array as mx.np.ndarray (no copy), as MXNet's NDArray.as_np_ndarray."""
    return as_np(self)


def _as_nd_ndarray(self):
    return self


NDArray.as_np_ndarray = _as_np_ndarray
NDArray.as_nd_ndarray = _as_nd_ndarray
