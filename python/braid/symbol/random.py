"""mxnet.symbol.random: sampling operators in a graph. A distribution's parameters are numbers
(``_random_<dist>``) or Symbols (``_sample_<dist>``: `shape` draws for each of their elements), as
in mxnet.ndarray.random; other names give the operator ``_random_<name>`` (``uniform_like``)."""
from .. import _signatures
from ._namespace import operator_getattr
from .symbol import Symbol, _create

__getattr__ = operator_getattr(globals(), "symbol.random", "_random_")


def _op(name):
    return _signatures.operator_function(name, Symbol, _create, "symbol.random")


def _helper(dist, names, params, shape, dtype, kwargs):
    attrs = dict(kwargs)
    if shape is not None:
        attrs["shape"] = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    if dtype is not None:
        attrs["dtype"] = dtype
    if isinstance(params[0], Symbol):
        if not all(isinstance(p, Symbol) for p in params):
            raise ValueError("Distribution parameters must all be Symbols or all numbers, got %s" %
                             [type(p) for p in params])
        return _op("_sample_" + dist)(*params, **attrs)
    if any(isinstance(p, Symbol) for p in params):
        raise ValueError("Distribution parameters must all be Symbols or all numbers, got %s" %
                         [type(p) for p in params])
    attrs.update((n, float(p)) for n, p in zip(names, params))
    return _op("_random_" + dist)(**attrs)


def uniform(low=0, high=1, shape=None, dtype=None, **kwargs):
    return _helper("uniform", ("low", "high"), [low, high], shape, dtype, kwargs)


def normal(loc=0, scale=1, shape=None, dtype=None, **kwargs):
    return _helper("normal", ("loc", "scale"), [loc, scale], shape, dtype, kwargs)


def randn(*shape, **kwargs):
    loc, scale, dtype = kwargs.pop("loc", 0), kwargs.pop("scale", 1), kwargs.pop("dtype", None)
    return _helper("normal", ("loc", "scale"), [loc, scale], shape or None, dtype, kwargs)


def poisson(lam=1, shape=None, dtype=None, **kwargs):
    return _helper("poisson", ("lam",), [lam], shape, dtype, kwargs)


def exponential(scale=1, shape=None, dtype=None, **kwargs):
    """Mean `scale`: the operators take the rate lam = 1/scale."""
    return _helper("exponential", ("lam",), [1.0 / scale], shape, dtype, kwargs)


def gamma(alpha=1, beta=1, shape=None, dtype=None, **kwargs):
    return _helper("gamma", ("alpha", "beta"), [alpha, beta], shape, dtype, kwargs)


def negative_binomial(k=1, p=1, shape=None, dtype=None, **kwargs):
    return _helper("negative_binomial", ("k", "p"), [k, p], shape, dtype, kwargs)


def generalized_negative_binomial(mu=1, alpha=1, shape=None, dtype=None, **kwargs):
    return _helper("generalized_negative_binomial", ("mu", "alpha"), [mu, alpha], shape, dtype, kwargs)


def multinomial(data, shape=None, get_prob=False, dtype="int32", **kwargs):
    attrs = dict(kwargs, get_prob=bool(get_prob), dtype=dtype)
    if shape is not None:
        attrs["shape"] = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    return _op("_sample_multinomial")(data, **attrs)


def shuffle(data, **kwargs):
    return _op("_shuffle")(data, **kwargs)


def randint(low, high, shape=None, dtype=None, **kwargs):
    attrs = dict(kwargs, low=int(low), high=int(high))
    if shape is not None:
        attrs["shape"] = tuple(shape) if isinstance(shape, (list, tuple)) else (shape,)
    if dtype is not None:
        attrs["dtype"] = dtype
    return _op("_random_randint")(**attrs)
