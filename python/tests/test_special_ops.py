"""Element-wise special functions and small activations against SciPy/NumPy (Debian's python3-scipy):
gamma, gammaln, erf, erfinv, softsign, hard_sigmoid, smooth_l1 and logical_not, forward and
gradient, in float64 and float32."""
import numpy as np
import pytest
from scipy import special

import braid as mx


def _value_and_grad(op, x, dtype, **attrs):
    a = mx.nd.array(x, dtype=dtype)
    a.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd, op)(a, **attrs)
    y.backward()
    return y.asnumpy(), a.grad.asnumpy()


CASES = {
    # name: (input range, f, f')
    "gamma": ((0.2, 4.5), special.gamma, lambda x: special.gamma(x) * special.psi(x)),
    "gammaln": ((0.2, 9.0), special.gammaln, special.psi),
    "erf": ((-3.0, 3.0), special.erf, lambda x: 2 / np.sqrt(np.pi) * np.exp(-x * x)),
    "erfinv": ((-0.999, 0.999), special.erfinv, lambda x: np.sqrt(np.pi) / 2 * np.exp(special.erfinv(x) ** 2)),
    "softsign": ((-4.0, 4.0), lambda x: x / (1 + np.abs(x)), lambda x: 1 / (1 + np.abs(x)) ** 2),
}


@pytest.mark.parametrize("op", sorted(CASES))
@pytest.mark.parametrize("dtype,rtol", [("float64", 1e-10), ("float32", 2e-5)])
def test_special_function_and_its_derivative(op, dtype, rtol):
    (lo, hi), f, df = CASES[op]
    x = np.random.RandomState(3).uniform(lo, hi, size=(7, 9)).astype(dtype)
    y, dy = _value_and_grad(op, x, dtype)
    ref = x.astype(np.float64)
    np.testing.assert_allclose(y, f(ref), rtol=rtol, atol=1e-12)
    np.testing.assert_allclose(dy, df(ref), rtol=max(rtol, 1e-8) * 10, atol=1e-10)


def test_gamma_at_negative_non_integers_and_poles():
    x = np.array([-0.5, -1.5, -2.7, 0.5, 7.0])
    y, dy = _value_and_grad("gamma", x, "float64")
    np.testing.assert_allclose(y, special.gamma(x), rtol=1e-12)
    np.testing.assert_allclose(dy, special.gamma(x) * special.psi(x), rtol=1e-9)
    assert np.isinf(mx.nd.gamma(mx.nd.array([0.0], dtype="float64")).asnumpy()[0])


def test_erfinv_edges():
    y = mx.nd.erfinv(mx.nd.array([-1.0, 0.0, 1.0, 1.5], dtype="float64")).asnumpy()
    assert y[0] == -np.inf and y[1] == 0 and y[2] == np.inf and np.isnan(y[3])


def test_hard_sigmoid_forward_and_gradient():
    x = np.linspace(-4, 4, 33)
    for alpha, beta in [(0.2, 0.5), (0.7, 0.1)]:
        y, dy = _value_and_grad("hard_sigmoid", x, "float64", alpha=alpha, beta=beta)
        lin = alpha * x + beta
        np.testing.assert_allclose(y, np.clip(lin, 0, 1), rtol=1e-12)
        np.testing.assert_allclose(dy, np.where((lin > 0) & (lin < 1), alpha, 0.0))


def test_smooth_l1_forward_and_gradient():
    x = np.linspace(-2, 2, 41)
    for sigma in [1.0, 2.0]:
        y, dy = _value_and_grad("smooth_l1", x, "float64", scalar=sigma)
        quad = np.abs(x) < 1 / sigma**2
        np.testing.assert_allclose(y, np.where(quad, 0.5 * (sigma * x) ** 2, np.abs(x) - 0.5 / sigma**2))
        np.testing.assert_allclose(dy, np.where(quad, sigma**2 * x, np.sign(x)))
    # MXNet's scalar defaults to 1
    np.testing.assert_allclose(mx.nd.smooth_l1(mx.nd.array([0.5, 3.0])).asnumpy(), [0.125, 2.5])


def test_logical_not_keeps_the_dtype():
    for dtype in ["float32", "int32", "uint8"]:
        x = np.array([0, 1, 2, 0], dtype=dtype)
        y = mx.nd.logical_not(mx.nd.array(x, dtype=dtype))
        assert y.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(y.asnumpy(), np.logical_not(x).astype(dtype))


def test_contrib_quadratic_and_div_sqrt_dim():
    x = np.random.RandomState(5).randn(3, 4, 9)
    y, dy = _value_and_grad_contrib("quadratic", x, a=0.5, b=-2.0, c=3.0)
    np.testing.assert_allclose(y, 0.5 * x * x - 2 * x + 3, rtol=1e-12)
    np.testing.assert_allclose(dy, x - 2, rtol=1e-12)
    y, dy = _value_and_grad_contrib("div_sqrt_dim", x)
    np.testing.assert_allclose(y, x / 3.0, rtol=1e-12)
    np.testing.assert_allclose(dy, np.full(x.shape, 1 / 3.0), rtol=1e-12)


def _value_and_grad_contrib(op, x, **attrs):
    a = mx.nd.array(x, dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        y = getattr(mx.nd.contrib, op)(a, **attrs)
    y.backward()
    return y.asnumpy(), a.grad.asnumpy()


def test_contrib_allclose_is_numpys_allclose():
    a = np.array([1.0, 2.0, np.nan])
    for b, equal_nan in [(a + 1e-9, True), (a + 1e-3, True), (a, False)]:
        out = mx.nd.contrib.allclose(mx.nd.array(a, dtype="float64"), mx.nd.array(b, dtype="float64"),
                                     rtol=1e-5, atol=1e-8, equal_nan=equal_nan)
        assert out.shape == () and out.dtype == np.int32
        assert int(out.asnumpy()) == int(np.allclose(a, b, rtol=1e-5, atol=1e-8, equal_nan=equal_nan))


def test_contrib_index_array():
    x = mx.nd.zeros((2, 3, 4))
    expected = np.stack(np.mgrid[0:2, 0:3, 0:4], axis=-1)
    np.testing.assert_array_equal(mx.nd.contrib.index_array(x).asnumpy(), expected)
    np.testing.assert_array_equal(mx.nd.contrib.index_array(x, axes=(2, 0)).asnumpy(), expected[..., [2, 0]])
