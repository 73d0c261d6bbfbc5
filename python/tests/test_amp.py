"""mx.contrib.amp: the casts AMP puts before each operator, gradients through them, dynamic loss
scaling with a Gluon Trainer (skipped steps on overflow), multi_all_finite, and float16 arrays
on operators that compute in float32."""
import numpy as np
import pytest

import mxnet as mx
from mxnet import autograd, gluon
from mxnet.contrib import amp


@pytest.fixture
def amp_on():
    amp.init("float16")
    yield
    amp.amp._reset()


def test_float16_arrays_compute_like_numpy_float16():
    a = np.array([0.1, 1.5, -2.25, 3.0], dtype=np.float16)
    got = (mx.nd.array(a, dtype="float16") * 3 + 1).asnumpy()
    assert got.dtype == np.float16
    want = (a.astype(np.float32) * 3).astype(np.float16).astype(np.float32) + 1
    np.testing.assert_array_equal(got, want.astype(np.float16))
    np.testing.assert_array_equal(mx.nd.exp(mx.nd.array(a, dtype="float16")).asnumpy(),
                                  np.exp(a.astype(np.float32)).astype(np.float16))


def test_multi_all_finite():
    ok = [mx.nd.ones((3,)), mx.nd.array([1, 2], dtype="float16")]
    assert mx.nd.multi_all_finite(*ok, num_arrays=2).asnumpy().tolist() == [1.0]
    bad = ok + [mx.nd.array([1, np.inf], dtype="float16")]
    assert mx.nd.multi_all_finite(*bad, num_arrays=3).asnumpy().tolist() == [0.0]
    assert mx.nd.all_finite(mx.nd.array([np.nan])).asnumpy().tolist() == [0.0]
    out = mx.nd.zeros((1,))
    mx.nd.multi_all_finite(*ok, num_arrays=2, init_output=False, out=out)
    assert out.asnumpy().tolist() == [0.0]  # starts from the 0 already there


def test_amp_casts_by_operator_category(amp_on):
    x, w, b = mx.nd.ones((2, 3)), mx.nd.ones((4, 3)), mx.nd.zeros((4,))
    y = mx.nd.FullyConnected(x, w, b, num_hidden=4)
    assert y.dtype == np.float16  # a target-dtype op
    assert mx.nd.softmax(y).dtype == np.float32  # a float32 op
    assert (y + mx.nd.ones((2, 4))).dtype == np.float32  # widest type of float16 and float32
    assert mx.nd.relu(y).dtype == np.float16  # runs in its input's dtype
    assert mx.nd.Activation(y, act_type="softrelu").dtype == np.float32  # conditional float32
    assert mx.nd.FullyConnected(x.astype("float64"), w.astype("float64"), b.astype("float64"),
                                num_hidden=4).dtype == np.float64  # float64 is left alone
    assert amp.list_lp16_ops("float16") == ["Convolution", "Deconvolution", "FullyConnected", "RNN"]


def test_gradients_reach_float32_weights_through_the_casts(amp_on):
    rng = np.random.RandomState(0)
    x_np, w_np = rng.uniform(-1, 1, (5, 3)).astype(np.float32), rng.uniform(-1, 1, (2, 3)).astype(np.float32)
    w = mx.nd.array(w_np)
    w.attach_grad()
    with autograd.record():
        y = mx.nd.FullyConnected(mx.nd.array(x_np), w, no_bias=True, num_hidden=2)
        loss = mx.nd.sum(y)
    loss.backward()
    assert w.grad.dtype == np.float32
    # d sum(x w^T) / dw = column sums of x, computed in float16 and cast back
    want = x_np.astype(np.float16).astype(np.float32).sum(axis=0)
    np.testing.assert_allclose(w.grad.asnumpy(), np.tile(want, (2, 1)), rtol=2e-3)


def _dense_trainer():
    net = gluon.nn.Dense(2, in_units=3, use_bias=False)  # a bias gradient of 2**16 would overflow
    net.initialize(mx.init.Constant(0.5))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    return net, trainer


def test_loss_scaling_gives_the_unscaled_update_and_skips_overflowed_steps(amp_on):
    x = mx.nd.array([[0.5, 0.25, -0.75]])  # scaled by 2**16, the gradients stay below float16's 65504
    plain_net, plain_trainer = _dense_trainer()
    with autograd.record():
        plain_loss = mx.nd.sum(plain_net(x))
    plain_loss.backward()
    plain_trainer.step(1)

    net, trainer = _dense_trainer()
    amp.init_trainer(trainer)
    assert trainer._amp_loss_scaler.loss_scale == 2.0 ** 16
    # 2**16 itself overflows float16 (largest 65504): as on MXNet, the first steps are skipped
    # and the scale halves until a step goes through (the scale in use lags the check by one).
    scales = []
    for _ in range(4):
        scales.append(trainer._amp_loss_scaler.loss_scale)
        with autograd.record():
            loss = mx.nd.sum(net(x))
            with amp.scale_loss(loss, trainer) as scaled:
                autograd.backward(scaled)
        trainer.step(1)
        if not np.array_equal(net.weight.data().asnumpy(), np.full((2, 3), 0.5, np.float32)):
            break
    assert scales == [2.0 ** 16, 2.0 ** 16, 2.0 ** 15]
    # Scaling by a power of two is exact: the same update as without it.
    np.testing.assert_array_equal(net.weight.data().asnumpy(), plain_net.weight.data().asnumpy())
    scale = trainer._amp_loss_scaler._next_loss_scale

    before = net.weight.data().asnumpy()
    with autograd.record():
        loss = mx.nd.sum(net(x)) * 1e30  # float32 here, but its gradient overflows float16
        with amp.scale_loss(loss, trainer) as scaled:
            autograd.backward(scaled)
    trainer.step(1)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), before)  # skipped
    assert trainer._amp_loss_scaler._next_loss_scale == scale / 2


def test_init_trainer_needs_init():
    net, trainer = _dense_trainer()
    with pytest.raises(AssertionError, match="amp.init"):
        amp.init_trainer(trainer)


def test_hybridized_block_records_the_casts(amp_on):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, in_units=3), gluon.nn.Dense(2, in_units=4))
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(np.random.RandomState(1).uniform(-1, 1, (5, 3)))
    imperative = net(x).asnumpy()
    net.hybridize()
    hybrid = net(x)
    assert hybrid.dtype == np.float16
    np.testing.assert_array_equal(hybrid.asnumpy(), imperative)
