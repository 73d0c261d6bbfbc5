"""Symbol's operators (``a + b``, ``a ** 2``, ``a == b``...) and fluent methods (``a.sum(axis=1)``),
and the functions of mx.sym that pick an operator by their arguments (maximum, pow, zeros...).
Nodes are named as MXNet names them (``_plus0``, ``_mulscalar1``)."""
import numbers

from .symbol import Symbol, _create
from .. import _signatures

__all__ = ["zeros", "ones", "full", "eye", "arange", "linspace", "maximum", "minimum", "pow", "power", "hypot", "histogram"]


# MXNet's operator names the registry knows under another spelling only; nodes keep MXNet's
# name as the hint for their automatic names (_maximumscalar0).
_REGISTERED_AS = {"_MaximumScalar": "_maximum_scalar", "_MinimumScalar": "_minimum_scalar", "_Hypot": "_hypot",
                  "_HypotScalar": "_hypot_scalar", "_RPowerScalar": "_rpower_scalar"}


def _node(op, inputs, attrs):
    return _create(_REGISTERED_AS.get(op, op), inputs, attrs, hint=op.lower())


def _binary(lhs, rhs, op, scalar_op, rscalar_op=None):
    """``lhs op rhs`` for Symbols or a Symbol and a number (rscalar_op: number op Symbol)."""
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return _node(op, [lhs, rhs], {})
    if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
        return _node(scalar_op, [lhs], {"scalar": rhs})
    if isinstance(rhs, Symbol) and isinstance(lhs, numbers.Number):
        return _node(rscalar_op or scalar_op, [rhs], {"scalar": lhs})
    raise TypeError("type %s and %s not supported" % (type(lhs).__name__, type(rhs).__name__))


# method name -> (Symbol-Symbol op, Symbol-scalar op, scalar-Symbol op for the reflected method)
_OPERATORS = {
    "add": ("_Plus", "_PlusScalar", "_PlusScalar"),
    "sub": ("_Minus", "_MinusScalar", "_RMinusScalar"),
    "mul": ("_Mul", "_MulScalar", "_MulScalar"),
    "truediv": ("_Div", "_DivScalar", "_RDivScalar"),
    "div": ("_Div", "_DivScalar", "_RDivScalar"),
    "mod": ("_Mod", "_ModScalar", "_RModScalar"),
    "pow": ("_Power", "_PowerScalar", "_RPowerScalar"),
}
_COMPARISONS = {
    "eq": ("_equal", "_equal_scalar"), "ne": ("_not_equal", "_not_equal_scalar"),
    "gt": ("_greater", "_greater_scalar"), "ge": ("_greater_equal", "_greater_equal_scalar"),
    "lt": ("_lesser", "_lesser_scalar"), "le": ("_lesser_equal", "_lesser_equal_scalar"),
}


def _operator_methods():
    methods = {}
    for name, (op, scalar_op, rscalar_op) in _OPERATORS.items():
        methods["__%s__" % name] = (lambda op, sop: lambda self, other: _binary(self, other, op, sop))(op, scalar_op)
        methods["__r%s__" % name] = (lambda op, rop: lambda self, other: _binary(other, self, op, rop))(op, rscalar_op)
    for name, (op, scalar_op) in _COMPARISONS.items():
        # `2 < x` reaches x.__gt__(2): Python reflects comparisons itself.
        def compare(self, other, op=op, scalar_op=scalar_op):
            if isinstance(other, Symbol):
                return _node(op, [self, other], {})
            if isinstance(other, numbers.Number):
                return _node(scalar_op, [self], {"scalar": other})
            return NotImplemented
        methods["__%s__" % name] = compare
    methods["__neg__"] = lambda self: self * -1.0
    methods["__abs__"] = lambda self: self.abs()
    methods["__hash__"] = object.__hash__
    return methods


# Operators a Symbol offers as methods, the symbol being the first input (MXNet's fluent API).
_FLUENT = (
    "reshape", "reshape_like", "zeros_like", "ones_like", "broadcast_axes", "repeat", "pad", "swapaxes",
    "split", "split_v2", "slice", "slice_axis", "slice_like", "take", "one_hot", "pick", "sort", "topk",
    "argsort", "argmax", "argmax_channel", "argmin", "clip", "abs", "sign", "flatten", "shape_array",
    "size_array", "expand_dims", "broadcast_to", "broadcast_like", "tile", "transpose", "flip",
    "depth_to_space", "space_to_depth", "diag", "sum", "nansum", "prod", "nanprod", "mean", "max", "min",
    "norm", "round", "rint", "fix", "floor", "ceil", "trunc", "sin", "cos", "tan", "arcsin", "arccos",
    "arctan", "degrees", "radians", "sinh", "cosh", "tanh", "arcsinh", "arccosh", "arctanh", "exp",
    "expm1", "log", "log10", "log2", "log1p", "sqrt", "rsqrt", "cbrt", "rcbrt", "square", "reciprocal",
    "relu", "sigmoid", "softmax", "log_softmax", "softmin", "squeeze",
)


def _fluent_method(name):
    def method(self, *args, **kwargs):
        from .. import symbol
        return getattr(symbol, name)(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = "Fluent form of mx.sym.%s with this symbol as the first input." % name
    return method


for _name, _method in _operator_methods().items():
    setattr(Symbol, _name, _method)
for _name in _FLUENT:
    setattr(Symbol, _name, _fluent_method(_name))


def _pick(lhs, rhs, op, scalar_op, what):
    if isinstance(lhs, Symbol) and isinstance(rhs, Symbol):
        return _node(op, [lhs, rhs], {})
    if isinstance(lhs, Symbol) and isinstance(rhs, numbers.Number):
        return _node(scalar_op, [lhs], {"scalar": rhs})
    if isinstance(rhs, Symbol) and isinstance(lhs, numbers.Number):
        return _node(scalar_op, [rhs], {"scalar": lhs})
    if isinstance(lhs, numbers.Number) and isinstance(rhs, numbers.Number):
        return what(lhs, rhs)
    raise TypeError("types (%s, %s) not supported" % (type(lhs).__name__, type(rhs).__name__))


def maximum(left, right):
    """Element-wise maximum of Symbols or a Symbol and a number."""
    return _pick(left, right, "_Maximum", "_MaximumScalar", max)


def minimum(left, right):
    """Element-wise minimum of Symbols or a Symbol and a number."""
    return _pick(left, right, "_Minimum", "_MinimumScalar", min)


def hypot(left, right):
    """sqrt(left**2 + right**2), element-wise."""
    return _pick(left, right, "_Hypot", "_HypotScalar", lambda a, b: (a * a + b * b) ** 0.5)


def pow(base, exp):
    """base ** exp for Symbols and numbers."""
    if isinstance(base, numbers.Number) and isinstance(exp, numbers.Number):
        return base ** exp
    return _binary(base, exp, "_Power", "_PowerScalar", "_RPowerScalar")


power = pow


def _creation(op, shape, dtype, kwargs):
    import numpy as np
    return _create(op, [], dict(kwargs, shape=shape, dtype=np.float32 if dtype is None else dtype))


def zeros(shape, dtype=None, **kwargs):
    """A symbol of zeros of ``shape``."""
    return _creation("_zeros", shape, dtype, kwargs)


def ones(shape, dtype=None, **kwargs):
    """A symbol of ones of ``shape``."""
    return _creation("_ones", shape, dtype, kwargs)


def full(shape, val, dtype=None, **kwargs):
    """A symbol of ``shape`` filled with ``val``."""
    return _creation("_full", shape, dtype, dict(kwargs, value=val))


def eye(N, M=0, k=0, dtype=None, **kwargs):
    """An N x M symbol (M=0: N x N) with ones on diagonal ``k``."""
    import numpy as np
    return _create("_eye", [], dict(kwargs, N=N, M=M, k=k, dtype=np.float32 if dtype is None else dtype))


def arange(start, stop=None, step=1.0, repeat=1, infer_range=False, name=None, dtype=None):
    """Evenly spaced values in [start, stop)."""
    import numpy as np
    return _create("_arange", [], {"start": start, "stop": stop, "step": step, "repeat": repeat,
                                   "infer_range": infer_range, "name": name,
                                   "dtype": np.float32 if dtype is None else dtype})


def linspace(start, stop, num, endpoint=True, name=None, dtype=None):
    """num evenly spaced values from start to stop (included when endpoint)."""
    return _create("_linspace", [], {"start": start, "stop": stop, "num": num, "endpoint": endpoint, "name": name,
                                     "dtype": "float32" if dtype is None else dtype})


def histogram(a, bins=10, range=None, **kwargs):  # pylint: disable=redefined-builtin
    """numpy.histogram as a symbol: counts in ``bins`` equal bins over ``range`` (required here), or
    between the edges of the symbol ``bins``; outputs the counts (int64) and the edges."""
    if isinstance(bins, Symbol):
        return _create("_histogram", [a, bins], kwargs)
    if range is None:
        raise ValueError("histogram: give range=(low, high) with an integer bins (a symbol's values are unknown "
                         "when the graph is built)")
    return _create("_histogram", [a], dict(kwargs, bin_cnt=int(bins), range=tuple(range)))


def split_v2(ary, indices_or_sections, axis=0, squeeze_axis=False, name=None):
    """Splits ``ary`` along ``axis`` into equal sections (an int) or at the given indices (a tuple)."""
    attrs = _signatures.split_v2_attributes(indices_or_sections, axis, squeeze_axis)
    if name is not None:
        attrs["name"] = name
    return _create("_split_v2", [ary], attrs)
