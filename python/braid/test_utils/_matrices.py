"""mxnet.test_utils: random matrices with known spectra, for the linear-algebra operators' tests."""
import numpy as _np


def _random_orthogonal(n):
    q, r = _np.linalg.qr(_np.random.normal(size=(n, n)))
    return q * _np.sign(_np.diag(r))  # the signs make Q uniformly distributed (Haar)


def new_matrix_with_real_eigvals_2d(n):
    """An n×n matrix P·D·P⁻¹ with eigenvalues D drawn from [-10, 10] and P well conditioned
    (condition number ≤ 2), so that its eigenvectors are not close to parallel."""
    p = _random_orthogonal(n) * _np.random.uniform(1.0, 2.0, n)
    d = _np.diag(_np.random.uniform(-10.0, 10.0, n))
    return p @ d @ _np.linalg.inv(p)


def new_matrix_with_real_eigvals_nd(shape):
    """A batch (shape[:-2]) of matrices as new_matrix_with_real_eigvals_2d."""
    count = int(_np.prod(shape[:-2])) if len(shape) > 2 else 1
    return _np.array([new_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]).reshape(shape)


def new_orthonormal_matrix_2d(n):
    """A random n×n orthogonal matrix."""
    return _random_orthogonal(n)


def new_sym_matrix_with_real_eigvals_2d(n):
    """A symmetric n×n matrix Qᵀ·D·Q with eigenvalues D drawn from [-10, 10]."""
    q = _random_orthogonal(n)
    return q.T @ _np.diag(_np.random.uniform(-10.0, 10.0, n)) @ q


def new_sym_matrix_with_real_eigvals_nd(shape):
    """A batch (shape[:-2]) of symmetric matrices as new_sym_matrix_with_real_eigvals_2d."""
    count = int(_np.prod(shape[:-2])) if len(shape) > 2 else 1
    return _np.array([new_sym_matrix_with_real_eigvals_2d(shape[-1]) for _ in range(count)]).reshape(shape)
