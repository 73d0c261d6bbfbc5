"""Gluon from Python: user-defined blocks, hybridize/export/imports, the fixture model, Trainer."""
import gzip
import os

import numpy as np
import pytest

import braid as mx
from braid import autograd, gluon, nd
from braid.gluon import nn
from braid.test_utils import assert_almost_equal
from conftest import FIXTURES


class ScaledMLP(gluon.HybridBlock):
    """A user-defined HybridBlock: a child layer and a parameter of its own used in hybrid_forward."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.hidden = nn.Dense(8, activation="tanh")
            self.out = nn.Dense(3)
            self.scale = self.params.get("scale", shape=(1, 3), init=mx.init.Constant(2.0))

    def hybrid_forward(self, F, x, scale):
        return F.broadcast_mul(self.out(self.hidden(x)), scale)


def test_user_hybrid_block_registers_children_and_parameters():
    net = ScaledMLP()
    assert net.prefix == "scaledmlp0_"
    assert sorted(net.collect_params().keys()) == ["scaledmlp0_dense0_bias", "scaledmlp0_dense0_weight",
                                                    "scaledmlp0_dense1_bias", "scaledmlp0_dense1_weight",
                                                    "scaledmlp0_scale"]
    assert "(hidden): Dense(None -> 8, Activation(tanh))" in repr(net) and repr(net).startswith("ScaledMLP(")


def test_hybridized_python_block_equals_imperative_and_exports(tmp_path):
    net = ScaledMLP()
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=(4, 5))
    expected = net(x).asnumpy()
    w = net.hidden.weight.data().asnumpy()
    h = np.tanh(x.asnumpy() @ w.T + net.hidden.bias.data().asnumpy())
    manual = (h @ net.out.weight.data().asnumpy().T + net.out.bias.data().asnumpy()) * 2.0
    assert_almost_equal(expected, manual, rtol=1e-5, atol=1e-6)
    net.hybridize()
    assert_almost_equal(net(x), expected, rtol=1e-6)
    assert_almost_equal(net(x), expected, rtol=1e-6)  # the cached graph, without Python
    prefix = str(tmp_path / "scaled")
    net.export(prefix, epoch=3)
    assert os.path.exists(prefix + "-symbol.json") and os.path.exists(prefix + "-0003.params")
    imported = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0003.params")
    assert_almost_equal(imported(x), expected, rtol=1e-6)


def test_gradients_flow_through_a_python_forward():
    class Residual(gluon.Block):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            self.body = nn.Dense(4, in_units=4)

        def forward(self, x):
            return x + self.body(x)

    net = Residual()
    net.initialize(mx.init.One())
    x = nd.ones((2, 4))
    with autograd.record():
        y = net(x).sum()
    y.backward()
    # d/dW sum(x + W x + b) = sum over batch of x for every row of W
    assert_almost_equal(net.body.weight.grad(), np.full((4, 4), 2.0))
    assert_almost_equal(net.body.bias.grad(), np.full((4,), 2.0))


def test_save_and_load_parameters_use_structural_names(tmp_path):
    net = ScaledMLP()
    net.initialize()
    f = str(tmp_path / "net.params")
    with pytest.raises(mx.MXNetError, match="deferred"):  # as MXNet: shapes are known after a forward
        net.save_parameters(f)
    x = nd.ones((2, 5))
    y = net(x)
    net.save_parameters(f)
    assert sorted(nd.load(f)) == ["hidden.bias", "hidden.weight", "out.bias", "out.weight", "scale"]
    other = ScaledMLP()
    other.load_parameters(f)
    assert_almost_equal(other(x), y, rtol=1e-6)


def read_idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def test_symbolblock_imports_the_mxnet_fixture_model():
    """The seed's deployment program: nn.SymbolBlock.imports of a model exported by MXNet 1.6."""
    net = nn.SymbolBlock.imports(os.path.join(FIXTURES, "mnist-symbol.json"), ["data"],
                                 os.path.join(FIXTURES, "mnist-0035.params"), ctx=mx.cpu())
    images = read_idx(os.path.join(FIXTURES, "mnist-t10k-images-idx3-ubyte.gz"))
    labels = read_idx(os.path.join(FIXTURES, "mnist-t10k-labels-idx1-ubyte.gz"))
    correct = 0
    for b in range(0, 10000, 1000):
        x = nd.array(images[b:b + 1000].reshape(-1, 1, 28, 28) / 255.0)
        pred = net(x).argmax(axis=1).asnumpy()
        correct += int((pred == labels[b:b + 1000]).sum())
    assert correct == 9903  # what an independent PyTorch evaluation gives (fixtures README)


def test_trainer_sgd_step_is_the_sgd_formula():
    net = nn.Dense(2, in_units=3)
    net.initialize(mx.init.Constant(0.5))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "wd": 0.0})
    x, y = nd.array([[1.0, 2.0, 3.0]]), nd.array([[0.0, 1.0]])
    with autograd.record():
        loss = gluon.loss.L2Loss()(net(x), y)
    loss.backward()
    grad = net.weight.grad().asnumpy()
    before = net.weight.data().asnumpy()
    trainer.step(1)
    assert_almost_equal(net.weight.data(), before - 0.1 * grad, rtol=1e-6)
    # L2Loss: the mean over the outputs of 0.5 (w x + b - y)^2, with w x + b = 3, b = 0 (bias_initializer)
    assert_almost_equal(grad, np.outer([3.0, 2.0], [1, 2, 3]) / 2, rtol=1e-6)


def test_trainer_stops_on_a_nan_gradient_when_asked():
    net = nn.Dense(1, in_units=2)
    net.initialize(mx.init.Constant(1.0))
    x = nd.array([[float("nan"), 1.0]])

    def backward():
        with autograd.record():
            loss = net(x).sum()
        loss.backward()
    backward()
    gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}).step(1)  # off by default, as MXNet
    assert np.isnan(net.weight.data().asnumpy()).any()
    net.weight.set_data(nd.ones((1, 2)))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1}, stop_on_divergence=True)
    assert trainer.stop_on_divergence
    backward()
    with pytest.raises(mx.MXNetError, match="the gradient of '%s' holds NaN or infinite values(.|\n)*try 0.01"
                       % net.weight.name):
        trainer.step(1)
    assert_almost_equal(net.weight.data(), np.ones((1, 2)))  # not updated with it


def test_python_dataset_and_dataloader():
    class Squares(gluon.data.Dataset):
        def __len__(self):
            return 10

        def __getitem__(self, i):
            return np.full((2,), i, dtype=np.float32), i * i

    loader = gluon.data.DataLoader(Squares(), batch_size=4, shuffle=False, last_batch="keep")
    batches = list(loader)
    assert len(loader) == 3 and [b[0].shape for b in batches] == [(4, 2), (4, 2), (2, 2)]
    assert_almost_equal(batches[1][1], np.array([16, 25, 36, 49]))
    dataset = gluon.data.ArrayDataset(np.arange(6).reshape(3, 2), np.array([0, 1, 2]))
    assert len(dataset) == 3
    assert_almost_equal(dataset[2][0], np.array([4, 5]))
    # Worker threads call the Python dataset under the GIL: the same batches, no deadlock.
    threaded = list(gluon.data.DataLoader(Squares(), batch_size=4, num_workers=2))
    assert [b[1].asnumpy().tolist() for b in threaded] == [b[1].asnumpy().tolist() for b in batches]

    def batchify(samples):  # a user batchify_fn gets the samples as the dataset returns them (as MXNet)
        return nd.array(np.stack([s[0] for s in samples])), nd.array([sum(s[1] for s in samples)])

    custom = list(gluon.data.DataLoader(Squares(), batch_size=5, batchify_fn=batchify))
    assert custom[0][0].shape == (5, 2) and custom[1][1].asscalar() == 25 + 36 + 49 + 64 + 81
    doubled = gluon.data.SimpleDataset([1, 2, 3]).transform(lambda x: x * 2)
    assert doubled[2] == 6


def test_user_defined_initializer():
    class Ramp(mx.init.Initializer):
        def _init_weight(self, name, arr):
            arr[:] = nd.arange(arr.size).reshape(arr.shape)

    net = nn.Dense(3, in_units=2)
    net.initialize(Ramp())
    assert_almost_equal(net.weight.data(), np.arange(6).reshape(3, 2))
    assert_almost_equal(net.bias.data(), np.zeros(3))


def test_symbolblock_from_a_symbol_shares_parameters_by_name():
    data = mx.sym.var('data')
    out = mx.sym.FullyConnected(data, name='fc', num_hidden=2)
    block = gluon.SymbolBlock(outputs=out, inputs=data)
    block.initialize(mx.init.One())
    y = block(nd.ones((3, 4)))
    # MXNet 1.x gives the block's initializer to every parameter without its own: bias 1 too
    assert_almost_equal(y, np.full((3, 2), 5.0))
    assert sorted(block.collect_params().keys()) == ['fc_bias', 'fc_weight']


def test_symbolblock_refuses_row_sparse_variables_as_mxnet_does():
    data, weight = mx.sym.var('data'), mx.sym.var('weight', stype='row_sparse')
    with pytest.raises(AssertionError, match="Parameter 'weight' because its storage type is 'row_sparse'"):
        gluon.SymbolBlock(mx.sym.dot(data, weight), data)


def test_layers_take_arrays_and_python_forwards_take_anything():
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    with pytest.raises(mx.MXNetError, match="takes NDArrays; argument 0 is a list"):
        dense([1, 2, 3])

    class Scale(gluon.Block):
        def forward(self, x, factor):
            return x * factor

    assert_almost_equal(Scale()(nd.ones((2,)), 3.0), np.full((2,), 3.0))


class MyDense(gluon.HybridBlock):
    """The custom-layer tutorial's dense layer, with in_units left to deferred initialization."""

    def __init__(self, units, in_units=0, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.weight = self.params.get('weight', shape=(units, in_units))
            self.bias = self.params.get('bias', shape=(units,))

    def hybrid_forward(self, F, x, weight, bias):
        return F.relu(F.FullyConnected(x, weight, bias, num_hidden=weight.shape[0]))


@pytest.mark.parametrize("hybridize", [False, True])
def test_deferred_parameters_of_a_python_block_get_their_shape_from_the_data(hybridize, tmp_path):
    net = MyDense(3)
    net.initialize(mx.init.Normal(1.0))
    assert net.weight.shape == (3, 0)
    if hybridize:
        net.hybridize()
    x = nd.random.uniform(-1, 1, shape=(4, 5))
    y = net(x)
    assert net.weight.shape == (3, 5)
    w, b = net.weight.data().asnumpy(), net.bias.data().asnumpy()
    assert abs(w).max() > 0 and abs(b).max() > 0  # Normal(1.0) fills the bias too, as in MXNet 1.x
    assert_almost_equal(y, np.maximum(x.asnumpy() @ w.T + b, 0), rtol=1e-5, atol=1e-6)
    assert_almost_equal(net(x), y, rtol=1e-6)  # initialized now: data, not the Parameter
    if hybridize:
        net.export(str(tmp_path / "mydense"))
        back = gluon.SymbolBlock.imports(str(tmp_path / "mydense-symbol.json"), ["data"],
                                         str(tmp_path / "mydense-0000.params"))
        assert_almost_equal(back(x), y, rtol=1e-6)


def test_blocks_share_parameters_through_params():
    """MXNet's `Dense(20, params=dense0.collect_params())`, and a user block shared whole."""
    dense0 = nn.Dense(4, in_units=3)
    dense1 = nn.Dense(4, in_units=3, params=dense0.collect_params())
    assert dense1.weight is dense0.weight and dense1.bias is dense0.bias
    assert dense1.prefix != dense0.prefix and list(dense1.collect_params().keys()) == list(dense0.collect_params().keys())
    dense0.initialize()
    x = nd.ones((2, 3))
    assert_almost_equal(dense1(x), dense0(x))

    first = ScaledMLP()
    second = ScaledMLP(params=first.collect_params())
    assert sorted(second.collect_params().keys()) == sorted(first.collect_params().keys())
    first.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=(2, 5))
    assert_almost_equal(second(x), first(x))
    assert nn.Dense(2).prefix != nn.Dense(2).prefix  # without params=, nothing is shared
    bn0 = nn.BatchNorm(in_channels=3)
    bn1 = nn.BatchNorm(in_channels=3, params=bn0.collect_params())
    assert sorted(bn1.collect_params().keys()) == sorted(bn0.collect_params().keys())
    emb0 = nn.Embedding(10, 4)
    assert nn.Embedding(10, 4, params=emb0.collect_params()).collect_params().keys() == emb0.collect_params().keys()


def test_a_symbolblock_inside_a_hybridized_block_joins_its_graph():
    """MXNet composes a SymbolBlock's graph with its caller's: hybridized, the outer block's graph
    holds the inner graph's nodes and parameters, and computes what the unhybridized block does."""
    backbone = nn.HybridSequential(prefix="bb_")
    with backbone.name_scope():
        backbone.add(nn.Dense(5, activation="relu"), nn.Dense(3))
    internals = backbone(mx.sym.var("data")).get_internals()
    outs = mx.sym.Group([internals["bb_dense0_relu_fwd_output"], internals["bb_dense1_fwd_output"]])

    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.body = nn.Dense(4, flatten=False)
                self.features = gluon.SymbolBlock(outs, mx.sym.var("data"), params=backbone.collect_params())

        def hybrid_forward(self, F, x):
            hidden, out = self.features(self.body(x))
            return out + F.sum(hidden, axis=1, keepdims=True)

    net = Net(prefix="net_")
    net.initialize(mx.init.Uniform(1.0))
    x = nd.array(np.random.RandomState(0).uniform(-1, 1, (2, 3)))
    with autograd.record():
        eager = net(x)
    eager.backward()
    eager_grad = net.body.weight.grad().copy()
    net.hybridize()
    with autograd.record():
        graphed = net(x)
    graphed.backward()
    assert_almost_equal(graphed, eager, rtol=1e-5)
    assert_almost_equal(net.body.weight.grad(), eager_grad, rtol=1e-5)
    arguments = net(mx.sym.var("data")).list_arguments()
    assert "bb_dense0_weight" in arguments and "net_dense0_weight" in arguments
