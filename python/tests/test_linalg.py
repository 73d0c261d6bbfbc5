"""mx.nd.linalg / mx.sym.linalg against NumPy's linalg: products, triangular solves, Cholesky,
LQ, symmetric eigendecomposition, inverse and determinants, the diagonal and triangle packing,
batched, in float64 and float32, and the errors for bad input."""
import numpy as np
import pytest

import braid as mx

rng = np.random.RandomState(11)


def nd(x, dtype="float64"):
    return mx.nd.array(x, dtype=dtype)


def spd(batch, n):
    x = rng.uniform(-1, 1, (batch, n, n))
    return x @ x.transpose(0, 2, 1) + n * np.eye(n)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-12), ("float32", 1e-5)])
def test_gemm_and_gemm2_with_transposes_and_the_rows_axis(dtype, tol):
    a, b, c = rng.randn(2, 4, 3), rng.randn(2, 5, 4), rng.randn(2, 3, 5)
    out = mx.nd.linalg.gemm(nd(a, dtype), nd(b, dtype), nd(c, dtype), transpose_a=True, transpose_b=True,
                            alpha=2.0, beta=-0.5)
    np.testing.assert_allclose(out.asnumpy(), 2 * a.transpose(0, 2, 1) @ b.transpose(0, 2, 1) - 0.5 * c,
                               rtol=tol, atol=tol)
    out = mx.nd.linalg.gemm2(nd(a, dtype), nd(b, dtype), transpose_a=True, transpose_b=True)
    np.testing.assert_allclose(out.asnumpy(), a.transpose(0, 2, 1) @ b.transpose(0, 2, 1), rtol=tol, atol=tol)
    # rows along axis 0, columns along the last axis, batch along axis 1
    a2, b2 = np.swapaxes(a.transpose(0, 2, 1), 0, 1), np.swapaxes(b.transpose(0, 2, 1), 0, 1)
    out = mx.nd.linalg.gemm2(nd(a2, dtype), nd(b2, dtype), axis=0)
    np.testing.assert_allclose(out.asnumpy(), np.swapaxes(a.transpose(0, 2, 1) @ b.transpose(0, 2, 1), 0, 1),
                               rtol=tol, atol=tol)


def test_gemm_shape_errors():
    with pytest.raises(mx.MXNetError, match="columns but op"):
        mx.nd.linalg.gemm2(nd(np.ones((2, 3))), nd(np.ones((2, 3))))
    with pytest.raises(mx.MXNetError, match="batch axes"):
        mx.nd.linalg.gemm2(nd(np.ones((2, 2, 3))), nd(np.ones((3, 3, 2))))


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("rightside", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_trmm_and_trsm(lower, rightside, transpose):
    a = rng.randn(2, 3, 3) + 4 * np.eye(3)
    tri = np.tril(a) if lower else np.triu(a)
    op = tri.transpose(0, 2, 1) if transpose else tri
    b = rng.randn(2, 4, 3) if rightside else rng.randn(2, 3, 4)
    kw = dict(lower=lower, rightside=rightside, transpose=transpose, alpha=1.5)
    prod = mx.nd.linalg.trmm(nd(a), nd(b), **kw).asnumpy()
    np.testing.assert_allclose(prod, 1.5 * (b @ op if rightside else op @ b), rtol=1e-12)
    x = mx.nd.linalg.trsm(nd(a), nd(b), **kw).asnumpy()
    np.testing.assert_allclose(x @ op if rightside else op @ x, 1.5 * b, rtol=1e-10, atol=1e-12)


def test_syrk():
    a = rng.randn(2, 3, 5)
    np.testing.assert_allclose(mx.nd.linalg.syrk(nd(a), alpha=0.5).asnumpy(), 0.5 * a @ a.transpose(0, 2, 1))
    np.testing.assert_allclose(mx.nd.linalg.syrk(nd(a), transpose=True).asnumpy(), a.transpose(0, 2, 1) @ a)


@pytest.mark.parametrize("dtype,tol", [("float64", 1e-10), ("float32", 1e-4)])
def test_potrf_and_potri(dtype, tol):
    a = spd(3, 4)
    low = np.linalg.cholesky(a)
    np.testing.assert_allclose(mx.nd.linalg.potrf(nd(a, dtype)).asnumpy(), low, rtol=tol, atol=tol)
    np.testing.assert_allclose(mx.nd.linalg.potrf(nd(a, dtype), lower=False).asnumpy(), low.transpose(0, 2, 1),
                               rtol=tol, atol=tol)
    inv = np.linalg.inv(a)
    np.testing.assert_allclose(mx.nd.linalg.potri(nd(low, dtype)).asnumpy(), inv, rtol=tol * 10, atol=tol)
    np.testing.assert_allclose(mx.nd.linalg.potri(nd(low.transpose(0, 2, 1), dtype), lower=False).asnumpy(), inv,
                               rtol=tol * 10, atol=tol)


def test_potrf_refuses_a_matrix_that_is_not_positive_definite():
    with pytest.raises(mx.MXNetError, match="not positive definite"):
        mx.nd.linalg.potrf(nd([[1.0, 2.0], [2.0, 1.0]])).asnumpy()


def test_gelqf_matches_mxnets_example_and_factors_any_wide_matrix():
    q, l = mx.nd.linalg.gelqf(nd([[1., 2., 3.], [4., 5., 6.]]))
    np.testing.assert_allclose(q.asnumpy(), [[-0.26726124, -0.53452248, -0.80178373],
                                             [0.87287156, 0.21821789, -0.43643578]], rtol=1e-7)
    np.testing.assert_allclose(l.asnumpy(), [[-3.74165739, 0.], [-8.55235974, 1.96396101]], rtol=1e-7)
    a = rng.randn(3, 4, 6)
    q, l = (x.asnumpy() for x in mx.nd.linalg.gelqf(nd(a)))
    np.testing.assert_allclose(l @ q, a, atol=1e-12)
    np.testing.assert_allclose(q @ q.transpose(0, 2, 1), np.broadcast_to(np.eye(4), (3, 4, 4)), atol=1e-12)
    assert np.all(np.triu(l, 1) == 0)


def test_syevd_eigenvalues_ascending_and_mxnets_sign_rule():
    a = spd(2, 5) - 3 * np.eye(5)
    u, w = (x.asnumpy() for x in mx.nd.linalg.syevd(nd(a)))
    np.testing.assert_allclose(w, np.linalg.eigvalsh(a), rtol=1e-10)
    np.testing.assert_allclose(u @ a, w[..., None] * u, atol=1e-10)  # U A = diag(w) U
    np.testing.assert_allclose(u @ u.transpose(0, 2, 1), np.broadcast_to(np.eye(5), (2, 5, 5)), atol=1e-12)
    for row in u.reshape(-1, 5):
        assert row[np.argmax(np.abs(row))] > 0
    u, w = mx.nd.linalg.syevd(nd([[1., 2.], [2., 4.]]))
    np.testing.assert_allclose(u.asnumpy(), [[0.89442719, -0.4472136], [0.4472136, 0.89442719]], rtol=1e-7)
    np.testing.assert_allclose(w.asnumpy(), [0., 5.], atol=1e-12)


def test_inverse_det_slogdet():
    a = rng.randn(4, 3, 3)
    np.testing.assert_allclose(mx.nd.linalg.inverse(nd(a)).asnumpy(), np.linalg.inv(a), rtol=1e-9)
    np.testing.assert_allclose(mx.nd.linalg.det(nd(a)).asnumpy(), np.linalg.det(a), rtol=1e-10)
    sign, logdet = mx.nd.linalg.slogdet(nd(a))
    ref_sign, ref_logdet = np.linalg.slogdet(a)
    np.testing.assert_array_equal(sign.asnumpy(), ref_sign)
    np.testing.assert_allclose(logdet.asnumpy(), ref_logdet, rtol=1e-10)
    # MXNet's example: a singular matrix has sign 0 and log|det| -inf; a single matrix gives shape (1,)
    sign, logdet = mx.nd.linalg.slogdet(nd([[[2., 3.], [1., 4.]], [[1., 2.], [2., 4.]], [[1., 2.], [4., 3.]]]))
    np.testing.assert_allclose(sign.asnumpy(), [1., 0., -1.])
    np.testing.assert_allclose(logdet.asnumpy(), [np.log(5), -np.inf, np.log(5)])
    assert mx.nd.linalg.det(nd([[1., 4.], [2., 3.]])).shape == (1,)
    with pytest.raises(mx.MXNetError, match="singular"):
        mx.nd.linalg.inverse(nd([[1., 2.], [2., 4.]])).asnumpy()


def test_det_gradient_is_jacobis_formula_and_zero_when_singular():
    a = nd(rng.randn(3, 3) + 2 * np.eye(3))
    a.attach_grad()
    with mx.autograd.record():
        d = mx.nd.linalg.det(a)
    d.backward()
    np.testing.assert_allclose(a.grad.asnumpy(), np.linalg.det(a.asnumpy()) * np.linalg.inv(a.asnumpy()).T,
                               rtol=1e-10)
    s = nd([[1., 2.], [2., 4.]])
    s.attach_grad()
    with mx.autograd.record():
        d = mx.nd.linalg.det(s)
    d.backward()
    assert np.all(s.grad.asnumpy() == 0)


def test_diagonal_and_triangle_packing_as_mxnets_examples():
    a = nd([[1.0, 2.0], [3.0, 4.0]])
    assert mx.nd.linalg.extractdiag(a).asnumpy().tolist() == [1.0, 4.0]
    assert mx.nd.linalg.extractdiag(a, offset=1).asnumpy().tolist() == [2.0]
    assert mx.nd.linalg.extracttrian(a).asnumpy().tolist() == [1.0, 3.0, 4.0]
    assert mx.nd.linalg.extracttrian(a, lower=False).asnumpy().tolist() == [1.0, 2.0, 4.0]
    assert mx.nd.linalg.extracttrian(a, offset=-1).asnumpy().tolist() == [3.0]
    v = nd([1.0, 2.0, 3.0])
    assert mx.nd.linalg.maketrian(v).asnumpy().tolist() == [[1, 0], [2, 3]]
    assert mx.nd.linalg.maketrian(v, lower=False).asnumpy().tolist() == [[1, 2], [0, 3]]
    assert mx.nd.linalg.maketrian(v, offset=1).asnumpy().tolist() == [[0, 1, 2], [0, 0, 3], [0, 0, 0]]
    assert mx.nd.linalg.maketrian(v, offset=-1).asnumpy().tolist() == [[0, 0, 0], [1, 0, 0], [2, 3, 0]]
    assert mx.nd.linalg.makediag(nd([1.0, 2.0]), offset=1).asnumpy().tolist() == [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    batch = rng.randn(3, 4, 4)
    np.testing.assert_array_equal(mx.nd.linalg.extractdiag(nd(batch), offset=-2).asnumpy(),
                                  np.diagonal(batch, offset=-2, axis1=1, axis2=2))
    with pytest.raises(mx.MXNetError, match="triangle"):
        mx.nd.linalg.maketrian(nd([1.0, 2.0]))


def test_sumlogdiag():
    a = spd(3, 4)
    np.testing.assert_allclose(mx.nd.linalg.sumlogdiag(nd(a)).asnumpy(),
                               np.log(np.diagonal(a, axis1=1, axis2=2)).sum(axis=1), rtol=1e-12)


def test_symbolic_linalg_and_shape_inference():
    a, b = mx.sym.Variable("a"), mx.sym.Variable("b")
    out = mx.sym.linalg.gemm2(a, b, transpose_b=True)
    _, shapes, _ = out.infer_shape(a=(2, 3, 4), b=(2, 5, 4))
    assert shapes == [(2, 3, 5)]
    q, l = mx.sym.linalg.gelqf(a)
    _, shapes, _ = mx.sym.Group([q, l]).infer_shape(a=(2, 3, 5))
    assert shapes == [(2, 3, 5), (2, 3, 3)]
