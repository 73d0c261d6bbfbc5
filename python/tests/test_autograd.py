"""autograd against analytic gradients computed with NumPy."""
import json

import numpy as np

import braid as mx
from braid import autograd, nd
from braid.test_utils import assert_almost_equal


def test_gradient_of_a_composite_function():
    a = np.random.RandomState(0).uniform(0.5, 2, (3, 4)).astype(np.float32)
    x = nd.array(a)
    x.attach_grad()
    with autograd.record():
        y = nd.sum(nd.log(x) * x + x ** 2)
    y.backward()
    assert_almost_equal(x.grad, np.log(a) + 1 + 2 * a, rtol=1e-5)


def test_head_gradient_and_grad_req_add():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = nd.array(a)
    x.attach_grad(grad_req="add")
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward(nd.ones((2, 3)) * 2)
    assert_almost_equal(x.grad, np.full((2, 3), 12.0))


def test_autograd_grad_and_modes():
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad()
    assert not autograd.is_recording()
    with autograd.record():
        assert autograd.is_recording() and autograd.is_training()
        y = x * x
        with autograd.pause():
            assert not autograd.is_recording()
    (g,) = autograd.grad([y], [x], head_grads=[nd.ones((3,))])
    assert_almost_equal(g, [2.0, 4.0, 6.0])
    with autograd.predict_mode():
        assert not autograd.is_training()


def test_dropout_follows_the_training_mode():
    x = nd.ones((1000,))
    with autograd.record(train_mode=True):
        dropped = nd.Dropout(x, p=0.5)
    with autograd.record(train_mode=False):
        kept = nd.Dropout(x, p=0.5)
    assert 300 < (dropped.asnumpy() == 0).sum() < 700
    assert_almost_equal(kept, np.ones(1000))


def test_matrix_gradient_matches_finite_differences():
    rs = np.random.RandomState(3)
    a, w = rs.randn(4, 5).astype(np.float64), rs.randn(5, 2).astype(np.float64)
    x = nd.array(a, dtype="float64")
    x.attach_grad()
    with autograd.record():
        loss = nd.sum(nd.tanh(nd.dot(x, nd.array(w, dtype="float64"))))
    loss.backward()

    def f(m):
        return np.tanh(m @ w).sum()

    eps, numeric = 1e-6, np.zeros_like(a)
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            d = np.zeros_like(a)
            d[i, j] = eps
            numeric[i, j] = (f(a + d) - f(a - d)) / (2 * eps)
    assert_almost_equal(x.grad, numeric, rtol=1e-6, atol=1e-8)


class Sigmoid(autograd.Function):
    """MXNet's documentation example of a custom Function."""

    def forward(self, x):
        y = 1 / (1 + nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


class ScaledSum(autograd.Function):
    """Two inputs, two outputs; no gradient for the second input."""

    def forward(self, a, b):
        return a + b, a * 2

    def backward(self, d_sum, d_double):
        return d_sum + 2 * d_double, None


def test_custom_function_gradients():
    a = np.array([-2.0, 0.0, 1.5], dtype=np.float32)
    x = nd.array(a)
    x.attach_grad()
    with autograd.record():
        y = Sigmoid()(x)
        z = (y * 3).sum()
    z.backward()
    s = 1 / (1 + np.exp(-a))
    assert_almost_equal(y, s, rtol=1e-6)
    assert_almost_equal(x.grad, 3 * s * (1 - s), rtol=1e-5)

    p, q = nd.array([1.0, 2.0]), nd.array([5.0, 7.0])
    p.attach_grad()
    q.attach_grad()
    with autograd.record():
        total, double = ScaledSum()(p, q)
        loss = (total * total).sum() + double.sum()
    loss.backward()
    # d/dp = 2 (p + q) + 2, and q's gradient is declared absent: it stays zero
    assert_almost_equal(p.grad, 2 * (np.array([1, 2]) + np.array([5, 7])) + 2)
    assert_almost_equal(q.grad, np.zeros(2))


def test_get_symbol_gives_the_recorded_graph():
    x = mx.nd.array([1.0, -2.0, 3.0])
    z = mx.nd.array([0.5, 0.5, 0.5])
    x.attach_grad()
    z.attach_grad()
    with mx.autograd.record():
        y = mx.nd.relu(x * 2) + z
    sym = mx.autograd.get_symbol(y)
    assert sym.list_arguments() == ["var0", "var1"]
    exe = sym.bind(mx.cpu(), {"var0": x, "var1": z})
    np.testing.assert_array_equal(exe.forward()[0].asnumpy(), y.asnumpy())
    assert [n["op"] for n in json.loads(sym.tojson())["nodes"]] == ["null", "_mul_scalar", "relu", "null",
                                                                     "elemwise_add"]


def test_reductions_of_integer_arrays_have_gradients():
    # as MXNet: sum, mean and max take integer arrays forward and backward
    for op, expected in [("sum", [[1, 1], [1, 1]]), ("max", [[0, 0], [0, 1]])]:
        a = mx.nd.array([[1, 2], [3, 4]], dtype="int32")
        a.attach_grad()
        with mx.autograd.record():
            out = getattr(a, op)()
        out.backward()
        assert a.grad.dtype == np.int32
        assert a.grad.asnumpy().tolist() == expected


def test_the_remainder_of_integers_has_no_gradient_as_in_mxnet():
    a, b = mx.sym.var('a'), mx.sym.var('b')
    av, bv = np.array([[7.0, -5.0, 9.0]]), np.array([[2.0], [4.0]])
    for dtype, grad_a, grad_b in [('int32', 0, 0), ('float32', 1, None)]:
        c = mx.sym.broadcast_mod(mx.sym.cast(a, dtype=dtype), mx.sym.cast(b, dtype=dtype))
        ga, gb = mx.nd.zeros(av.shape) + 9, mx.nd.zeros(bv.shape) + 9
        exe = c.bind(mx.cpu(), {'a': mx.nd.array(av), 'b': mx.nd.array(bv)}, args_grad={'a': ga, 'b': gb})
        exe.forward(is_train=True)
        exe.backward(mx.nd.ones((2, 3), dtype=dtype))
        assert np.array_equal(ga.asnumpy(), np.full(av.shape, 2.0 * grad_a))  # two rows of b reach each a
        expected_b = np.zeros(bv.shape) if grad_b is not None else -np.floor(av / bv).sum(axis=1, keepdims=True)
        assert np.array_equal(gb.asnumpy(), expected_b)
