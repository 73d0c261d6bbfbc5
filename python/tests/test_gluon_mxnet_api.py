"""Gluon's MXNet 1.x Python API over the C++ blocks: parameters, hooks, losses on Symbols, views
inside a hybridized forward, Python samples in the DataLoader, the model zoo."""
import warnings

import numpy as np
import pytest

import braid as mx
from braid import autograd, gluon, nd
from braid.gluon import nn
from braid.test_utils import assert_almost_equal


def test_parameter_initializer_fills_any_name_and_checks_stype():
    p = gluon.Parameter("x", shape=(3,))
    p.initialize(init="ones", ctx=mx.cpu())  # MXNet: the chosen initializer fills it, whatever the name
    assert_almost_equal(p.data(), np.ones(3))
    assert p.var().name == "x" and p.stype == "default"
    with pytest.raises(AssertionError):
        gluon.Parameter("w", shape=(2,), stype="invalid")
    d = gluon.ParameterDict("net_")
    c = d.get_constant("c", [[1, 2], [3, 4]])
    d.initialize()
    assert c.grad_req == "null"
    assert (c.data().asnumpy() == np.array([[1, 2], [3, 4]])).all()
    assert str(d).splitlines()[0] == "net_ ("


def test_forward_hooks_and_layer_attributes():
    calls = []
    dense = nn.Dense(2, in_units=3)
    dense.initialize()
    pre = dense.register_forward_pre_hook(lambda block, x: calls.append("pre"))
    post = dense.register_forward_hook(lambda block, x, y: calls.append(y.shape))
    dense(nd.ones((4, 3)))
    pre.detach()
    post.detach()
    dense(nd.ones((4, 3)))
    assert calls == ["pre", (4, 2)]
    bn = nn.BatchNorm(in_channels=3)
    assert bn.gamma.name.endswith("gamma") and bn.running_var.name.endswith("running_var")
    assert isinstance(dense, gluon.HybridBlock) and isinstance(dense, gluon.Block)


def test_forward_hooks_fire_for_children_of_containers_and_python_blocks():
    class Twice(gluon.Block):
        def forward(self, x):
            return x * 2

    calls = []
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3), Twice(), nn.Dense(2, in_units=4))
    net.initialize()
    handles = [net[0].register_forward_hook(lambda b, x, y: calls.append(("dense", x[0].shape, y.shape))),
               net[1].register_forward_pre_hook(lambda b, x: calls.append(("twice", x[0].shape))),
               net[1].register_forward_hook(lambda b, x, y: calls.append(("twice out", b is net[1])))]
    net(nd.ones((5, 3)))
    assert calls == [("dense", (5, 3), (5, 4)), ("twice", (5, 4)), ("twice out", True)]
    for h in handles:
        h.detach()
    net(nd.ones((5, 3)))
    assert len(calls) == 3
    # a hybridized container runs its graph: its own hooks fire, its children's do not (MXNet)
    hnet = nn.HybridSequential()
    hnet.add(nn.Dense(2, in_units=3))
    hnet.initialize()
    hnet[0].register_forward_hook(lambda b, x, y: calls.append("child"))
    hnet.register_forward_hook(lambda b, x, y: calls.append("parent"))
    hnet(nd.ones((1, 3)))
    assert calls[3:] == ["child", "parent"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hnet.hybridize()
    hnet(nd.ones((1, 3)))  # traces: the children run once more
    hnet(nd.ones((1, 3)))
    assert calls[-1] == "parent" and calls[-2] == "parent"


def test_summary_prints_each_layer_s_output_shape_and_parameters(capsys):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3, activation="relu"), nn.BatchNorm(in_channels=4), nn.Dense(2, in_units=4))
    net.initialize()
    net.summary(nd.ones((5, 3)))
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines if line.strip().startswith(("Input", "Dense", "BatchNorm"))]
    assert rows == [["Input", "(5,", "3)", "0"], ["Dense-1", "(5,", "4)", "16"], ["BatchNorm-2", "(5,", "4)", "16"],
                    ["Dense-3", "(5,", "2)", "10"]]
    assert "   Total params: 42" in lines and "   Trainable params: 34" in lines
    assert "   Non-trainable params: 8" in lines and "Unique parameters in model: 42" in lines
    net.hybridize()
    with pytest.raises(AssertionError, match="must not be hybridized"):
        net.summary(nd.ones((5, 3)))


def test_reshape_and_slice_views_inside_a_hybridized_forward():
    class Net(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.dense = nn.Dense(3, in_units=8)

        def hybrid_forward(self, F, x):
            return self.dense(x.reshape((4, 8))[1:3])

    net = Net()
    net.initialize()
    x = nd.random.uniform(shape=(2, 16))
    eager = net(x).asnumpy()
    net.hybridize()
    assert_almost_equal(net(x), eager, rtol=1e-6)
    assert_almost_equal(net(x), eager, rtol=1e-6)  # the traced graph


def test_losses_run_on_arrays_and_build_graphs_on_symbols():
    loss = gluon.loss.L1Loss()
    assert nd.sum(loss(nd.array([1, 2, 3, 4]), nd.array([1, 3, 5, 7]))).asscalar() == 6.
    ce = gluon.loss.SoftmaxCrossEntropyLoss()
    assert_almost_equal(ce(nd.array([[0, 2], [1, 4]]), nd.array([0, 1])), np.array([2.12692809, 0.04858733]),
                        rtol=1e-3, atol=1e-4)
    out = gluon.loss.HingeLoss()(mx.sym.var("pred"), mx.sym.var("label")) if hasattr(mx.sym, "reshape_like") \
        else gluon.loss.KLDivLoss()(mx.sym.var("pred"), mx.sym.var("label"))
    assert isinstance(out, mx.sym.Symbol) and "pred" in out.list_arguments()


def test_dataloader_keeps_python_samples_and_batches_them():
    data = gluon.data.SimpleDataset(list(range(10))).filter(lambda x: x % 2 == 0)
    assert [data[i] for i in range(len(data))] == [0, 2, 4, 6, 8]
    for workers in (0, 2):
        batches = list(gluon.data.DataLoader(gluon.data.ArrayDataset(np.arange(10), np.arange(10) * 2),
                                             batch_size=4, num_workers=workers))
        assert [b[0].shape for b in batches] == [(4,), (4,), (2,)]
        assert_almost_equal(batches[2][1], np.array([16, 18]))
    assert sum(gluon.data.BatchSampler(gluon.data.SequentialSampler(10), 3, "discard"), []) == list(range(9))


def test_resnet_from_the_model_zoo_runs_and_hybridizes():
    net = gluon.model_zoo.vision.get_model("resnet18_v1", classes=5, thumbnail=True)
    net.initialize(mx.init.Xavier())
    x = nd.random.uniform(shape=(1, 3, 32, 32))
    y = net(x).asnumpy()
    net.hybridize()
    assert y.shape == (1, 5)
    assert_almost_equal(net(x), y, rtol=1e-4, atol=1e-5)


def test_utils_split_errors_and_clip_warning():
    with pytest.raises(ValueError):
        gluon.utils.split_data(nd.ones((5, 2)), 2)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        gluon.utils.clip_global_norm([nd.array([1.0, float("nan")])], 1.0)
    assert len(w) == 1


def test_clip_global_norm_returns_a_float_or_as_mxnet_an_ndarray_without_the_check():
    a, b = nd.ones((3, 3)), nd.ones((4, 4))
    assert gluon.utils.clip_global_norm([a, b], 1.0) == 5.0
    a, b = nd.ones((3, 3)), nd.ones((4, 4))
    norm = gluon.utils.clip_global_norm([a, b], 1.0, check_isfinite=False)
    assert isinstance(norm, nd.NDArray) and norm.shape == (1,) and norm.asscalar() == 5.0
    assert_almost_equal(a, np.ones((3, 3)) / 5)


def test_trainer_takes_a_list_and_sets_up_its_store_at_the_first_step():
    x = gluon.Parameter("x", shape=(4,))
    x.initialize(init="zeros", ctx=[mx.cpu(0), mx.cpu(1)])
    trainer = gluon.Trainer([x], "sgd", {"learning_rate": 1.0})
    assert trainer._kvstore is None and x._trainer is trainer
    with autograd.record():
        for w in x.list_data():
            (w + 1).backward()
    trainer.step(1)
    assert trainer._kvstore is not None and trainer._params[0] is x
    assert_almost_equal(x.data(mx.cpu(1)), np.full(4, -2.0))
