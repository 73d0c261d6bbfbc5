"""ONNX models to MXNet graphs: a Symbol with its arg and aux parameters (mx.contrib.onnx's API)."""
import numpy as np

from .. import ndarray as _nd
from .. import symbol as _sym
from ..base import MXNetError
from ._attrs import onnx_package

_ELEMENTWISE = {"Relu": ("Activation", {"act_type": "relu"}), "Sigmoid": ("Activation", {"act_type": "sigmoid"}),
                "Tanh": ("Activation", {"act_type": "tanh"}), "Softplus": ("Activation", {"act_type": "softrelu"}),
                "Softsign": ("Activation", {"act_type": "softsign"}), "Exp": ("exp", {}), "Log": ("log", {}),
                "Sqrt": ("sqrt", {}), "Abs": ("abs", {}), "Neg": ("negative", {}), "Identity": ("_copy", {}),
                "Dropout": ("_copy", {})}
_BINARY = {"Add": "broadcast_add", "Sub": "broadcast_sub", "Mul": "broadcast_mul", "Div": "broadcast_div"}


def _symmetric(pads, node):
    n = len(pads) // 2
    if list(pads[:n]) != list(pads[n:]):
        raise MXNetError("mx.onnx.import_model: node %s pads %s unequally at the two ends; MXNet pads both ends alike"
                         % (node, list(pads)))
    return tuple(pads[:n])


class _Importer:
    def __init__(self, model):
        onnx = onnx_package()
        from onnx import helper, numpy_helper
        self.helper = helper
        self.consts = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
        self.values, self.aux, self.used = {}, set(), set()
        for i in model.graph.input:
            if i.name not in self.consts:
                self.values[i.name] = _sym.var(i.name)
        self.onnx = onnx

    def value(self, name):
        if name not in self.values:
            if name not in self.consts:
                raise MXNetError("mx.onnx.import_model: %r is neither an input, an initializer nor a node's output" % name)
            self.values[name] = _sym.var(name)
        self.used.add(name)
        return self.values[name]

    def const(self, name, node):
        if name not in self.consts:
            raise MXNetError("mx.onnx.import_model: node %s needs %r as a constant (an initializer)" % (node, name))
        return self.consts[name]

    def param(self, name, array):
        """A parameter made by the import itself (a transposed weight, ones for a missing bias)."""
        self.consts[name] = array
        return self.value(name)

    def convert(self, node):
        a = {x.name: self.helper.get_attribute_value(x) for x in node.attribute}
        op, name, ins = node.op_type, node.name or node.output[0], list(node.input)
        s = _sym
        if op == "Conv":
            w = self.const(ins[1], name)
            kernel = tuple(a.get("kernel_shape", w.shape[2:]))
            n = len(kernel)
            return s.Convolution(self.value(ins[0]), self.value(ins[1]), *([self.value(ins[2])] if len(ins) > 2 else []),
                                 kernel=kernel, stride=tuple(a.get("strides", [1] * n)),
                                 dilate=tuple(a.get("dilations", [1] * n)), pad=_symmetric(a.get("pads", [0] * 2 * n), name),
                                 num_filter=w.shape[0], num_group=a.get("group", 1), no_bias=len(ins) < 3, name=name)
        if op == "Gemm":
            if a.get("transA", 0) or a.get("alpha", 1.0) != 1.0 or a.get("beta", 1.0) != 1.0:
                raise MXNetError("mx.onnx.import_model: Gemm %s with transA, alpha or beta does not convert" % name)
            w = self.const(ins[1], name)
            weight = self.value(ins[1]) if a.get("transB", 0) else self.param(ins[1] + "_T", np.ascontiguousarray(w.T))
            hidden = w.shape[0] if a.get("transB", 0) else w.shape[1]
            return s.FullyConnected(self.value(ins[0]), weight, *([self.value(ins[2])] if len(ins) > 2 else []),
                                    num_hidden=hidden, no_bias=len(ins) < 3, flatten=True, name=name)
        if op == "MatMul" and ins[1] in self.consts and self.consts[ins[1]].ndim == 2:
            w = self.consts[ins[1]]
            return s.FullyConnected(self.value(ins[0]), self.param(ins[1] + "_T", np.ascontiguousarray(w.T)),
                                    num_hidden=w.shape[1], no_bias=True, flatten=False, name=name)
        if op in ("MaxPool", "AveragePool"):
            kernel = tuple(a["kernel_shape"])
            n = len(kernel)
            return s.Pooling(self.value(ins[0]), kernel=kernel, stride=tuple(a.get("strides", [1] * n)),
                             pad=_symmetric(a.get("pads", [0] * 2 * n), name), pool_type="max" if op == "MaxPool" else "avg",
                             pooling_convention="full" if a.get("ceil_mode", 0) else "valid",
                             count_include_pad=bool(a.get("count_include_pad", 0)), name=name)
        if op in ("GlobalMaxPool", "GlobalAveragePool"):
            return s.Pooling(self.value(ins[0]), kernel=(1, 1), global_pool=True,
                             pool_type="max" if op == "GlobalMaxPool" else "avg", name=name)
        if op == "BatchNormalization":
            self.aux.update(ins[3:5])
            return s.BatchNorm(self.value(ins[0]), *[self.value(i) for i in ins[1:5]], eps=a.get("epsilon", 1e-5),
                               fix_gamma=False, name=name)
        if op == "Flatten":
            if a.get("axis", 1) != 1:
                raise MXNetError("mx.onnx.import_model: Flatten %s with axis %d does not convert" % (name, a["axis"]))
            return s.Flatten(self.value(ins[0]), name=name)
        if op in ("Softmax", "LogSoftmax"):
            return (s.softmax if op == "Softmax" else s.log_softmax)(self.value(ins[0]), axis=a.get("axis", -1), name=name)
        if op == "LeakyRelu":
            return s.LeakyReLU(self.value(ins[0]), act_type="leaky", slope=a.get("alpha", 0.01), name=name)
        if op == "Elu":
            return s.LeakyReLU(self.value(ins[0]), act_type="elu", slope=a.get("alpha", 1.0), name=name)
        if op == "Concat":
            return s.Concat(*[self.value(i) for i in ins], dim=a.get("axis", 1), name=name)
        if op == "Reshape":
            return s.reshape(self.value(ins[0]), shape=tuple(int(d) for d in self.const(ins[1], name)), name=name)
        if op == "Transpose":
            return s.transpose(self.value(ins[0]), axes=tuple(a["perm"]) if "perm" in a else (), name=name)
        if op == "Sum":
            return s.add_n(*[self.value(i) for i in ins], name=name)
        if op == "Clip":
            lo = float(self.const(ins[1], name)) if len(ins) > 1 and ins[1] else -np.inf
            hi = float(self.const(ins[2], name)) if len(ins) > 2 and ins[2] else np.inf
            return s.clip(self.value(ins[0]), a_min=lo, a_max=hi, name=name)
        if op in _BINARY:
            return getattr(s, _BINARY[op])(self.value(ins[0]), self.value(ins[1]), name=name)
        if op in _ELEMENTWISE:
            mx_op, attrs = _ELEMENTWISE[op]
            return getattr(s, mx_op)(self.value(ins[0]), name=name, **attrs)
        raise MXNetError("mx.onnx.import_model: ONNX operator %s (node %s) has no MXNet conversion" % (op, name))


def _load(model_file):
    onnx = onnx_package()
    return onnx.load(model_file) if isinstance(model_file, str) else model_file


def import_model(model_file):
    """(sym, arg_params, aux_params) of an ONNX model (a file or a ModelProto): the graph as a
    Symbol, its initializers as NDArrays (BatchNorm's running mean and variance as aux)."""
    model = _load(model_file)
    importer = _Importer(model)
    for node in model.graph.node:
        if len(node.output) != 1 and node.op_type not in ("Dropout", "BatchNormalization"):
            raise MXNetError("mx.onnx.import_model: node %s (%s) has %d outputs; only single-output nodes convert"
                             % (node.name, node.op_type, len(node.output)))
        importer.values[node.output[0]] = importer.convert(node)
    outs = [importer.values[o.name] for o in model.graph.output]
    sym = outs[0] if len(outs) == 1 else _sym.Group(outs)
    arg_names, aux_names = set(sym.list_arguments()), set(sym.list_auxiliary_states())
    arg = {k: _nd.array(v, dtype=v.dtype) for k, v in importer.consts.items() if k in arg_names}
    aux = {k: _nd.array(v, dtype=v.dtype) for k, v in importer.consts.items() if k in aux_names}
    return sym, arg, aux


def get_model_metadata(model_file):
    """{'input_tensor_data': [(name, shape)], 'output_tensor_data': [(name, shape)]} of the graph's
    inputs (initializers left out) and outputs; a symbolic axis is its name."""
    model = _load(model_file)
    consts = {t.name for t in model.graph.initializer}

    def shape(v):
        return tuple(d.dim_param or d.dim_value for d in v.type.tensor_type.shape.dim)
    return {"input_tensor_data": [(v.name, shape(v)) for v in model.graph.input if v.name not in consts],
            "output_tensor_data": [(v.name, shape(v)) for v in model.graph.output]}
