"""mx.contrib.svrg_optimization: the SVRG step against the formula computed with NumPy, the full
gradient over one and two devices, convergence through fit, and the optimizer's dispatch."""
import numpy as np
import pytest

import braid as mx
from braid.contrib.svrg_optimization import SVRGModule
from braid.contrib.svrg_optimization.svrg_optimizer import _SVRGOptimizer

LR = 0.01


def _regression(features, labels, batch_size, context=None, update_freq=2, with_optimizer=True):
    """A linear regression SVRGModule over the data, weights 0.5 and bias 0 (an initializer's
    rule for biases), SGD at LR."""
    data = mx.io.NDArrayIter(features, labels, batch_size=batch_size, shuffle=False, label_name="y")
    out = mx.sym.LinearRegressionOutput(
        mx.sym.FullyConnected(mx.sym.var("data"), name="fc", num_hidden=1), mx.sym.var("y"), name="lro")
    mod = SVRGModule(out, data_names=["data"], label_names=["y"], context=context or mx.cpu(),
                     update_freq=update_freq)
    mod.bind(data_shapes=data.provide_data, label_shapes=data.provide_label)
    mod.init_params(initializer=mx.init.Constant(0.5))
    if with_optimizer:
        mod.init_optimizer(kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", LR),))
    return data, mod


def _gradient(w, b, x, y):
    """(dw, db) of LinearRegressionOutput summed over the batch (MXNet's unnormalized gradient)."""
    err = x @ w.T + b - y.reshape(-1, 1)
    return err.T @ x, err.sum(axis=0)


def _features(rows, seed=3):
    rng = np.random.RandomState(seed)
    x = rng.randint(1, 5, (rows, 2)).astype(np.float32)
    return x, (x @ np.array([1.0, 2.0], np.float32)).astype(np.float32)


def test_each_step_descends_along_the_variance_reduced_gradient():
    x, y = _features(8)
    data, mod = _regression(x, y, batch_size=4)
    mod.update_full_grads(data)
    w0, b0 = np.full((1, 2), 0.5), np.zeros(1)
    batches = [(x[:4], y[:4]), (x[4:], y[4:])]
    full = [sum(g) / 2 for g in zip(*(_gradient(w0, b0, bx, by) for bx, by in batches))]
    np.testing.assert_allclose(mod._param_dict[0]["fc_weight"].asnumpy(), full[0], rtol=1e-6)
    np.testing.assert_allclose(mod._param_dict[0]["fc_bias"].asnumpy(), full[1], rtol=1e-6)

    w, b = w0.copy(), b0.copy()
    for batch, (bx, by) in zip(data, batches):
        mod.forward_backward(batch)
        mod.update()
        now, snap = _gradient(w, b, bx, by), _gradient(w0, b0, bx, by)
        w = w - LR / 4 * (now[0] - snap[0] + full[0])
        b = b - LR / 4 * (now[1] - snap[1] + full[1])
        arg, _ = mod.get_params()
        np.testing.assert_allclose(arg["fc_weight"].asnumpy(), w, rtol=1e-5)
        np.testing.assert_allclose(arg["fc_bias"].asnumpy(), b, rtol=1e-5)


def test_two_devices_hold_halves_of_the_one_device_full_gradient():
    x, y = _features(16)
    one_data, one = _regression(x, y, batch_size=8)
    two_data, two = _regression(x, y, batch_size=8, context=[mx.cpu(0), mx.cpu(1)])
    assert two._kvstore is not None  # the devices' sums meet in the store's "<name>_full" keys
    one.update_full_grads(one_data)
    two.update_full_grads(two_data)
    # Each device's gradient is summed with the other's before the step: together they must
    # make the one-device full gradient.
    for name in ("fc_weight", "fc_bias"):
        for device in range(2):
            np.testing.assert_allclose(two._param_dict[device][name].asnumpy() * 2,
                                       one._param_dict[0][name].asnumpy(), rtol=1e-5)


def test_fit_converges_and_takes_a_snapshot_every_update_freq_epochs():
    x, y = _features(1024)
    data, mod = _regression(x, y, batch_size=32, update_freq=2, with_optimizer=False)
    snapshots = []
    take = mod.update_full_grads
    mod.update_full_grads = lambda d: (snapshots.append(1), take(d))
    metric = mx.metric.create("mse")
    mod.fit(data, eval_metric=metric, optimizer="sgd", optimizer_params=(("learning_rate", 0.025),), num_epoch=100,
            kvstore="local", force_init=True)
    assert len(snapshots) == 50
    assert metric.get()[1] < 1e-5
    np.testing.assert_allclose(mod.get_params()[0]["fc_weight"].asnumpy(), [[1.0, 2.0]], atol=1e-3)


def test_the_store_assigns_full_gradients_and_optimizes_weights():
    optimizer = _SVRGOptimizer(default_optimizer="sgd", learning_rate=1.0,
                               param_idx2name={0: "w", 1: "w_full"})
    assert optimizer.default_opt.lr == 1.0
    kv = mx.kv.create("local")
    kv.set_optimizer(optimizer)
    kv.init(0, mx.nd.zeros(3))
    kv.init(1, mx.nd.ones(3))
    kv.push(0, mx.nd.ones(3))
    kv.push(1, [mx.nd.full((3,), 2.0), mx.nd.full((3,), 3.0)])
    w, full = mx.nd.zeros(3), mx.nd.zeros(3)
    kv.pull(0, out=w)
    kv.pull(1, out=full)
    assert w.asnumpy().tolist() == [-1.0] * 3  # SGD: 0 - 1.0 * 1
    assert full.asnumpy().tolist() == [5.0] * 3  # assigned the sum of the push


@pytest.mark.parametrize("freq,error", [(None, TypeError), (1.5, TypeError), (True, TypeError), (0, ValueError)])
def test_update_freq_must_be_a_positive_int(freq, error):
    with pytest.raises(error, match="update_freq"):
        SVRGModule(mx.sym.var("data"), data_names=["data"], label_names=None, update_freq=freq)
