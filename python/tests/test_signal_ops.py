"""contrib.fft, contrib.ifft and contrib.count_sketch against NumPy: values and gradients."""
import numpy as np

import braid as mx


def _interleaved(z):
    out = np.empty(z.shape[:-1] + (2 * z.shape[-1],))
    out[..., 0::2], out[..., 1::2] = z.real, z.imag
    return out


def test_fft_is_numpys_transform_with_re_im_interleaved():
    x = np.random.RandomState(0).uniform(-1, 1, (3, 7))
    y = mx.nd.contrib.fft(mx.nd.array(x, dtype="float64")).asnumpy()
    np.testing.assert_allclose(y, _interleaved(np.fft.fft(x)), rtol=1e-10, atol=1e-10)


def test_ifft_is_the_unnormalized_inverse_real_part():
    z = np.random.RandomState(1).uniform(-1, 1, (2, 3, 6)) + 1j * np.random.RandomState(2).uniform(-1, 1, (2, 3, 6))
    y = mx.nd.contrib.ifft(mx.nd.array(_interleaved(z), dtype="float64")).asnumpy()
    np.testing.assert_allclose(y, (np.fft.ifft(z) * 6).real, rtol=1e-10, atol=1e-10)
    x = np.random.RandomState(3).uniform(-1, 1, (4, 5))
    back = mx.nd.contrib.ifft(mx.nd.contrib.fft(mx.nd.array(x, dtype="float64"))).asnumpy()
    np.testing.assert_allclose(back, 5 * x, rtol=1e-10, atol=1e-10)


def test_fft_gradient_is_the_adjoint():
    rng = np.random.RandomState(4)
    x, g = rng.uniform(-1, 1, (2, 6)), rng.uniform(-1, 1, (2, 12))
    a = mx.nd.array(x, dtype="float64")
    a.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.fft(a)
    y.backward(mx.nd.array(g, dtype="float64"))
    gz = g[:, 0::2] + 1j * g[:, 1::2]
    # d/dx Σ g·(re, im) of F x = Re(F^H g): the unnormalized inverse transform
    np.testing.assert_allclose(a.grad.asnumpy(), (np.fft.ifft(gz) * 6).real, rtol=1e-10, atol=1e-10)


def test_count_sketch_as_mxnets_documentation():
    x = mx.nd.array([[1.2, 2.5, 3.4], [3.2, 5.7, 6.6]])
    h, s = mx.nd.array([[0, 3, 4]]), mx.nd.array([[1, -1, 1]])
    y = mx.nd.contrib.count_sketch(data=x, h=h, s=s, out_dim=5)
    np.testing.assert_allclose(y.asnumpy(), [[1.2, 0, 0, -2.5, 3.4], [3.2, 0, 0, -5.7, 6.6]], rtol=1e-6)
    x.attach_grad()
    with mx.autograd.record():
        y = mx.nd.contrib.count_sketch(data=x, h=h, s=s, out_dim=5)
    y.backward(mx.nd.array([[1, 2, 3, 4, 5], [6, 7, 8, 9, 10]]))
    np.testing.assert_allclose(x.grad.asnumpy(), [[1, -4, 5], [6, -9, 10]])
    try:
        mx.nd.contrib.count_sketch(data=x, h=mx.nd.array([[0, 5, 1]]), s=s, out_dim=5).wait_to_read()
    except mx.base.MXNetError as e:
        assert "h[1] = 5" in str(e)
    else:
        raise AssertionError("an index outside out_dim was accepted")
