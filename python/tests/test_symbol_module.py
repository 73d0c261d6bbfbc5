"""Symbol, Executor, io iterators, Module and user-defined optimizers from Python."""

import numpy as np
import pytest

import braid as mx
from braid import nd
from braid.test_utils import assert_almost_equal


def test_seed_symbol_bind_forward_backward():
    """Seed 001: x + y bound to arrays, forward, gradients (MXNet's real backward API)."""
    x = mx.sym.Variable('x')
    y = mx.sym.Variable('y')
    z = x + y
    executor = z.bind(mx.cpu(), {'x': mx.nd.array([1]), 'y': mx.nd.array([2])},
                      args_grad={'x': mx.nd.zeros((1,)), 'y': mx.nd.zeros((1,))})
    z_value = executor.forward(is_train=True)
    assert z_value[0].asscalar() == 3
    executor.backward([mx.nd.array([1])])
    assert executor.grad_dict['x'].asscalar() == 1 and executor.grad_dict['y'].asscalar() == 1


def test_seed_simple_bind_and_arg_arrays():
    x = mx.sym.Variable('x')
    y = mx.sym.Variable('y')
    z = x + y
    executor = z.simple_bind(mx.cpu(), x=(1,), y=(1,))
    executor.arg_arrays[0][:] = 1  # x = 1
    executor.arg_arrays[1][:] = 2  # y = 2
    executor.forward()
    assert executor.outputs[0].asscalar() == 3


def mlp():
    data = mx.sym.Variable('data')
    fc1 = mx.sym.FullyConnected(data=data, name='fc1', num_hidden=128)
    act1 = mx.sym.Activation(data=fc1, name='act1', act_type="relu")
    fc2 = mx.sym.FullyConnected(data=act1, name='fc2', num_hidden=10)
    return mx.sym.SoftmaxOutput(data=fc2, name='softmax')


def test_symbol_structure_shapes_and_json(tmp_path):
    net = mlp()
    assert net.list_arguments() == ['data', 'fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias', 'softmax_label']
    assert net.list_outputs() == ['softmax_output']
    args, outs, aux = net.infer_shape(data=(8, 784))
    assert args == [(8, 784), (128, 784), (128,), (10, 128), (10,), (8,)] and outs == [(8, 10)] and aux == []
    f = str(tmp_path / "net-symbol.json")
    net.save(f)
    again = mx.sym.load(f)
    assert again.tojson() == net.tojson()
    assert 'act1_output' in net.get_internals().list_outputs()
    with pytest.raises(mx.MXNetError, match="num_hidden"):
        mx.sym.FullyConnected(data=mx.sym.Variable('d'), name='bad')


def test_executor_matches_numpy():
    rs = np.random.RandomState(1)
    a, w, b = rs.randn(4, 6), rs.randn(3, 6), rs.randn(3)
    data = mx.sym.Variable('data')
    out = mx.sym.tanh(mx.sym.FullyConnected(data=data, name='fc', num_hidden=3))
    exe = out.simple_bind(mx.cpu(), data=(4, 6), type_dict={'data': 'float64', 'fc_weight': 'float64',
                                                           'fc_bias': 'float64'})
    exe.arg_dict['data'][:] = a
    exe.arg_dict['fc_weight'][:] = w
    exe.arg_dict['fc_bias'][:] = b
    y = exe.forward(is_train=True)[0]
    expected = np.tanh(a @ w.T + b)
    assert_almost_equal(y, expected, rtol=1e-12)
    exe.backward(nd.ones((4, 3), dtype='float64'))
    assert_almost_equal(exe.grad_dict['fc_weight'], ((1 - expected ** 2).T @ a), rtol=1e-10)


def test_ndarrayiter_batches_and_padding():
    data = np.arange(20, dtype=np.float32).reshape(10, 2)
    it = mx.io.NDArrayIter(data, np.arange(10), batch_size=4)
    batches = list(it)
    assert [b.pad for b in batches] == [0, 0, 2]
    assert_almost_equal(batches[2].data[0], np.concatenate([data[8:], data[:2]]))
    assert it.provide_data[0].name == 'data' and it.provide_data[0].shape == (4, 2)
    assert it.provide_label[0].name == 'softmax_label'
    assert list(it) == []  # as in MXNet, iterating does not reset: the epoch is over
    it.reset()
    assert len(list(it)) == 3


def test_module_fit_on_fashion_mnist():
    """Seed 001's Module API: an MLP fitted with NDArrayIter data, then score and predict."""
    train = mx.gluon.data.vision.FashionMNIST(train=True)
    test = mx.gluon.data.vision.FashionMNIST(train=False)
    def arrays(ds, n):
        x = np.stack([ds[i][0].asnumpy() for i in range(n)]).reshape(n, -1).astype(np.float32) / 255
        y = np.array([ds[i][1].asscalar() for i in range(n)], dtype=np.float32)
        return x, y
    x, y = arrays(train, 6000)
    tx, ty = arrays(test, 1000)
    train_iter = mx.io.NDArrayIter(x, y, batch_size=100, shuffle=True)
    eval_iter = mx.io.NDArrayIter(tx, ty, batch_size=100)
    net = mx.mod.Module(symbol=mlp(), data_names=('data',), label_names=('softmax_label',))
    metric = mx.metric.Accuracy()
    net.fit(train_iter, eval_data=eval_iter, eval_metric=metric, initializer=mx.init.Xavier(),
            optimizer_params={'learning_rate': 0.1}, num_epoch=3)
    assert metric.num_inst == 1000  # the object itself was used, last for the validation (as MXNet)
    (name, acc), = net.score(eval_iter, 'acc')
    assert name == 'accuracy' and acc > 0.75, acc  # chance is 0.1
    pred = net.predict(eval_iter)
    assert pred.shape == (1000, 10)
    assert abs((pred.asnumpy().argmax(axis=1) == ty).mean() - acc) < 1e-9


def test_module_checkpoint_round_trip(tmp_path):
    mod = mx.mod.Module(mlp())
    mod.bind(data_shapes=[('data', (5, 784))], label_shapes=[('softmax_label', (5,))])
    mod.init_params(mx.init.Xavier())
    prefix = str(tmp_path / "mlp")
    mod.save_checkpoint(prefix, 3)
    sym, arg_params, aux_params = mx.model.load_checkpoint(prefix, 3)
    assert sym.tojson() == mod.symbol.tojson()
    args, _ = mod.get_params()
    assert sorted(arg_params) == sorted(args)
    for k in args:
        assert_almost_equal(arg_params[k], args[k], rtol=0, atol=0)


@mx.optimizer.register
class PlainSGD(mx.optimizer.Optimizer):
    """A user-defined optimizer: w -= lr * (rescale * grad + wd * w), with a state counting steps."""

    def create_state(self, index, weight):
        return mx.nd.zeros(weight.shape, ctx=weight.context)

    def update(self, index, weight, grad, state):
        weight[:] = weight - self._get_lr(index) * (self.rescale_grad * grad + self._get_wd(index) * weight)
        state[:] = state + 1


def test_user_registered_optimizer_equals_builtin_sgd():
    def train(optimizer):
        mx.random.seed(3)
        net = mx.gluon.nn.Dense(4, in_units=6)
        net.initialize(mx.init.Normal(0.5))
        trainer = mx.gluon.Trainer(net.collect_params(), optimizer, {'learning_rate': 0.05, 'wd': 0.01})
        x = nd.random.uniform(shape=(8, 6))
        for _ in range(5):
            with mx.autograd.record():
                loss = (net(x) ** 2).sum()
            loss.backward()
            trainer.step(8)
        return net.weight.data().asnumpy(), trainer
    mine, trainer = train('plainsgd')
    builtin, _ = train('sgd')
    assert_almost_equal(mine, builtin, rtol=1e-5, atol=1e-7)
    assert trainer.optimizer.name == 'plainsgd'
    opt = mx.optimizer.create('plainsgd', learning_rate=0.3)
    assert opt.learning_rate == pytest.approx(0.3) and isinstance(opt, mx.optimizer.Optimizer)


def test_lr_scheduler_and_metric():
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=1.0)
    assert [sched(n) for n in (1, 3, 5)] == [1.0, 0.5, 0.25]
    acc = mx.metric.Accuracy()
    acc.update([nd.array([0, 1, 2])], [nd.array([[1, 0, 0], [0, 1, 0], [1, 0, 0]])])
    assert acc.get() == ('accuracy', pytest.approx(2 / 3))


def test_kvstore_local_and_device():
    for kind in ('local', 'device'):
        kv = mx.kv.create(kind)
        assert kv.type == kind and kv.rank == 0 and kv.num_workers == 1
        kv.init('w', nd.ones((2, 2)))
        kv.push('w', [nd.ones((2, 2), ctx=mx.cpu(i)) * (i + 1) for i in range(2)])
        outs = [nd.zeros((2, 2), ctx=mx.cpu(i)) for i in range(2)]
        kv.pull('w', out=outs)
        for o in outs:
            assert_almost_equal(o, np.full((2, 2), 3.0))  # no updater: the sum replaces the value
    kv = mx.kv.create('local')
    kv.init(0, nd.zeros((3,)))
    kv.set_optimizer(mx.optimizer.create('sgd', learning_rate=0.5))
    kv.push(0, nd.ones((3,)))
    out = nd.zeros((3,))
    kv.pull(0, out=out)
    assert_almost_equal(out, np.full((3,), -0.5))
    with pytest.raises(mx.MXNetError, match="nosuchstore"):
        mx.kv.create('nosuchstore')


def test_mtcnn_like_net_with_softmax_activation_matches_numpy():
    """MTCNN's first net ends in SoftmaxActivation(mode='channel') after PReLU and a 'full' pooling:
    the probabilities are a softmax over axis 1 at every position; 'instance' mode over each sample."""
    data = mx.sym.Variable('data')
    x = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, name='conv1')
    x = mx.sym.LeakyReLU(x, act_type='prelu', name='prelu1')
    x = mx.sym.Pooling(x, kernel=(2, 2), stride=(2, 2), pool_type='max', pooling_convention='full')
    logits = mx.sym.Convolution(x, kernel=(1, 1), num_filter=2, name='conv4_1')
    net = mx.sym.Group([mx.sym.SoftmaxActivation(logits, mode='channel', name='prob1'),
                        mx.sym.SoftmaxActivation(logits, name='prob_instance'), logits])
    rs = np.random.RandomState(0)
    arg_shapes, _, _ = net.infer_shape(data=(2, 3, 12, 11))
    args = {n: nd.array(rs.uniform(-1, 1, s)) for n, s in zip(net.list_arguments(), arg_shapes)}
    ex = net.bind(mx.cpu(), args)
    channel, instance, z = [o.asnumpy() for o in ex.forward()]
    assert z.shape == (2, 2, 5, 5)  # 'full' rounds the pooled size up: ceil((10 - 2) / 2) + 1
    e = np.exp(z - z.max(axis=1, keepdims=True))
    np.testing.assert_allclose(channel, e / e.sum(axis=1, keepdims=True), rtol=1e-5, atol=1e-7)
    flat = z.reshape(2, -1)
    e = np.exp(flat - flat.max(axis=1, keepdims=True))
    np.testing.assert_allclose(instance, (e / e.sum(axis=1, keepdims=True)).reshape(z.shape), rtol=1e-5, atol=1e-7)


def test_bind_without_a_gradient_array_leaves_that_argument_out():
    """As MXNet: args_grad without an entry means grad_req null for it (concat and stack backward
    then skip that input)."""
    for op in ("concat", "stack"):
        a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
        out = getattr(mx.sym, op)(a, b)
        x, y = mx.nd.ones((2, 3)), mx.nd.ones((2, 3)) * 2
        gb = mx.nd.zeros((2, 3))
        ex = out.bind(mx.cpu(), args={"a": x, "b": y}, args_grad={"b": gb})
        ex.forward(is_train=True)
        ex.backward([mx.nd.ones(ex.outputs[0].shape) * 3])
        np.testing.assert_array_equal(gb.asnumpy(), np.full((2, 3), 3.0))
        assert ex.grad_dict.get("a") is None


def test_a_fused_chain_of_zero_gradient_ops_after_an_undifferentiated_reduction():
    # logical_not(sum(a) < 0.5): a fused chain whose input nothing differentiates; a gets zeros
    a, b = mx.sym.var("a"), mx.sym.var("b")
    out = mx.sym.broadcast_mul(mx.sym.logical_not(mx.sym.sum(a) < 0.5), b)
    grads = {"a": mx.nd.full((3,), 7), "b": mx.nd.zeros(3)}
    exe = out.bind(mx.cpu(), args={"a": mx.nd.ones(3), "b": mx.nd.array([1, 2, 3])}, args_grad=grads)
    exe.forward(is_train=True)
    exe.backward([mx.nd.array([1, 1, 2])])
    assert grads["a"].asnumpy().tolist() == [0, 0, 0]
    assert grads["b"].asnumpy().tolist() == [1, 1, 2]


def test_gen_atomic_symbol_keeps_the_operator_and_its_attributes():
    s = mx.sym.RNN(mx.sym.var("d"), mx.sym.var("p"), mx.sym.var("h0"), mx.sym.var("h1"), state_size=10,
                   num_layers=2, bidirectional=True, state_outputs=True, mode="lstm", name="lstm")
    atomic = s._gen_atomic_symbol()
    assert len(atomic.list_outputs()) == 3
    assert atomic[0].attr("mode") == "lstm" and atomic[0].attr("state_size") == "10"
    assert all(name not in ("d", "p", "h0", "h1") for name in atomic.list_arguments())
    with pytest.raises(mx.base.MXNetError, match="one operator node"):
        mx.sym.var("x")._gen_atomic_symbol()
