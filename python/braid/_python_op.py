"""MXNet's first Python operators, kept for the programs that still use them: ``PythonOp``,
``NumpyOp`` (forward and backward on NumPy arrays) and ``NDArrayOp`` (on NDArrays). Their symbols
are nodes of the operators ``_Native`` and ``_NDArray``, whose attribute ``info`` names the Python
object; the node runs through the same machinery as ``Custom`` (braid.operator).

    class Double(mx.operator.NumpyOp):
        def forward(self, in_data, out_data):
            out_data[0][:] = in_data[0] * 2
        def backward(self, out_grad, in_data, out_data, in_grad):
            in_grad[0][:] = out_grad[0] * 2

    y = Double().get_symbol(mx.sym.Variable('x'), name='double')
"""
import warnings

import numpy as _np

from . import ndarray as _nd
from . import symbol as _sym
from .base import MXNetError
from .operator import CustomOp, CustomOpProp  # defined before braid.operator imports this module

# info -> operator object; an operator stays alive as long as the process (MXNet keeps them too).
_by_info = {}


class PythonOp:
    """Base class of the legacy Python operators: one input 'data', one output 'output' of its
    shape; forward copies, backward writes ones. need_top_grad False marks loss layers."""
    _ref_holder = []

    def __init__(self, need_top_grad=True):
        self.info_ = None
        self.need_top_grad_ = need_top_grad
        warnings.warn("PythonOp has been deprecated. Please use CustomOp")

    def __call__(self, *args, **kwargs):
        return self.get_symbol(*args, **kwargs)

    def get_symbol(self, *args, **kwargs):
        raise NotImplementedError("%s must define get_symbol (or derive from NumpyOp or NDArrayOp)"
                                  % type(self).__name__)

    def forward(self, in_data, out_data):
        out_data[0][:] = in_data[0]

    def backward(self, out_grad, in_data, out_data, in_grad):
        in_grad[0][:] = 1.0

    def infer_shape(self, in_shape):
        """(input shapes, output shapes) from the input shapes."""
        return in_shape, [in_shape[0]]

    def list_outputs(self):
        return ["output"]

    def list_arguments(self):
        return ["data"]

    def need_top_grad(self):
        return self.need_top_grad_

    def _node(self, op_name, *args, **kwargs):
        """The symbol of a node of op_name that runs this object."""
        self.info_ = "%x" % id(self)
        _by_info[self.info_] = self
        PythonOp._ref_holder.append(self)
        return getattr(_sym._internal, op_name)(*args, info=self.info_, **kwargs)


class NumpyOp(PythonOp):
    """A Python operator computed on NumPy arrays: forward and backward write into the arrays of
    out_data and in_grad (in place, e.g. ``out[:] = ...``)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NumpyOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args, **kwargs):
        return self._node("_Native", *args, need_top_grad=self.need_top_grad(), **kwargs)


class NDArrayOp(PythonOp):
    """A Python operator computed on NDArrays: forward and backward write into out_data and
    in_grad (``out[:] = ...``)."""

    def __init__(self, need_top_grad=True):
        super().__init__(need_top_grad)
        warnings.warn("NDArrayOp has been deprecated. Please use CustomOp")

    def get_symbol(self, *args, **kwargs):
        return self._node("_NDArray", *args, **kwargs)

    def declare_backward_dependency(self, out_grad, in_data, out_data):
        deps = list(out_grad) if self.need_top_grad() else []
        return deps + list(in_data) + list(out_data)


def _as_numpy(arrays):
    return [a.asnumpy() for a in arrays]


class _Computation(CustomOp):
    """The CustomOp of a legacy node: NumpyOp computes on NumPy copies written back afterwards,
    NDArrayOp on the NDArrays themselves (its in_grad on scratch arrays stored as req says)."""

    def __init__(self, op):
        self._op = op
        self._numpy = isinstance(op, NumpyOp)

    def forward(self, is_train, req, in_data, out_data, aux):
        if self._numpy:
            outs = [_np.zeros(o.shape, dtype=o.dtype) for o in out_data]
            self._op.forward(in_data=_as_numpy(in_data), out_data=outs)
            for target, value, how in zip(out_data, outs, req):
                self.assign(target, how, value)
        else:
            self._op.forward(in_data=list(in_data), out_data=list(out_data))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        if self._numpy:
            grads = [_np.zeros(g.shape, dtype=g.dtype) for g in in_grad]
            self._op.backward(out_grad=_as_numpy(out_grad), in_data=_as_numpy(in_data),
                              out_data=_as_numpy(out_data), in_grad=grads)
        else:
            grads = [_nd.zeros(g.shape, ctx=g.context, dtype=g.dtype) for g in in_grad]
            self._op.backward(out_grad=list(out_grad), in_data=list(in_data), out_data=list(out_data),
                              in_grad=grads)
        for target, value, how in zip(in_grad, grads, req):
            self.assign(target, how, value)


class _Prop(CustomOpProp):
    """The CustomOpProp of a legacy node (see braid.operator._CustomNode): names and shapes from
    the Python operator, no aux states; float32 like MXNet's legacy operators."""

    def __init__(self, op):
        super().__init__(op.need_top_grad())
        self._op = op

    def list_arguments(self):
        return self._op.list_arguments()

    def list_outputs(self):
        return self._op.list_outputs()

    def infer_shape(self, in_shape):
        in_shapes, out_shapes = self._op.infer_shape(in_shape)
        return in_shapes, out_shapes, []

    def infer_type(self, in_type):
        return [_np.float32] * len(in_type), [_np.float32] * len(self.list_outputs()), []

    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Computation(self._op)


def legacy_prop(op_type, kwargs):
    """The prop of a _Native or _NDArray node whose info is kwargs['info']."""
    info = kwargs.get("info")
    if info not in _by_info:
        raise MXNetError("%s: no Python operator with info %r in this process; such nodes run only where "
                         "their NumpyOp or NDArrayOp made them (get_symbol)" % (op_type, info))
    return _Prop(_by_info[info])
