"""MXNet graphs (Symbol JSON and parameters) to ONNX (opset 13), node by node."""
import json
import os

import numpy as np

from .. import ndarray as _nd
from .. import symbol as _sym
from ..base import MXNetError
from ._attrs import flag, ints, onnx_package, value

OPSET = 13
_ACTIVATIONS = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "softrelu": "Softplus", "softsign": "Softsign"}
_BINARY = {"Add": ("elemwise_add", "_Plus", "_plus", "_add", "broadcast_add", "broadcast_plus"),
           "Sub": ("elemwise_sub", "_Minus", "_minus", "_sub", "broadcast_sub", "broadcast_minus"),
           "Mul": ("elemwise_mul", "_Mul", "_mul", "broadcast_mul"),
           "Div": ("elemwise_div", "_Div", "_div", "broadcast_div")}
_SCALAR = {"_plus_scalar": "Add", "_minus_scalar": "Sub", "_mul_scalar": "Mul", "_div_scalar": "Div"}
_UNARY = {"exp": "Exp", "log": "Log", "sqrt": "Sqrt", "abs": "Abs", "negative": "Neg", "Flatten": "Flatten",
          "flatten": "Flatten", "Dropout": "Identity", "_copy": "Identity", "identity": "Identity",
          "BlockGrad": "Identity", "stop_gradient": "Identity", "relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh",
          "softsign": "Softsign"}
# Loss layers: their label input is not part of the exported (inference) graph.
_LOSS_LAYERS = {"SoftmaxOutput", "LinearRegressionOutput", "LogisticRegressionOutput", "MAERegressionOutput"}


class _Graph:
    """The ONNX nodes and initializers being made."""

    def __init__(self, helper, numpy_helper):
        self.helper, self.numpy_helper = helper, numpy_helper
        self.nodes, self.initializers = [], {}

    def add(self, op_type, inputs, outputs, name, **attrs):
        self.nodes.append(self.helper.make_node(op_type, inputs, outputs, name=name, **attrs))

    def constant(self, name, array):
        self.initializers[name] = self.numpy_helper.from_array(np.asarray(array), name)
        return name


def _conv(g, node, attrs, inputs, out):
    kernel = ints(attrs["kernel"])
    n = len(kernel)
    pad = ints(attrs.get("pad", "0"), n)
    if attrs.get("layout", "None") not in ("None", "NCHW", "NCW", "NCDHW"):
        raise MXNetError("mx.onnx.export_model: Convolution %s: only the channels-first layout converts" % node)
    if flag(attrs, "no_bias", False):
        inputs = inputs[:2]
    g.add("Conv", inputs, [out], node, kernel_shape=kernel, strides=ints(attrs.get("stride", "1"), n),
          dilations=ints(attrs.get("dilate", "1"), n), pads=pad + pad, group=int(value(attrs.get("num_group", "1"))))


def _fully_connected(g, node, attrs, inputs, out):
    bias = [] if flag(attrs, "no_bias", False) else inputs[2:3]
    if flag(attrs, "flatten", True):
        g.add("Flatten", inputs[:1], [node + "_flat"], node + "_flatten", axis=1)
        g.add("Gemm", [node + "_flat", inputs[1]] + bias, [out], node, transB=1)
        return
    g.add("Transpose", [inputs[1]], [node + "_wt"], node + "_transpose")
    g.add("MatMul", [inputs[0], node + "_wt"], [node + "_mm" if bias else out], node + "_matmul")
    if bias:
        g.add("Add", [node + "_mm", bias[0]], [out], node)


def _activation(g, node, attrs, inputs, out):
    act = attrs.get("act_type", "relu")
    if act not in _ACTIVATIONS:
        raise MXNetError("mx.onnx.export_model: Activation %s: act_type %r has no ONNX form" % (node, act))
    g.add(_ACTIVATIONS[act], inputs[:1], [out], node)


def _leaky_relu(g, node, attrs, inputs, out):
    act, slope = attrs.get("act_type", "leaky"), float(value(attrs.get("slope", "0.25")))
    if act == "leaky":
        g.add("LeakyRelu", inputs[:1], [out], node, alpha=slope)
    elif act == "elu":
        g.add("Elu", inputs[:1], [out], node, alpha=slope)
    else:
        raise MXNetError("mx.onnx.export_model: LeakyReLU %s: act_type %r does not convert" % (node, act))


def _pooling(g, node, attrs, inputs, out):
    kind = attrs.get("pool_type", "max")
    if kind not in ("max", "avg"):
        raise MXNetError("mx.onnx.export_model: Pooling %s: pool_type %r does not convert" % (node, kind))
    if flag(attrs, "global_pool", False):
        g.add("GlobalMaxPool" if kind == "max" else "GlobalAveragePool", inputs[:1], [out], node)
        return
    kernel = ints(attrs["kernel"])
    n = len(kernel)
    pad = ints(attrs.get("pad", "0"), n)
    extra = {"ceil_mode": 1 if attrs.get("pooling_convention", "valid") == "full" else 0}
    if kind == "avg":
        extra["count_include_pad"] = 1 if flag(attrs, "count_include_pad", True) else 0
    g.add("MaxPool" if kind == "max" else "AveragePool", inputs[:1], [out], node, kernel_shape=kernel,
          strides=ints(attrs.get("stride", "1"), n), pads=pad + pad, **extra)


def _batch_norm(g, node, attrs, inputs, out, params):
    if int(value(attrs.get("axis", "1"))) != 1:
        raise MXNetError("mx.onnx.export_model: BatchNorm %s: only axis 1 converts" % node)
    inputs = list(inputs[:5])
    if flag(attrs, "fix_gamma", True):  # MXNet computes with gamma = 1 then
        inputs[1] = g.constant(node + "_gamma_fixed", np.ones(params[inputs[1]].shape, dtype=np.float32))
    g.add("BatchNormalization", inputs, [out], node, epsilon=float(value(attrs.get("eps", "0.001"))))


def _softmax(g, node, attrs, inputs, out, op):
    if op == "SoftmaxOutput":
        g.add("Softmax", inputs[:1], [out], node, axis=1)
    else:
        g.add("LogSoftmax" if op == "log_softmax" else "Softmax", inputs[:1], [out], node,
              axis=int(value(attrs.get("axis", "-1"))))


def _reshape(g, node, attrs, inputs, out):
    shape = ints(attrs.get("shape", "()"))
    if any(d < -1 for d in shape) or flag(attrs, "reverse", False):
        raise MXNetError("mx.onnx.export_model: Reshape %s: shape codes -2, -3, -4 and reverse do not convert" % node)
    g.add("Reshape", [inputs[0], g.constant(node + "_shape", np.array(shape, dtype=np.int64))], [out], node)


def _convert(g, op, node, attrs, inputs, out, params):
    if op == "Convolution":
        _conv(g, node, attrs, inputs, out)
    elif op == "FullyConnected":
        _fully_connected(g, node, attrs, inputs, out)
    elif op == "Activation":
        _activation(g, node, attrs, inputs, out)
    elif op == "LeakyReLU":
        _leaky_relu(g, node, attrs, inputs, out)
    elif op == "Pooling":
        _pooling(g, node, attrs, inputs, out)
    elif op == "BatchNorm":
        _batch_norm(g, node, attrs, inputs, out, params)
    elif op in ("SoftmaxOutput", "softmax", "log_softmax"):
        _softmax(g, node, attrs, inputs, out, op)
    elif op in ("Reshape", "reshape"):
        _reshape(g, node, attrs, inputs, out)
    elif op in ("Concat", "concat"):
        g.add("Concat", inputs, [out], node, axis=int(value(attrs.get("dim", "1"))))
    elif op in ("transpose",):
        axes = ints(attrs.get("axes", "()"))
        g.add("Transpose", inputs[:1], [out], node, **({"perm": axes} if axes else {}))
    elif op in ("add_n", "ElementWiseSum"):
        g.add("Sum", inputs, [out], node)
    elif op == "clip":
        lo = g.constant(node + "_min", np.array(float(value(attrs["a_min"])), dtype=np.float32))
        hi = g.constant(node + "_max", np.array(float(value(attrs["a_max"])), dtype=np.float32))
        g.add("Clip", [inputs[0], lo, hi], [out], node)
    elif op in _SCALAR:
        scalar = g.constant(node + "_scalar", np.array([float(value(attrs.get("scalar", "0")))], dtype=np.float32))
        g.add(_SCALAR[op], [inputs[0], scalar], [out], node)
    elif op in _UNARY:
        g.add(_UNARY[op], inputs[:1], [out], node, **({"axis": 1} if _UNARY[op] == "Flatten" else {}))
    else:
        for onnx_op, names in _BINARY.items():
            if op in names:
                g.add(onnx_op, inputs[:2], [out], node)
                return
        raise MXNetError("mx.onnx.export_model: operator %s (node %s) has no ONNX conversion; supported: %s"
                         % (op, node, ", ".join(SUPPORTED_OPERATORS)))


SUPPORTED_OPERATORS = sorted({"Convolution", "FullyConnected", "Activation", "LeakyReLU", "Pooling", "BatchNorm",
                              "SoftmaxOutput", "softmax", "log_softmax", "Reshape", "reshape", "Concat", "concat",
                              "transpose", "add_n", "ElementWiseSum", "clip"} | set(_SCALAR) | set(_UNARY)
                             | {n for names in _BINARY.values() for n in names})


def _tensor_type(onnx, dtype):
    """ONNX's element type of a NumPy dtype (onnx.mapping in Debian's onnx 1.12)."""
    return onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[np.dtype(dtype)]


def _load_params(params):
    if isinstance(params, str):
        params = _nd.load(params)
    return {k.split(":", 1)[1] if k.startswith(("arg:", "aux:")) else k: v for k, v in params.items()}


def _entry_name(nodes, entry):
    node, index = entry[0], entry[1]
    return nodes[node]["name"] if index == 0 else "%s_output%d" % (nodes[node]["name"], index)


def export_model(sym, params, in_shapes=None, in_types=np.float32, onnx_file_path="model.onnx", verbose=False,
                 dynamic=False, dynamic_input_shapes=None, run_shape_inference=False, input_type=None,
                 input_shape=None):
    """Writes the inference graph of ``sym`` (a Symbol or a -symbol.json file) with ``params`` (a
    dict of NDArrays or a .params file, arg:/aux: names or bare ones) as an ONNX model (opset 13)
    at ``onnx_file_path``, checked by onnx.checker; returns the path. ``in_shapes``: the shape of
    each input that is not a parameter (labels of loss layers are left out), in the graph's
    order; ``dynamic=True`` makes their first axis a symbolic batch size."""
    onnx = onnx_package()
    from onnx import helper, numpy_helper
    in_shapes = in_shapes if in_shapes is not None else input_shape
    in_types = input_type if input_type is not None else in_types
    if isinstance(sym, str):
        sym = _sym.load(sym)
    params = _load_params(params)
    graph_json = json.loads(sym.tojson())
    nodes = graph_json["nodes"]
    labels = {n["inputs"][1][0] for n in nodes if n["op"] in _LOSS_LAYERS and len(n["inputs"]) > 1}
    data = [i for i, n in enumerate(nodes) if n["op"] == "null" and n["name"] not in params and i not in labels]
    if in_shapes is None or len(in_shapes) != len(data):
        raise MXNetError("mx.onnx.export_model: give in_shapes, one shape for each input of the graph that is not a "
                         "parameter: %s" % [nodes[i]["name"] for i in data])
    types = in_types if isinstance(in_types, (list, tuple)) else [in_types] * len(data)
    g = _Graph(helper, numpy_helper)
    inputs = []
    for i, shape, dtype in zip(data, in_shapes, types):
        dims = list(shape)
        if dynamic:
            dims[0] = "batch"
        if dynamic_input_shapes:
            dims = ["batch" if d is None else d for d in dynamic_input_shapes[data.index(i)]]
        elem = _tensor_type(onnx, dtype)
        inputs.append(helper.make_tensor_value_info(nodes[i]["name"], elem, dims))
    used = set()
    for i, n in enumerate(nodes):
        if n["op"] == "null":
            continue
        names = [_entry_name(nodes, e) for e in n["inputs"]]
        if n["op"] in _LOSS_LAYERS:
            names = names[:1]
        used.update(e[0] for e in n["inputs"])
        _convert(g, n["op"], n["name"], n.get("attrs", n.get("param", {})), names, n["name"], params)
    for i, n in enumerate(nodes):
        if n["op"] == "null" and n["name"] in params and i in used:
            g.constant(n["name"], params[n["name"]].asnumpy())
    _, out_shapes, _ = sym.infer_shape(**{nodes[i]["name"]: tuple(shape) for i, shape in zip(data, in_shapes)})
    if out_shapes is None:
        raise MXNetError("mx.onnx.export_model: the graph's output shapes do not follow from in_shapes %s"
                         % (list(in_shapes),))
    outputs = [helper.make_tensor_value_info(_entry_name(nodes, h), _tensor_type(onnx, types[0]),
                                             ["batch"] + list(shape[1:]) if dynamic or dynamic_input_shapes else shape)
               for h, shape in zip(graph_json["heads"], out_shapes)]
    graph = helper.make_graph(g.nodes, "braid_export", inputs, outputs, list(g.initializers.values()))
    model = helper.make_model(graph, producer_name="braid", opset_imports=[helper.make_opsetid("", OPSET)])
    if run_shape_inference:
        model = onnx.shape_inference.infer_shapes(model)
    onnx.checker.check_model(model)
    if verbose:
        print(helper.printable_graph(model.graph))
    tmp = onnx_file_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, onnx_file_path)  # atomic: the old file or the complete new one
    return onnx_file_path
