"""autograd.grad(create_graph=True): gradients that are recorded and differentiated again,
against analytic derivatives computed with NumPy."""
import numpy as np
import pytest

from braid import autograd, nd
from braid.base import MXNetError
from braid.test_utils import assert_almost_equal

A = np.random.RandomState(0).uniform(0.3, 2.0, (3, 4)).astype(np.float32)


def nth_derivative(op, order):
    x = nd.array(A)
    x.attach_grad()
    with autograd.record():
        y = op(x)
        for _ in range(order):
            (y,) = autograd.grad(y, [x], head_grads=nd.ones(A.shape), create_graph=True)
    return y


@pytest.mark.parametrize("op, second, third", [
    (nd.sin, lambda a: -np.sin(a), lambda a: -np.cos(a)),
    (nd.exp, np.exp, np.exp),
    (nd.log, lambda a: -1 / a ** 2, lambda a: 2 / a ** 3),
    (nd.sigmoid, lambda a: (s := 1 / (1 + np.exp(-a))) * (1 - s) * (1 - 2 * s), None),
    (lambda x: x * x * x, lambda a: 6 * a, lambda a: np.full_like(a, 6)),
])
def test_second_and_third_derivatives(op, second, third):
    assert_almost_equal(nth_derivative(op, 2), second(A), rtol=1e-4, atol=1e-5)
    if third is not None:
        assert_almost_equal(nth_derivative(op, 3), third(A), rtol=1e-4, atol=1e-5)


def test_piecewise_linear_ops_have_zero_second_derivative():
    for op in (nd.relu, nd.abs, lambda x: nd.clip(x, 0.5, 1.5)):
        assert_almost_equal(nth_derivative(op, 2), np.zeros_like(A))


def test_gradient_then_backward_mxnet_example():
    x = nd.ones((1,))
    x.attach_grad()
    with autograd.record():
        z = nd.elemwise_add(nd.exp(x), x)
    (dx,) = autograd.grad(z, [x], create_graph=True)
    assert abs(dx.asscalar() - (np.e + 1)) < 1e-5
    dx.backward()
    assert abs(x.grad.asscalar() - np.e) < 1e-5


def test_fully_connected_mixed_second_derivative():
    rng = np.random.RandomState(1)
    xa, wa, ga = rng.randn(2, 3).astype(np.float32), rng.randn(4, 3).astype(np.float32), rng.randn(2, 4).astype(np.float32)
    x, w, b = nd.array(xa), nd.array(wa), nd.zeros((4,))
    for v in (x, w, b):
        v.attach_grad()
    with autograd.record():
        y = nd.FullyConnected(x, w, b, num_hidden=4)
        (x_grad,) = autograd.grad(y, [x], head_grads=nd.array(ga), create_graph=True, retain_graph=True)
        head = rng.randn(2, 3).astype(np.float32)
        (w_grad_grad,) = autograd.grad(x_grad, [w], head_grads=nd.array(head))
    assert_almost_equal(x_grad, ga @ wa, rtol=1e-5)
    assert_almost_equal(w_grad_grad, ga.T @ head, rtol=1e-5)


def test_an_op_without_a_higher_order_gradient_says_so():
    x = nd.array(A)
    x.attach_grad()
    with autograd.record():
        y = nd.softmax(x)
        (g,) = autograd.grad(y, [x], head_grads=nd.array(A), create_graph=True)
    with pytest.raises(MXNetError, match="softmax"):
        g.backward()


def test_inverse_hyperbolic_second_derivatives_are_mxnets():
    """MXNet 1.9 differentiates arcsinh's and arccosh's gradients to +x·f'(x)³, the opposite sign
    of the true second derivative (its test_higher_order_grad checks that value); Braid gives
    MXNet's. The first derivatives are the true ones."""
    b = A + 1.5  # inside arccosh's domain
    assert_almost_equal(nth_derivative(nd.arcsinh, 1), 1 / np.sqrt(A ** 2 + 1), rtol=1e-4, atol=1e-5)
    assert_almost_equal(nth_derivative(nd.arcsinh, 2), A / (A ** 2 + 1) ** 1.5, rtol=1e-4, atol=1e-5)
    x = nd.array(b)
    x.attach_grad()
    with autograd.record():
        (g,) = autograd.grad(nd.arccosh(x), [x], head_grads=nd.ones(b.shape), create_graph=True)
    assert_almost_equal(g, 1 / np.sqrt(b ** 2 - 1), rtol=1e-4, atol=1e-5)
    g.backward()
    assert_almost_equal(x.grad, b / (b ** 2 - 1) ** 1.5, rtol=1e-4, atol=1e-5)
