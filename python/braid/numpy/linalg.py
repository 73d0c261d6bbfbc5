"""mx.np.linalg: NumPy's linear algebra on stacks of matrices (the last two axes), built on the
core's linalg operators (inverse, det, slogdet, Cholesky, symmetric eigen-decomposition, batched
products) so that results carry gradients and hybridize. The SVD follows MXNet's convention:
``ut, l, v = svd(a)`` with a = ut @ diag(l) @ v for an (..., m, n) ``a``, m <= n."""
import numbers

import numpy as onp

from .multiarray import _invoke
from . import _op

__all__ = ["inv", "det", "slogdet", "cholesky", "eigh", "eigvalsh", "solve", "tensorinv", "tensorsolve", "norm",
           "svd", "pinv"]


def _matrices(a, square=True, what="matrix"):
    a = _op._arr(a)
    if a.ndim < 2:
        raise ValueError("%d-dimensional array given. Array must be at least two-dimensional" % a.ndim)
    if square and a.shape[-1] != a.shape[-2]:
        raise ValueError("Last 2 dimensions of the array must be square (got %s for %s)" % (a.shape, what))
    return a


def _swap(a):
    return _invoke("swapaxes", [a], {"dim1": -1, "dim2": -2})


def _matmul(a, b):
    """a @ b over broadcast batches."""
    batch = onp.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a = _op.broadcast_to(a, batch + a.shape[-2:])
    b = _op.broadcast_to(b, batch + b.shape[-2:])
    if a.ndim == 2:
        return _invoke("dot", [a, b])
    out_shape = batch + (a.shape[-2], b.shape[-1])
    if 0 in out_shape or a.shape[-1] == 0:
        return _op._zeros_from(_op.add(a.sum(), b.sum()), out_shape)
    flat = _invoke("batch_dot", [a.reshape((-1,) + a.shape[-2:]), b.reshape((-1,) + b.shape[-2:])])
    return flat.reshape(out_shape)


def inv(a):
    """The inverse of each matrix."""
    a = _matrices(a)
    if a.size == 0:
        return _op._zeros_from(a, a.shape)
    return _invoke("_linalg_inverse", [a])


def det(a):
    """The determinant of each matrix (1 for 0 x 0 ones)."""
    a = _matrices(a)
    if a.size == 0:
        return _op._zeros_from(a, a.shape[:-2]) + (1.0 if a.shape[-1] == 0 else 0.0)
    return _invoke("_linalg_det", [a]).reshape(a.shape[:-2])


def slogdet(a):
    """(sign, log|det|) of each matrix."""
    a = _matrices(a)
    if a.size == 0:
        zeros = _op._zeros_from(a, a.shape[:-2])
        return zeros + 1.0, zeros
    sign, logdet = _invoke("_linalg_slogdet", [a])
    return sign.reshape(a.shape[:-2]), logdet.reshape(a.shape[:-2])


def cholesky(a):
    """The lower-triangular L with L @ L.T = a, for each symmetric positive-definite matrix."""
    a = _matrices(a)
    if a.size == 0:
        return _op._zeros_from(a, a.shape)
    return _invoke("_linalg_potrf", [a])


def eigh(a, UPLO="L"):  # pylint: disable=invalid-name
    """(w, v): the ascending eigenvalues and the eigenvectors (columns) of each symmetric matrix,
    read from its lower (UPLO='L') or upper triangle."""
    a = _matrices(a)
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    if onp.dtype(a.dtype).kind != "f":
        a = a.astype("float32")
    if a.size == 0:
        return _op._zeros_from(a, a.shape[:-1]), _op._zeros_from(a, a.shape)
    from ._arranging import tril, triu
    # the matrix the chosen triangle describes: that triangle and its mirror image
    symmetric = tril(a) + _swap(tril(a, -1)) if UPLO == "L" else triu(a) + _swap(triu(a, 1))
    u, w = _invoke("_linalg_syevd", [symmetric])
    return w, _swap(u)


def eigvalsh(a, UPLO="L"):  # pylint: disable=invalid-name
    """The ascending eigenvalues of each symmetric matrix."""
    return eigh(a, UPLO)[0]


def solve(a, b):
    """x with a @ x = b: ``b`` a stack of vectors (one axis fewer than ``a``) or of matrices."""
    a, b = _matrices(a), _op._arr(b)
    vector = b.ndim == a.ndim - 1
    if vector:
        b = b.reshape(b.shape + (1,))
    if b.shape[-2] != a.shape[-1]:
        raise ValueError("solve: a has shape %s, b %s; b's rows must match a's size" % (a.shape, b.shape))
    x = _matmul(inv(a), b)
    return x.reshape(x.shape[:-1]) if vector else x


def tensorinv(a, ind=2):
    """The inverse of ``a`` seen as a matrix of its first ``ind`` axes by the others: shape
    a.shape[ind:] + a.shape[:ind]."""
    a = _op._arr(a)
    if ind <= 0:
        raise ValueError("Invalid ind argument.")
    rows, cols = a.shape[:ind], a.shape[ind:]
    n_rows, n_cols = int(onp.prod(rows)), int(onp.prod(cols))
    if n_rows != n_cols:
        raise ValueError("Invalid ind argument: the first %d axes hold %d elements, the others %d"
                         % (ind, n_rows, n_cols))
    return inv(a.reshape(n_rows, n_cols)).reshape(cols + rows)


def tensorsolve(a, b, axes=None):
    """x with tensordot(a, x, x.ndim) = b (NumPy's tensorsolve; ``axes`` of ``a`` moved to the
    end first). x takes a's last a.ndim - b.ndim axes, as MXNet counts them."""
    a, b = _op._arr(a), _op._arr(b)
    if axes is not None:
        from ._arranging import moveaxis
        axes = [ax % a.ndim for ax in axes]
        a = moveaxis(a, axes, [a.ndim - len(axes) + k for k in range(len(axes))])
    x_shape = a.shape[-(a.ndim - b.ndim):]
    n = int(onp.prod(x_shape))
    if n * n != a.size:
        raise ValueError("tensorsolve: a %s is not square over x's shape %s" % (a.shape, x_shape))
    if n != b.size:
        raise ValueError("tensorsolve: a's shape %s and b's shape %s do not match" % (a.shape, b.shape))
    return solve(a.reshape(n, n), b.reshape(n)).reshape(x_shape)


def svd(a):
    """(ut, l, v) with a = ut @ diag(l) @ v, l descending: from the eigen-decomposition of
    a @ a.T (so gradients come through it), for matrices no taller than wide."""
    a = _matrices(a, square=False)
    m, n = a.shape[-2:]
    if m > n:
        raise ValueError("svd: MXNet's svd needs matrices no taller than wide (m <= n), got %s" % (a.shape,))
    batch = a.shape[:-2]
    if a.size == 0:
        return (_op._zeros_from(a, batch + (m, m)), _op._zeros_from(a, batch + (m,)),
                _op._zeros_from(a, a.shape))
    u, w = _invoke("_linalg_syevd", [_matmul(a, _swap(a))])
    l = _op.flip(_invoke("sqrt", [_invoke("relu", [w])]), -1)
    ut = _op.flip(_swap(u), -1)
    v = _op.true_divide(_matmul(_swap(ut), a), l.reshape(l.shape + (1,)))
    return ut, l, v


def pinv(a, rcond=1e-15, hermitian=False):
    """The Moore-Penrose pseudo-inverse, singular values below rcond times the largest dropped."""
    a = _matrices(a, square=False)
    m, n = a.shape[-2:]
    if a.size == 0:
        return _op._zeros_from(a, a.shape[:-2] + (n, m))
    wide = m <= n
    ut, l, v = svd(a if wide else _swap(a))
    limit = l.max(axis=-1, keepdims=True) * (rcond if isinstance(rcond, numbers.Number) else
                                             _op._arr(rcond).reshape(_op._arr(rcond).shape + (1,)))
    kept = _invoke("broadcast_greater", [l, limit]).astype(l.dtype)
    inverse_l = _op.true_divide(kept, l + (1.0 - kept))
    p = _matmul(_swap(v) * inverse_l.reshape(inverse_l.shape[:-1] + (1, -1)), _swap(ut))
    return p if wide else _swap(p)


def _vector_norm(x, ord, axis, keepdims):  # pylint: disable=redefined-builtin
    ax = abs(x)
    if ord is None or ord == 2:
        return _invoke("sqrt", [(x * x).sum(axis=axis, keepdims=keepdims)])
    if ord == onp.inf:
        return ax.max(axis=axis, keepdims=keepdims)
    if ord == -onp.inf:
        return ax.min(axis=axis, keepdims=keepdims)
    if ord == 0:
        return _invoke("_not_equal_scalar", [x], {"scalar": 0.0}).sum(axis=axis, keepdims=keepdims)
    if ord == 1:
        return ax.sum(axis=axis, keepdims=keepdims)
    return (ax ** ord).sum(axis=axis, keepdims=keepdims) ** (1.0 / ord)


def _matrix_norm(x, ord, axes, keepdims):  # pylint: disable=redefined-builtin
    row, col = axes
    if ord in (None, "fro"):
        return _invoke("sqrt", [(x * x).sum(axis=axes, keepdims=keepdims)])
    if ord in (1, -1, onp.inf, -onp.inf):
        summed = abs(x).sum(axis=row if ord in (1, -1) else col, keepdims=True)
        other = col if ord in (1, -1) else row
        out = summed.max(axis=other, keepdims=True) if ord in (1, onp.inf) else summed.min(axis=other, keepdims=True)
        return out if keepdims else out.reshape(tuple(n for i, n in enumerate(out.shape) if i not in (row, col)))
    if ord in (2, -2, "nuc"):
        from ._arranging import moveaxis
        moved = moveaxis(x, (row, col), (-2, -1))
        if moved.shape[-2] > moved.shape[-1]:
            moved = _swap(moved)
        l = svd(moved)[1]
        out = l.max(axis=-1) if ord == 2 else l.min(axis=-1) if ord == -2 else l.sum(axis=-1)
        if keepdims:
            shape = list(x.shape)
            shape[row] = shape[col] = 1
            out = out.reshape(shape)
        return out
    raise ValueError("Invalid norm order for matrices: %r" % (ord,))


def norm(x, ord=None, axis=None, keepdims=False):  # pylint: disable=redefined-builtin
    """Vector norms (an int axis, or a 1-d ``x``) and matrix norms (two axes, or a 2-d ``x``), with
    NumPy's ``ord`` values; the flattened 2-norm for axis=None and ord=None."""
    x = _op._arr(x)
    ord = {"inf": onp.inf, "-inf": -onp.inf}.get(ord, ord) if isinstance(ord, str) else ord
    if onp.dtype(x.dtype).kind != "f":
        x = x.astype("float32")
    if axis is None:
        if ord is None:
            out = _invoke("sqrt", [(x * x).sum()])
            return out.reshape((1,) * x.ndim) if keepdims else out
        axis = tuple(range(x.ndim))
    axes = (axis,) if isinstance(axis, numbers.Integral) else tuple(axis)
    axes = tuple(a % x.ndim for a in axes)
    if len(axes) == 1:
        if isinstance(ord, str):
            raise ValueError("Invalid norm order '%s' for vectors" % ord)
        return _vector_norm(x, ord, axes[0], keepdims)
    if len(axes) == 2:
        if axes[0] == axes[1]:
            raise ValueError("Duplicate axes given.")
        return _matrix_norm(x, ord, axes, keepdims)
    raise ValueError("Improper number of dimensions to norm.")

