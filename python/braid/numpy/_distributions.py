"""mx.np.random's continuous distributions beyond uniform and normal, NumPy's arguments: each is a
standard sample from an operator (exponential, normal or gamma of the output's shape) transformed
by its parameters with mx.np arithmetic, so a parameter given as an array gets its
reparameterization gradient, and a hybridized forward records it all."""
import numbers

import numpy as onp

from .. import _core
from .multiarray import _invoke
from . import _op

__all__ = ["exponential", "rayleigh", "weibull", "pareto", "power", "lognormal", "logistic", "gumbel", "gamma",
           "beta", "chisquare", "multivariate_normal"]


def _shape_of(x):
    return x.shape if isinstance(x, _core.NDArray) else ()


def _out_shape(size, *params):
    """size, or else the parameters' broadcast shape (NumPy's rule)."""
    if size is not None:
        return (size,) if isinstance(size, numbers.Integral) else tuple(size)
    return onp.broadcast_shapes(*(_shape_of(p) for p in params))


def _check(name, value, positive):
    """ValueError when ``value`` (a number or an array) is negative (or zero, with positive)."""
    values = value.asnumpy() if isinstance(value, _core.NDArray) else onp.asarray(value)
    bad = values <= 0 if positive else values < 0
    if onp.any(bad):
        raise ValueError("%s must be %s, got %s" % (name, "positive" if positive else "non-negative",
                                                    values if values.size < 8 else "an array with such values"))


def _dtype(dtype, *params):
    if dtype is not None:
        return onp.dtype(dtype).name
    for p in params:
        if isinstance(p, _core.NDArray) and onp.dtype(p.dtype).kind == "f":
            return onp.dtype(p.dtype).name
    return "float32"


def _standard(op, shape, dtype, ctx, **attrs):
    """A sample of ``op`` (an operator with no inputs) of ``shape``, float32 (the samplers'
    type) cast to ``dtype``."""
    attrs.update(shape=tuple(shape), dtype="float32" if dtype == "float16" else dtype)
    if ctx is not None:
        attrs["ctx"] = str(ctx)
    out = _invoke(op, [], attrs)
    return out if out.dtype == onp.dtype(dtype) else out.astype(dtype)


def _as_param(p, dtype):
    return p.astype(dtype) if isinstance(p, _core.NDArray) and p.dtype != onp.dtype(dtype) else p


def exponential(scale=1.0, size=None, ctx=None, out=None):
    """scale * E, E ~ Exp(1)."""
    _check("scale", scale, False)
    dtype = _dtype(None, scale)
    e = _standard("_random_exponential", _out_shape(size, scale), dtype, ctx, lam=1.0)
    return _op.multiply(e, _as_param(scale, dtype))


def rayleigh(scale=1.0, size=None, ctx=None, out=None):
    """scale * sqrt(2 E), E ~ Exp(1) (the radius of a 2-d standard normal, scaled)."""
    _check("scale", scale, False)
    dtype = _dtype(None, scale)
    e = _standard("_random_exponential", _out_shape(size, scale), dtype, ctx, lam=1.0)
    return _op.multiply(_invoke("sqrt", [e * 2.0]), _as_param(scale, dtype))


def weibull(a, size=None, ctx=None, out=None):
    """E ** (1 / a), E ~ Exp(1); a > 0."""
    _check("a", a, True)
    dtype = _dtype(None, a)
    e = _standard("_random_exponential", _out_shape(size, a), dtype, ctx, lam=1.0)
    return _invoke("exp", [_op.true_divide(_invoke("log", [e]), _as_param(a, dtype))])


def pareto(a, size=None, ctx=None, out=None):
    """exp(E / a) - 1, E ~ Exp(1) (NumPy's Pareto II, Lomax); a > 0."""
    _check("a", a, True)
    dtype = _dtype(None, a)
    e = _standard("_random_exponential", _out_shape(size, a), dtype, ctx, lam=1.0)
    return _invoke("exp", [_op.true_divide(e, _as_param(a, dtype))]) - 1.0


def power(a, size=None, ctx=None, out=None):
    """U ** (1 / a), U ~ U(0, 1): in [0, 1]."""
    _check("a", a, True)
    dtype = _dtype(None, a)
    u = _standard("_random_uniform", _out_shape(size, a), dtype, ctx, low=0.0, high=1.0)
    return _invoke("exp", [_op.true_divide(_invoke("log", [u]), _as_param(a, dtype))])


def shifted_and_scaled(standard, shift, factor, size, dtype, ctx, **attrs):
    """shift + factor * X, X a sample of the operator ``standard`` (``attrs``: its parameters)
    of the output's shape: the location-scale families (normal, uniform) with gradients for
    array parameters."""
    dtype = _dtype(dtype, shift, factor)
    x = _standard(standard, _out_shape(size, shift, factor), dtype, ctx, **attrs)
    return _op.add(_op.multiply(x, _as_param(factor, dtype)), _as_param(shift, dtype))


def logistic(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """loc + scale * log(U / (1 - U)), U ~ U(0, 1)."""
    _check("scale", scale, False)
    dtype = _dtype(None, loc, scale)
    u = _standard("_random_uniform", _out_shape(size, loc, scale), dtype, ctx, low=0.0, high=1.0)
    x = _invoke("log", [_op.true_divide(u, 1.0 - u)])
    return _op.add(_op.multiply(x, _as_param(scale, dtype)), _as_param(loc, dtype))


def gumbel(loc=0.0, scale=1.0, size=None, ctx=None, out=None):
    """loc - scale * log(-log(U)), U ~ U(0, 1)."""
    _check("scale", scale, False)
    dtype = _dtype(None, loc, scale)
    u = _standard("_random_uniform", _out_shape(size, loc, scale), dtype, ctx, low=0.0, high=1.0)
    x = -_invoke("log", [-_invoke("log", [u])])
    return _op.add(_op.multiply(x, _as_param(scale, dtype)), _as_param(loc, dtype))


def lognormal(mean=0.0, sigma=1.0, size=None, dtype=None, ctx=None, out=None):
    """exp(mean + sigma * N), N ~ N(0, 1)."""
    _check("sigma", sigma, False)
    dtype = _dtype(dtype, mean, sigma)
    n = _standard("_random_normal", _out_shape(size, mean, sigma), dtype, ctx, loc=0.0, scale=1.0)
    return _invoke("exp", [_op.add(_op.multiply(n, _as_param(sigma, dtype)), _as_param(mean, dtype))])


def _standard_gamma(shape_param, out_shape, dtype, ctx):
    """Gamma(shape_param, 1) samples of ``out_shape``: one shape for all, or one per element."""
    if not isinstance(shape_param, _core.NDArray):
        return _standard("_random_gamma", out_shape, dtype, ctx, alpha=float(shape_param), beta=1.0)
    alpha = _op.broadcast_to(shape_param.astype("float32"), out_shape)
    if alpha.size == 0:
        return alpha.astype(dtype)
    ones = _invoke("_ones", [], {"shape": tuple(out_shape), "dtype": "float32", "ctx": str(alpha.ctx)})
    return _invoke("_sample_gamma", [alpha, ones], {}).astype(dtype)


def gamma(shape=1.0, scale=1.0, size=None, dtype=None, ctx=None, out=None):
    """Gamma(shape) samples times ``scale``; both must be positive."""
    _check("shape", shape, True)
    _check("scale", scale, True)
    dtype = _dtype(dtype, shape, scale)
    g = _standard_gamma(shape, _out_shape(size, shape, scale), dtype, ctx)
    return _op.multiply(g, _as_param(scale, dtype))


def beta(a, b, size=None, dtype=None, ctx=None):
    """X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b)."""
    _check("a", a, True)
    _check("b", b, True)
    dtype = _dtype(dtype)
    shape = _out_shape(size, a, b)
    x, y = _standard_gamma(a, shape, dtype, ctx), _standard_gamma(b, shape, dtype, ctx)
    return _op.true_divide(x, _op.add(x, y))


def chisquare(df, size=None, dtype=None, ctx=None):
    """2 * Gamma(df / 2)."""
    _check("df", df, True)
    dtype = _dtype(dtype)
    half = df / 2.0 if isinstance(df, _core.NDArray) else float(df) / 2.0
    return _standard_gamma(half, _out_shape(size, df), dtype, ctx) * 2.0


def multivariate_normal(mean, cov, size=None, check_valid=None, tol=None):
    """mean + L N, L the Cholesky factor of ``cov`` (batches broadcast as NumPy's): shape
    size + broadcast(mean.shape, cov.shape[:-1])."""
    mean, cov = _op._arr(mean), _op._arr(cov)
    k = mean.shape[-1]
    if cov.shape[-2:] != (k, k):
        raise ValueError("mean and cov must have the same length: mean has %d, cov %s" % (k, cov.shape))
    batch = onp.broadcast_shapes(mean.shape[:-1], cov.shape[:-2])
    lead = () if size is None else ((size,) if isinstance(size, numbers.Integral) else tuple(size))
    shape = lead + batch + (k,)
    dtype = onp.dtype(mean.dtype).name
    if 0 in shape:
        return _op._zeros_from(mean, shape)
    factor = _invoke("_linalg_potrf", [cov.astype("float64")]).astype("float32")
    factor = _op.broadcast_to(factor, shape[:-1] + (k, k)).reshape(-1, k, k)
    n = _standard("_random_normal", shape, "float32", None, loc=0.0, scale=1.0).reshape(-1, k, 1)
    noise = _invoke("batch_dot", [factor, n]).reshape(shape).astype(dtype)
    return _op.add(noise, mean)
