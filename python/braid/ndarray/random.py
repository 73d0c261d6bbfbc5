"""mxnet.ndarray.random: arrays of random numbers from each context's generator (mx.random.seed).
A distribution's parameters are numbers (``_random_<dist>``: `shape` draws) or NDArrays of one
shape (``_sample_<dist>``: `shape` draws for each of their elements)."""
from .. import _core
from ..context import current_context

__all__ = ["uniform", "normal", "randn", "poisson", "exponential", "gamma", "negative_binomial",
           "generalized_negative_binomial", "multinomial", "shuffle", "randint", "uniform_like", "normal_like",
           "gamma_like", "exponential_like", "poisson_like", "negative_binomial_like",
           "generalized_negative_binomial_like"]


def _shape(shape):
    return tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)


def _finish(result, out):
    if out is not None:
        out[:] = result
        return out
    return result


def _helper(dist, names, params, shape, dtype, ctx, out, kwargs):
    """_random_<dist> for numbers, _sample_<dist> for NDArrays (MXNet's _random_helper)."""
    from .ndarray import NDArray
    attrs = dict(kwargs)
    if shape is None and not isinstance(params[0], NDArray):
        shape = out.shape if out is not None else 1  # MXNet's one draw
    if shape is not None:
        attrs["shape"] = _shape(shape)
    if dtype is not None:
        attrs["dtype"] = dtype
    if isinstance(params[0], NDArray):
        for p in params[1:]:
            if not isinstance(p, NDArray):
                raise ValueError("Distribution parameters must all be NDArrays or all numbers, got %s" %
                                 [type(p) for p in params])
        return _finish(_core.invoke("_sample_" + dist, list(params), attrs), out)
    for name, p in zip(names, params):
        if isinstance(p, NDArray):
            raise ValueError("Distribution parameters must all be NDArrays or all numbers, got %s" %
                             [type(p) for p in params])
        attrs[name] = float(p)
    attrs["ctx"] = ctx if ctx is not None else (out.context if out is not None else current_context())
    return _finish(_core.invoke("_random_" + dist, [], attrs), out)


def uniform(low=0, high=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from U[low, high)."""
    return _helper("uniform", ("low", "high"), [low, high], shape, dtype, ctx, out, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from N(loc, scale^2)."""
    return _helper("normal", ("loc", "scale"), [loc, scale], shape, dtype, ctx, out, kwargs)


def randn(*shape, **kwargs):
    """Samples from N(loc, scale^2) of the given shape: randn(2, 3, loc=1)."""
    loc, scale = kwargs.pop("loc", 0), kwargs.pop("scale", 1)
    dtype, ctx, out = kwargs.pop("dtype", None), kwargs.pop("ctx", None), kwargs.pop("out", None)
    return _helper("normal", ("loc", "scale"), [loc, scale], shape or None, dtype, ctx, out, kwargs)


def poisson(lam=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a Poisson distribution of rate lam."""
    return _helper("poisson", ("lam",), [lam], shape, dtype, ctx, out, kwargs)


def exponential(scale=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from an exponential distribution of mean `scale` (rate 1/scale)."""
    return _helper("exponential", ("lam",), [1.0 / scale], shape, dtype, ctx, out, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a gamma distribution of shape alpha and scale beta."""
    return _helper("gamma", ("alpha", "beta"), [alpha, beta], shape, dtype, ctx, out, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples the failures before the k-th success, each trial succeeding with probability p."""
    return _helper("negative_binomial", ("k", "p"), [k, p], shape, dtype, ctx, out, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples from a negative binomial of mean mu and dispersion alpha."""
    return _helper("generalized_negative_binomial", ("mu", "alpha"), [mu, alpha], shape, dtype, ctx, out, kwargs)


def multinomial(data, shape=None, get_prob=False, out=None, dtype="int32", **kwargs):
    """Draws category indices from the probabilities on the last axis of data; with get_prob also
    the log-probability of each draw (whose gradient reaches data)."""
    attrs = dict(kwargs, get_prob=bool(get_prob), dtype=dtype)
    if shape is not None:
        attrs["shape"] = _shape(shape)
    result = _core.invoke("_sample_multinomial", [data], attrs)
    return _finish(result, out) if not get_prob else result


def shuffle(data, **kwargs):
    """The rows of data (its first axis) in a random order."""
    out = kwargs.pop("out", None)
    return _finish(_core.invoke("_shuffle", [data], kwargs), out)


def randint(low, high, shape=None, dtype=None, ctx=None, out=None, **kwargs):
    """Samples integers from [low, high)."""
    attrs = dict(kwargs, low=int(low), high=int(high),
                 ctx=ctx if ctx is not None else (out.context if out is not None else current_context()))
    if shape is None:
        shape = out.shape if out is not None else 1
    if shape is not None:
        attrs["shape"] = _shape(shape)
    if dtype is not None:
        attrs["dtype"] = dtype
    return _finish(_core.invoke("_random_randint", [], attrs), out)


def _like(dist, names, defaults):
    def sampler(data=None, *params, **kwargs):
        out = kwargs.pop("out", None)
        attrs = {}
        for name, default, value in zip(names, defaults, list(params) + [None] * len(names)):
            attrs[name] = float(kwargs.pop(name, default if value is None else value))
        attrs.update(kwargs)
        return _finish(_core.invoke("_random_%s_like" % dist, [data], attrs), out)
    sampler.__name__ = dist + "_like"
    sampler.__doc__ = "Samples from the %s distribution an array shaped like data." % dist
    return sampler


uniform_like = _like("uniform", ("low", "high"), (0.0, 1.0))
normal_like = _like("normal", ("loc", "scale"), (0.0, 1.0))
gamma_like = _like("gamma", ("alpha", "beta"), (1.0, 1.0))
exponential_like = _like("exponential", ("lam",), (1.0,))
poisson_like = _like("poisson", ("lam",), (1.0,))
negative_binomial_like = _like("negative_binomial", ("k", "p"), (1.0, 1.0))
generalized_negative_binomial_like = _like("generalized_negative_binomial", ("mu", "alpha"), (1.0, 1.0))
