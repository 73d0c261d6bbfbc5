"""mxnet.operator: operators written in Python (MXNet's custom operators).

    class Sigmoid(mx.operator.CustomOp):
        def forward(self, is_train, req, in_data, out_data, aux):
            self.assign(out_data[0], req[0], 1 / (1 + mx.nd.exp(-in_data[0])))
        def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
            y = out_data[0]
            self.assign(in_grad[0], req[0], out_grad[0] * y * (1 - y))

    @mx.operator.register('sigmoid')
    class SigmoidProp(mx.operator.CustomOpProp):
        def create_operator(self, ctx, in_shapes, in_dtypes):
            return Sigmoid()

    y = mx.nd.Custom(x, op_type='sigmoid')       # under autograd.record(), y.backward() works

The prop says what the operator takes and gives (list_arguments, list_outputs,
list_auxiliary_states, infer_shape, infer_type) and makes the operator; keyword arguments of
``Custom`` other than arrays reach the prop's constructor as strings, as in MXNet. The operator
runs on the thread that runs its node (the arrays it computes are queued on the engine as
usual): imperatively (``mx.nd.Custom``, under autograd too), in symbols (``mx.sym.Custom``, bound
by an Executor or a Module) and in hybridized Gluon blocks. Its node is the registered operator
``Custom``, so a symbol holding one saves to JSON and loads where the same op_type is registered.
"""
import collections
import ctypes

from . import ndarray as _nd
from . import symbol as _sym
from ._core import NDArray
from ._core import profiler as _profiler
from . import _core
from .base import MXNetError, NDArrayHandle
from .context import current_context

# MXNet's module exports what it imports too; code written for it uses these three after
# `from mxnet.operator import *`.
__all__ = ["CustomOp", "CustomOpProp", "PythonOp", "NumpyOp", "NDArrayOp", "register", "get_all_registered_operators",
           "get_operator_arguments", "OperatorArguments", "Custom", "NDArray", "NDArrayHandle", "ctypes"]


class CustomOp:
    """The computation of a custom operator: forward and backward write their results with
    assign(dst, req, src)."""

    def forward(self, is_train, req, in_data, out_data, aux):
        raise NotImplementedError("%s must define forward(is_train, req, in_data, out_data, aux)"
                                  % type(self).__name__)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        raise NotImplementedError("%s must define backward(req, out_grad, in_data, out_data, in_grad, aux)"
                                  % type(self).__name__)

    def assign(self, dst, req, src):
        """dst = src ('write', 'inplace'), dst += src ('add'), or nothing ('null')."""
        if req == "null":
            return
        if req in ("write", "inplace"):
            dst[:] = src
        elif req == "add":
            dst[:] = dst + src
        else:
            raise MXNetError("CustomOp.assign: req must be 'null', 'write', 'inplace' or 'add', got %r" % (req,))


class CustomOpProp:
    """What a custom operator takes and gives; by default one input 'data' and one output
    'output' of the input's shape and dtype."""

    def __init__(self, need_top_grad=True):
        self.need_top_grad_ = need_top_grad

    def infer_shape(self, in_shape):
        """(input shapes, output shapes, aux shapes) from the input shapes."""
        return in_shape, (in_shape[0],) * len(self.list_outputs()), ()

    def infer_type(self, in_type):
        """(input dtypes, output dtypes, aux dtypes) from the input dtypes."""
        t = in_type[0]
        return in_type, [t] * len(self.list_outputs()), [t] * len(self.list_auxiliary_states())

    def infer_storage_type(self, in_stype):
        return in_stype, ["default"] * len(self.list_outputs()), ["default"] * len(self.list_auxiliary_states())

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def list_auxiliary_states(self):
        return []

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad_ else []
        return deps + list(in_data) + list(out_data)

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return CustomOp()


# MXNet's first Python operators, built on the two classes above.
from . import _python_op  # noqa: E402
from ._python_op import PythonOp, NumpyOp, NDArrayOp  # noqa: E402

_registry = {}


def register(reg_name):
    """Class decorator: registers a CustomOpProp subclass under the name Custom's op_type uses."""
    def do_register(prop_cls):
        if not (isinstance(prop_cls, type) and issubclass(prop_cls, CustomOpProp)):
            raise MXNetError("operator.register(%r): %r is not a CustomOpProp subclass" % (reg_name, prop_cls))
        _registry[reg_name] = prop_cls
        return prop_cls
    return do_register


def get_all_registered_operators():
    """The names of every operator (and alias) Braid has, as MXNet's; Python operators registered
    with ``register`` run through ``Custom``."""
    return list(_core.list_operators_and_aliases())


OperatorArguments = collections.namedtuple("OperatorArguments", ["narg", "names", "types"])


def get_operator_arguments(op_name):
    """An operator's arguments as MXNet describes them: ``OperatorArguments(narg, names, types)``,
    its inputs first ("NDArray-or-Symbol"), then its attributes ("int, required",
    "float, optional, default=0.5", "{'avg', 'max'},optional, default='max'", ...)."""
    described = _core.operator_arguments(op_name)
    return OperatorArguments(len(described), [n for n, _ in described], [t for _, t in described])


class _Profiled:
    """While the profiler records: the custom forward or backward as a span named
    '<op_type>::pure_python' in the 'Custom Operator' domain, and the operators it calls as
    '<op_type>::<operator>'."""

    def __init__(self, name, scope):
        self._name, self._scope = name, scope

    def __enter__(self):
        self._previous = _profiler.set_scope(self._scope)
        self._start = _profiler.now_us()

    def __exit__(self, *exc):
        _profiler.set_scope(self._previous)
        _profiler.record_span("Custom Operator", self._name + "::pure_python", "Custom Operator", self._start,
                              _profiler.now_us())


class _Reported:
    """An exception other than MXNetError raised by a custom operator's Python code comes out as
    MXNetError naming the operator (the cause chained), as MXNet reports it."""

    def __init__(self, op_type):
        self._op_type = op_type

    def __enter__(self):
        return self

    def __exit__(self, kind, error, _):
        if kind is None or issubclass(kind, MXNetError) or not issubclass(kind, Exception):
            return False
        raise MXNetError("custom operator %r raised %s: %s" % (self._op_type, kind.__name__, error)) from error


def _registered(op_type):
    if op_type not in _registry:
        raise MXNetError("Custom: no custom operator registered as %r (registered: %s); decorate its "
                         "CustomOpProp with @mx.operator.register(%r)" % (op_type, sorted(_registry), op_type))
    return _registry[op_type]


def _padded(lists, counts):
    """infer_shape / infer_type may leave out the aux states (two lists), as MXNet accepts."""
    lists = list(lists)
    return lists + [[None] * n for n in counts[len(lists):]]


class _CustomNode:
    """One node of the C++ operator "Custom" (braid/op/custom_op.h): the registered CustomOpProp
    made with the node's attributes (strings, as MXNet passes them), and its CustomOp, made by
    create_operator at the node's first forward."""

    def __init__(self, op_type, kwargs):
        self._op_type = op_type
        with _Reported(op_type):
            legacy = op_type in ("_Native", "_NDArray")
            self._prop = _python_op.legacy_prop(op_type, kwargs) if legacy else _registered(op_type)(**kwargs)
        self._op = None

    def list_arguments(self):
        return [str(n) for n in self._prop.list_arguments()]

    def list_outputs(self):
        return [str(n) for n in self._prop.list_outputs()]

    def list_auxiliary_states(self):
        return [str(n) for n in self._prop.list_auxiliary_states()]

    def infer_shape(self, in_shapes, num_outputs, num_aux):
        with _Reported(self._op_type):
            result = self._prop.infer_shape([list(s) for s in in_shapes])
        groups = _padded(result, [len(in_shapes), num_outputs, num_aux])
        return tuple([() if s is None else tuple(int(d) for d in s) for s in group] for group in groups[:3])

    def infer_type(self, in_types, num_outputs, num_aux):
        with _Reported(self._op_type):
            result = self._prop.infer_type(list(in_types))
        return tuple(list(group) for group in _padded(result, [len(in_types), num_outputs, num_aux])[:3])

    def forward(self, is_train, in_data, out_data, aux):
        with _Profiled(self._op_type, self._op_type), _Reported(self._op_type):
            if self._op is None:
                ctx = (in_data or out_data)[0].context
                self._op = self._prop.create_operator(ctx, [list(x.shape) for x in in_data],
                                                      [x.dtype for x in in_data])
            self._op.forward(is_train=is_train, req=["write"] * len(out_data), in_data=in_data,
                             out_data=out_data, aux=aux)

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        with _Profiled("_backward_" + self._op_type, self._op_type), _Reported(self._op_type):
            self._op.backward(req=req, out_grad=out_grad, in_data=in_data, out_data=out_data, in_grad=in_grad,
                              aux=aux)


def Custom(*arrays, op_type=None, **kwargs):
    """Runs the custom operator registered as op_type on the arrays (its inputs by position, or
    by argument name as keywords; other keywords go to its CustomOpProp as strings); returns its
    output (a list for several). Recorded by autograd (backward calls the operator's backward)
    and by hybridize's trace, like any operator."""
    _registered(op_type)
    kwargs["op_type"] = op_type
    if not arrays and not any(isinstance(v, NDArray) for v in kwargs.values()):
        kwargs.setdefault("ctx", current_context())  # where an operator without inputs computes
    return _core.invoke("Custom", list(arrays), kwargs)


def _symbolic_custom(*args, **kwargs):
    """sym.Custom: a node of the custom operator registered as op_type, bound and run like any
    other (its inputs by position, or by argument name as keywords)."""
    _registered(kwargs.get("op_type"))
    return _sym._create("Custom", [a for a in args if isinstance(a, _sym.Symbol)], kwargs, hint="custom")


_nd.Custom = Custom
_sym.Custom = _symbolic_custom
