"""The ordinary MXNet pattern: a helper makes a Module, a SymbolBlock, a block with its Trainer or a
KVStore, runs it and returns what it handed out; the caller reads the result after the producer is
gone, without any waitall in between. Each producer, many times, against a run that waited."""
import os

import numpy as np
import pytest

import braid as mx
from braid import gluon, nd
from braid.gluon import nn

RUNS = int(os.environ.get("BRAID_DROP_RUNS", "40"))


def face_like_net(loss):
    """Raw pixels normalised by scalar ops (fused into one kernel), convolution, BatchNorm,
    LeakyReLU, pooling, a classifier: the shape of insightface's gender-age model."""
    x = mx.sym.Variable('data')
    x = (x - 127.5) * 0.0078125
    x = mx.sym.Convolution(x, kernel=(3, 3), pad=(1, 1), num_filter=8, no_bias=True, name='conv0')
    x = mx.sym.BatchNorm(x, fix_gamma=False, eps=2e-5, name='bn0')
    x = mx.sym.LeakyReLU(x, act_type='leaky', slope=0.1, name='relu0')
    x = mx.sym.Activation(x * 0.5, act_type='tanh')
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='max')
    x = mx.sym.FullyConnected(x, num_hidden=5, name='fc1')
    return mx.sym.SoftmaxOutput(x, name='softmax') if loss else mx.sym.SoftmaxActivation(x, name='prob')


def face_params(net):
    rs = np.random.RandomState(5)
    arg_shapes, _, aux_shapes = net.infer_shape(data=(1, 3, 16, 16))
    args = {n: nd.array(rs.uniform(-0.5, 0.5, s)) for n, s in zip(net.list_arguments(), arg_shapes)
            if n not in ('data', 'softmax_label')}
    aux = {n: nd.array(rs.uniform(0.5, 1.5, s)) for n, s in zip(net.list_auxiliary_states(), aux_shapes)}
    return args, aux


def pixels(batch=4):
    return nd.array(np.random.RandomState(9).uniform(0, 255, (batch, 3, 16, 16)))


def expect_results_outlive_producer(produce):
    """produce(wait) returns arrays after dropping its producer (after waitall when wait)."""
    want = [a.asnumpy() for a in produce(True)]
    for run in range(RUNS):
        got = produce(False)
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g.asnumpy(), w, err_msg="run %d" % run)


def test_module_outputs_outlive_the_module():
    net = face_like_net(False)
    args, aux = face_params(net)
    x = pixels()

    def produce(wait):
        mod = mx.mod.Module(net, data_names=['data'], label_names=None, context=mx.cpu())
        mod.bind(data_shapes=[('data', x.shape)], for_training=False)
        mod.set_params(args, aux)
        mod.forward(mx.io.DataBatch([x]), is_train=False)
        out = mod.get_outputs()
        if wait:
            nd.waitall()
        return out

    expect_results_outlive_producer(produce)


def test_a_module_training_step_outlives_the_module():
    net = face_like_net(True)
    args, aux = face_params(net)
    x, y = pixels(), nd.array([0, 3, 1, 4])

    def produce(wait):
        mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
        mod.bind(data_shapes=[('data', x.shape)], label_shapes=[('softmax_label', y.shape)])
        mod.init_params(arg_params=args, aux_params=aux)
        mod.init_optimizer(kvstore='device', optimizer='sgd', optimizer_params={'learning_rate': 0.1, 'momentum': 0.9})
        mod.forward(mx.io.DataBatch([x], [y]), is_train=True)
        mod.backward()
        mod.update()
        arg, aux_now = mod.get_params()
        out = mod.get_outputs() + [arg[k] for k in sorted(arg)] + [aux_now[k] for k in sorted(aux_now)]
        if wait:
            nd.waitall()
        return out

    expect_results_outlive_producer(produce)


def test_symbol_block_outputs_outlive_the_block(tmp_path):
    net = face_like_net(False)
    args, aux = face_params(net)
    prefix = str(tmp_path / "face")
    mx.model.save_checkpoint(prefix, 0, net, args, aux)
    x = pixels()

    def produce(wait):
        block = gluon.SymbolBlock.imports(prefix + "-symbol.json", ['data'], prefix + "-0000.params")
        out = [block(x)]
        if wait:
            nd.waitall()
        return out

    expect_results_outlive_producer(produce)


@pytest.mark.parametrize("hybridize", [False, True])
def test_a_training_step_outlives_the_block_and_trainer(hybridize):
    x, y = pixels(), nd.array([0, 3, 1, 4])
    rs = np.random.RandomState(3)
    values = {}

    def produce(wait):
        net = nn.HybridSequential(prefix='face_')
        with net.name_scope():
            net.add(nn.Conv2D(8, 3, padding=1, use_bias=False), nn.BatchNorm(), nn.LeakyReLU(0.1), nn.Dense(5))
        net.initialize()
        net(x[:1]).wait_to_read()  # shapes
        for name, p in sorted(net.collect_params().items()):
            if name not in values:
                low, high = (0.5, 1.5) if 'var' in name else (-0.05, 0.05)
                values[name] = rs.uniform(low, high, p.shape)
            p.set_data(nd.array(values[name]))
        if hybridize:
            net.hybridize()
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1, 'momentum': 0.9})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(4)
        out = [loss] + [p.data() for _, p in sorted(net.collect_params().items())]
        if wait:
            nd.waitall()
        return out

    expect_results_outlive_producer(produce)


def test_kvstore_pulls_outlive_the_store():
    grad = nd.array(np.random.RandomState(2).uniform(-1, 1, (1 << 19,)))

    def produce(wait):
        kv = mx.kv.create('device')
        kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.5, momentum=0.9))
        kv.init(7, nd.ones(grad.shape))
        out = [nd.zeros(grad.shape, ctx=mx.cpu(0)), nd.zeros(grad.shape, ctx=mx.cpu(1))]
        for _ in range(2):
            kv.push(7, [grad, grad.as_in_context(mx.cpu(1))])
            kv.pull(7, out=out)
        if wait:
            nd.waitall()
        return out

    expect_results_outlive_producer(produce)


def test_feedforward_loads_a_checkpoint_and_predicts_as_the_module(tmp_path):
    """mx.model.FeedForward, as older MXNet scripts use it: load, then predict on NumPy arrays,
    NDArrays and iterators (padding dropped), with return_data; score; and fit then save."""
    net = face_like_net(True)
    args, aux = face_params(net)
    prefix = str(tmp_path / "face")
    mx.model.save_checkpoint(prefix, 3, net, args, aux)
    x = pixels(10).asnumpy()
    mod = mx.mod.Module(net)
    mod.bind(data_shapes=[('data', (10, 3, 16, 16))], label_shapes=[('softmax_label', (10,))], for_training=False)
    mod.set_params(args, aux)
    mod.forward(mx.io.DataBatch([nd.array(x)], [nd.zeros(10)]), is_train=False)
    want = mod.get_outputs()[0].asnumpy()

    model = mx.model.FeedForward.load(prefix, 3, ctx=mx.cpu(), numpy_batch_size=4)
    assert model.begin_epoch == 3
    got = model.predict(x)  # batches of 4, 4 and 2 (+2 padding)
    assert got.shape == (10, 5)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(nd.array(x)), want, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(model.predict(x, num_batch=2), want[:8], rtol=1e-5, atol=1e-6)
    out, data, label = model.predict(mx.io.NDArrayIter(x, np.arange(10) % 5, batch_size=3), return_data=True)
    np.testing.assert_allclose(out, want, rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(data, x)
    np.testing.assert_array_equal(label, np.arange(10) % 5)
    labels = np.argmax(want, axis=1)
    assert model.score(mx.io.NDArrayIter(x, labels, batch_size=5)) == 1.0

    trained = mx.model.FeedForward(net, num_epoch=2, numpy_batch_size=5, learning_rate=0.01,
                                   arg_params=args, aux_params=aux)
    trained.fit(x, labels)
    assert set(trained.arg_params) == set(args)
    assert not np.array_equal(trained.arg_params['fc1_weight'].asnumpy(), args['fc1_weight'].asnumpy())
    trained.save(str(tmp_path / "again"))
    again = mx.model.FeedForward.load(str(tmp_path / "again"), 2)
    np.testing.assert_allclose(again.predict(x), trained.predict(x), rtol=1e-6)
    with pytest.raises(ValueError, match="labels"):
        trained.fit(x)
