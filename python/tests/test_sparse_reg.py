"""IdentityAttachKLSparseReg against a NumPy reference: the identity forward, the moving average
kept by backward and the KL sparsity penalty added to the gradient, imperatively and in a bound
graph, over several steps."""
import numpy as np
import pytest

import braid as mx

TARGET, PENALTY, MOMENTUM = 0.2, 0.01, 0.8


def _reference_steps(batches, heads):
    """The moving averages and input gradients NumPy computes for each step."""
    avg = np.zeros(batches[0].shape[1])
    averages, grads = [], []
    for x, g in zip(batches, heads):
        avg = MOMENTUM * avg + (1 - MOMENTUM) * x.mean(axis=0)
        averages.append(avg.copy())
        grads.append(g + PENALTY * (-TARGET / avg + (1 - TARGET) / (1 - avg)))
    return averages, grads


def _batches(steps=3, shape=(5, 4)):
    rng = np.random.RandomState(0)
    return [rng.uniform(0.05, 0.95, shape) for _ in range(steps)], [rng.uniform(-1, 1, shape) for _ in range(steps)]


def test_imperative_steps_match_numpy():
    batches, heads = _batches()
    averages, grads = _reference_steps(batches, heads)
    moving_avg = mx.nd.zeros((4,), dtype="float64")
    for x, g, avg, grad in zip(batches, heads, averages, grads):
        data = mx.nd.array(x, dtype="float64")
        data.attach_grad()
        with mx.autograd.record():
            out = mx.nd.IdentityAttachKLSparseReg(data, moving_avg, sparseness_target=TARGET, penalty=PENALTY,
                                                  momentum=MOMENTUM)
        np.testing.assert_array_equal(out.asnumpy(), x)
        out.backward(mx.nd.array(g, dtype="float64"))
        np.testing.assert_allclose(moving_avg.asnumpy(), avg, rtol=1e-12)
        np.testing.assert_allclose(data.grad.asnumpy(), grad, rtol=1e-12)


def test_a_bound_graph_updates_its_moving_average_aux_state():
    batches, heads = _batches()
    averages, grads = _reference_steps(batches, heads)
    net = mx.sym.IdentityAttachKLSparseReg(mx.sym.var("data"), sparseness_target=TARGET, penalty=PENALTY,
                                           momentum=MOMENTUM, name="reg")
    assert net.list_auxiliary_states() == ["reg_moving_avg"]
    exe = net.simple_bind(mx.cpu(), data=(5, 4), type_dict={"data": "float64"})
    exe.aux_dict["reg_moving_avg"][:] = 0
    for x, g, avg, grad in zip(batches, heads, averages, grads):
        exe.forward(is_train=True, data=mx.nd.array(x, dtype="float64"))
        exe.backward(mx.nd.array(g, dtype="float64"))
        np.testing.assert_allclose(exe.aux_dict["reg_moving_avg"].asnumpy(), avg, rtol=1e-12)
        np.testing.assert_allclose(exe.grad_dict["data"].asnumpy(), grad, rtol=1e-12)


def test_bad_attributes_are_named():
    with pytest.raises(mx.MXNetError, match="sparseness_target"):
        mx.nd.IdentityAttachKLSparseReg(mx.nd.ones((2, 3)), mx.nd.zeros((3,)), sparseness_target=1.5)
    with pytest.raises(mx.MXNetError, match="feature axis"):
        mx.nd.IdentityAttachKLSparseReg(mx.nd.ones((3,)), mx.nd.zeros((3,)))
