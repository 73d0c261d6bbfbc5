"""Pixel-shuffle layers (sub-pixel upsampling, Shi et al., arXiv:1609.05158) of MXNet's
gluon.contrib.nn: PixelShuffle1D, PixelShuffle2D and PixelShuffle3D.

Each one moves channel blocks into space: an input (N, f1*...*fn*C, S1, ..., Sn) becomes
(N, C, S1*f1, ..., Sn*fn). Output pixel (s_k * f_k + j_k) of channel c reads input channel
c * (f1*...*fn) + (j1, ..., jn) (row-major over the factors) at position (s1, ..., sn)."""
from ...block import HybridBlock

__all__ = ["PixelShuffle1D", "PixelShuffle2D", "PixelShuffle3D"]


def _factors(factor, ndim):
    """``factor`` (one int, or ``ndim`` ints) as a tuple of ``ndim`` ints."""
    if isinstance(factor, (list, tuple)):
        factors = tuple(int(f) for f in factor)
    else:
        factors = (int(factor),) * ndim
    if len(factors) != ndim:
        raise ValueError("PixelShuffle%dD: factor must be an int or %d ints; got %r" % (ndim, ndim, factor))
    if any(f < 1 for f in factors):
        raise ValueError("PixelShuffle%dD: factors must be positive; got %r" % (ndim, factor))
    return factors


def _shuffle(F, x, factors):
    """(N, C*prod(factors), S1..Sn) -> (N, C, S1*f1, ..., Sn*fn) with reshapes and one transpose."""
    n = len(factors)
    block = 1
    for f in factors:
        block *= f
    keep = (0,) * n  # Reshape code 0: copy that input axis
    # (N, C*block, S...) -> (N, C, block, S...)
    x = F.reshape(x, shape=(0, -4, -1, block) + keep)
    # Split the block axis into its factors one at a time (code -4 splits one axis into two):
    # (N, C, f1, f2*...*fn, S...) -> ... -> (N, C, f1, ..., fn, S...)
    for k in range(n - 1):
        x = F.reshape(x, shape=(0,) * (2 + k) + (-4, factors[k], -1) + keep)
    # Interleave space and factors: (N, C, S1, f1, S2, f2, ...), then merge each pair (code -3).
    axes = (0, 1)
    for k in range(n):
        axes += (2 + n + k, 2 + k)
    x = F.transpose(x, axes=axes)
    return F.reshape(x, shape=(0, 0) + (-3,) * n)


class _PixelShuffle(HybridBlock):
    _ndim = 0

    def __init__(self, factor):
        super().__init__()
        self._factors = _factors(factor, self._ndim)

    def hybrid_forward(self, F, x):
        return _shuffle(F, x, self._factors)

    def __repr__(self):
        shown = self._factors[0] if self._ndim == 1 else self._factors
        return "{}({})".format(type(self).__name__, shown)


class PixelShuffle1D(_PixelShuffle):
    """Upsamples the width by ``factor``: (N, f*C, W) -> (N, C, W*f). ``PixelShuffle1D(2)``."""
    _ndim = 1


class PixelShuffle2D(_PixelShuffle):
    """Upsamples height and width by ``factor`` (an int, or (f1, f2) for H and W):
    (N, f1*f2*C, H, W) -> (N, C, H*f1, W*f2). ``PixelShuffle2D((2, 3))``."""
    _ndim = 2


class PixelShuffle3D(_PixelShuffle):
    """Upsamples depth, height and width by ``factor`` (an int, or (f1, f2, f3)):
    (N, f1*f2*f3*C, D, H, W) -> (N, C, D*f1, H*f2, W*f3). ``PixelShuffle3D(2)``."""
    _ndim = 3
