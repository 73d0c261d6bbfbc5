"""mx.onnx: MXNet graphs exported to ONNX pass onnx.checker, compute what Braid computes when an
independent evaluator (PyTorch's functional ops, below) runs the ONNX graph, and come back through
import_model with the same outputs; unsupported operators are named."""
import numpy as np
import onnx  # Debian's python3-onnx (scripts/install-deps.sh)
import pytest
import torch
import torch.nn.functional as F

import braid as mx
from braid.gluon import nn

from onnx import numpy_helper


def _attr(node, name, default=None):
    for a in node.attribute:
        if a.name == name:
            return onnx.helper.get_attribute_value(a)
    return default


def _pads(node, n):
    pads = _attr(node, "pads", [0] * 2 * n)
    assert pads[:n] == pads[n:]
    return tuple(pads[:n])


def _run_with_torch(model, feeds):
    """Evaluates the ONNX graph with torch.nn.functional, from ONNX's operator definitions."""
    v = {t.name: torch.from_numpy(numpy_helper.to_array(t).copy()) for t in model.graph.initializer}
    v.update({k: torch.from_numpy(x) for k, x in feeds.items()})
    for node in model.graph.node:
        x = [v[i] for i in node.input]
        op = node.op_type
        if op == "Conv":
            y = F.conv2d(x[0], x[1], x[2] if len(x) > 2 else None, stride=tuple(_attr(node, "strides")),
                         padding=_pads(node, 2), dilation=tuple(_attr(node, "dilations")), groups=_attr(node, "group", 1))
        elif op == "Gemm":
            assert _attr(node, "transB") == 1
            y = x[0] @ x[1].T + (x[2] if len(x) > 2 else 0)
        elif op in ("MaxPool", "AveragePool"):
            args = dict(kernel_size=tuple(_attr(node, "kernel_shape")), stride=tuple(_attr(node, "strides")),
                        padding=_pads(node, 2), ceil_mode=bool(_attr(node, "ceil_mode", 0)))
            y = F.max_pool2d(x[0], **args) if op == "MaxPool" else F.avg_pool2d(
                x[0], count_include_pad=bool(_attr(node, "count_include_pad", 0)), **args)
        elif op == "GlobalAveragePool":
            y = x[0].mean(dim=(2, 3), keepdim=True)
        elif op == "GlobalMaxPool":
            y = x[0].amax(dim=(2, 3), keepdim=True)
        elif op == "BatchNormalization":
            y = F.batch_norm(x[0], x[3], x[4], x[1], x[2], training=False, eps=_attr(node, "epsilon"))
        elif op == "Relu":
            y = F.relu(x[0])
        elif op == "Sigmoid":
            y = torch.sigmoid(x[0])
        elif op == "Tanh":
            y = torch.tanh(x[0])
        elif op == "Flatten":
            y = x[0].reshape(x[0].shape[0], -1)
        elif op == "Identity":
            y = x[0]
        elif op == "Softmax":
            y = F.softmax(x[0], dim=_attr(node, "axis"))
        elif op == "Add":
            y = x[0] + x[1]
        elif op == "Concat":
            y = torch.cat(x, dim=_attr(node, "axis"))
        elif op == "Reshape":
            y = x[0].reshape([int(d) if d != 0 else x[0].shape[i] for i, d in enumerate(x[1].tolist())])
        else:
            raise AssertionError("the test's evaluator lacks " + op)
        v[node.output[0]] = y
    return [v[o.name].numpy() for o in model.graph.output]


class _Cnn(mx.gluon.HybridBlock):
    """Convolutions with and without bias, batch norm, both poolings, a branch joined by concat
    and by addition, dense layers, dropout, softmax."""

    def __init__(self):
        super().__init__()
        with self.name_scope():
            self.conv1 = nn.Conv2D(8, 3, padding=1)
            self.bn = nn.BatchNorm()
            self.conv2 = nn.Conv2D(8, 3, padding=1, use_bias=False, activation="relu")
            self.conv3 = nn.Conv2D(8, 1, activation="sigmoid")
            self.pool = nn.MaxPool2D(2, 2)
            self.avg = nn.AvgPool2D(3, 2, padding=1)
            self.gap = nn.GlobalAvgPool2D()
            self.dense1 = nn.Dense(16, activation="tanh")
            self.drop = nn.Dropout(0.5)
            self.dense2 = nn.Dense(10)

    def hybrid_forward(self, F, x):
        y = self.pool(F.relu(self.bn(self.conv1(x))))
        y = F.concat(self.conv2(y), self.conv3(y), dim=1) + F.concat(y, y, dim=1)
        y = self.avg(y)
        z = self.gap(y).reshape((0, -1))
        return F.softmax(self.dense2(self.drop(self.dense1(F.concat(y.flatten(), z, dim=1)))))


def _exported(net, x, tmp_path):
    net.initialize(mx.init.Xavier())
    net(x)  # the shapes of the parameters
    for name, p in net.collect_params().items():
        if name.endswith(("gamma", "beta")):  # not their initial ones and zeros
            p.set_data(mx.nd.random.uniform(0.5, 1.5, shape=p.shape))
    net.hybridize()
    for _ in range(2):  # batch norm's running statistics move off their initial values
        with mx.autograd.record():
            net(x)
    expected = net(x).asnumpy()
    net.export(str(tmp_path / "net"))
    path = mx.onnx.export_model(str(tmp_path / "net-symbol.json"), str(tmp_path / "net-0000.params"), [x.shape],
                                np.float32, str(tmp_path / "net.onnx"))
    return expected, onnx.load(path)


def test_a_cnn_exports_to_checked_onnx_that_computes_the_same(tmp_path):
    x = mx.nd.random.uniform(shape=(2, 3, 12, 12))
    expected, model = _exported(_Cnn(), x, tmp_path)
    onnx.checker.check_model(model)
    ops = {n.op_type for n in model.graph.node}
    assert {"Conv", "BatchNormalization", "MaxPool", "AveragePool", "GlobalAveragePool", "Gemm", "Concat", "Add",
            "Softmax", "Reshape", "Identity"} <= ops, ops
    (got,) = _run_with_torch(model, {"data": x.asnumpy()})
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6)


def test_the_imported_model_gives_the_same_outputs(tmp_path):
    x = mx.nd.random.uniform(shape=(2, 3, 12, 12))
    expected, model = _exported(_Cnn(), x, tmp_path)
    sym, arg_params, aux_params = mx.onnx.import_model(str(tmp_path / "net.onnx"))
    assert sorted(k.rsplit("_", 1)[-1] for k in aux_params) == ["mean", "var"], aux_params  # running statistics
    ex = sym.bind(mx.cpu(), args=dict(arg_params, data=x), aux_states=aux_params)
    np.testing.assert_allclose(ex.forward()[0].asnumpy(), expected, rtol=1e-5, atol=1e-6)
    meta = mx.onnx.get_model_metadata(str(tmp_path / "net.onnx"))
    assert meta["input_tensor_data"] == [("data", (2, 3, 12, 12))]


def _exported_mlp(tmp_path, x, *layers):
    """Exports a hybridized MLP of `layers` as tmp_path/mlp-symbol.json and mlp-0000.params;
    returns its output for x."""
    net = nn.HybridSequential()
    net.add(*layers)
    net.initialize()
    net.hybridize()
    expected = net(x).asnumpy()
    net.export(str(tmp_path / "mlp"))
    return expected


def test_an_mlp_with_a_dynamic_batch(tmp_path):
    x = mx.nd.random.uniform(shape=(4, 20))
    expected = _exported_mlp(tmp_path, x, nn.Dense(32, activation="relu"), nn.Dense(10))
    path = mx.onnx.export_model(str(tmp_path / "mlp-symbol.json"), str(tmp_path / "mlp-0000.params"), [(1, 20)],
                                np.float32, str(tmp_path / "mlp.onnx"), dynamic=True)
    model = onnx.load(path)
    assert mx.onnx.get_model_metadata(model)["input_tensor_data"] == [("data", ("batch", 20))]
    (got,) = _run_with_torch(model, {"data": x.asnumpy()})  # a batch of 4 through a graph saved for 1
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_a_softmax_output_loses_its_label_and_an_unknown_operator_is_named(tmp_path):
    data = mx.sym.var("data")
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(data, num_hidden=3, name="fc"), name="softmax")
    params = {"fc_weight": mx.nd.ones((3, 4)), "fc_bias": mx.nd.zeros((3,))}
    model = onnx.load(mx.onnx.export_model(out, params, [(2, 4)], np.float32, str(tmp_path / "s.onnx")))
    assert [i.name for i in model.graph.input] == ["data"]  # softmax_label left out
    bad = mx.sym.topk(data, k=2)
    with pytest.raises(mx.MXNetError, match="operator topk .* has no ONNX conversion; supported: "):
        mx.onnx.export_model(bad, {}, [(2, 4)], np.float32, str(tmp_path / "bad.onnx"))
    with pytest.raises(mx.MXNetError, match="give in_shapes, one shape for each input"):
        mx.onnx.export_model(out, params, [], np.float32, str(tmp_path / "s.onnx"))


def test_the_command_line_exports_and_imports_files(tmp_path):
    import subprocess
    import sys
    x = mx.nd.random.uniform(shape=(2, 5))
    expected = _exported_mlp(tmp_path, x, nn.Dense(8, activation="relu"), nn.Dense(3))
    run = lambda *args: subprocess.run([sys.executable, "-m", "braid.onnx", *args], capture_output=True, text=True)
    r = run("export", str(tmp_path / "mlp-symbol.json"), str(tmp_path / "mlp-0000.params"), "--shape", "2,5",
            "-o", str(tmp_path / "mlp.onnx"))
    assert r.returncode == 0, r.stderr
    r = run("import", str(tmp_path / "mlp.onnx"), str(tmp_path / "back"))
    assert r.returncode == 0, r.stderr
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "back-symbol.json"), ["data"], str(tmp_path / "back-0000.params"))
    np.testing.assert_allclose(back(x).asnumpy(), expected, rtol=1e-5, atol=1e-6)
    r = run("export", str(tmp_path / "mlp-symbol.json"), str(tmp_path / "missing.params"), "--shape", "2,5")
    assert r.returncode == 2 and "missing.params" in r.stderr, r.stderr


def test_braid_onnx_runs_the_same_conversion(tmp_path):
    import os
    import subprocess
    _exported_mlp(tmp_path, mx.nd.ones((1, 6)), nn.Dense(4))
    braid_command = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(mx.__file__)))),
                                 "bin", "braid")
    r = subprocess.run([braid_command, "onnx", "export", str(tmp_path / "mlp-symbol.json"), str(tmp_path / "mlp-0000.params"),
                        "--shape", "1,6", "-o", str(tmp_path / "d.onnx")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert [n.op_type for n in onnx.load(str(tmp_path / "d.onnx")).graph.node] == ["Flatten", "Gemm"]
