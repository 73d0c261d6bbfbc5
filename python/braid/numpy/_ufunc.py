"""NumPy's ufunc keywords for mx.np's elementwise functions, as MXNet takes them: ``out`` is
written (its dtype must match the result's); ``where``, ``subok``, ``dtype``, ``casting`` and
``order`` other than their defaults raise NotImplementedError (TypeError for a value NumPy does not
know)."""
import functools

import numpy as onp

from .. import _core

_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def check_keywords(name, kwargs):
    """Raises for the keywords MXNet's functions refuse; ``kwargs`` must be empty after."""
    if kwargs.pop("where", True) is not True or kwargs.pop("subok", True) is not True:
        raise NotImplementedError("%s: only where=True and subok=True are supported" % name)
    dtype = kwargs.pop("dtype", None)
    if dtype is not None:
        onp.dtype(dtype)  # TypeError for a name NumPy does not know
        raise NotImplementedError("%s: the dtype argument is not supported" % name)
    casting = kwargs.pop("casting", "same_kind")
    if casting != "same_kind":
        if casting not in _CASTINGS:
            raise TypeError("casting must be one of %s" % ", ".join(repr(c) for c in _CASTINGS))
        raise NotImplementedError("%s: only casting='same_kind' is supported" % name)
    if kwargs.pop("order", "K") != "K":
        raise NotImplementedError("%s: only order='K' is supported" % name)
    if kwargs:
        raise TypeError("%s() got unexpected keyword arguments: %s" % (name, ", ".join(kwargs)))


def write_out(name, result, out):
    """``result``, or ``out`` holding it."""
    if out is None:
        return result
    if out.dtype != result.dtype:
        raise TypeError("%s: out has dtype %s, the result %s" % (name, out.dtype, result.dtype))
    _core.invoke("_copy", [result], {"out": out})
    return out


def ufunc(fn):
    """The unary ``fn(x)`` with the ufunc keywords (``out`` also by position, as NumPy)."""
    @functools.wraps(fn)
    def wrapped(x, out=None, **kwargs):
        check_keywords(fn.__name__, kwargs)
        return write_out(fn.__name__, fn(x), out)
    return wrapped
