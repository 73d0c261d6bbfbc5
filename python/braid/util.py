"""MXNet's mxnet.util: environment variables as the core sees them, and the switches of MXNet's
NumPy semantics (np_shape: zero-size dimensions and scalars; np_array: the mx.np interface)."""
import functools
import os
import threading

__all__ = ["getenv", "setenv", "np_shape", "is_np_shape", "set_np_shape", "use_np_shape", "np_array",
           "is_np_array", "set_np_array", "use_np_array", "set_np", "reset_np"]


def getenv(name):
    """The value of environment variable name, or None."""
    return os.environ.get(name)


def setenv(name, value):
    """Sets (or with None unsets) an environment variable for the process and the core."""
    if value is None:
        os.environ.pop(name, None)
    else:
        os.environ[name] = str(value)


class _Flag(threading.local):
    """A switch with a process-wide default and a per-thread value (MXNet's thread-local flags)."""

    def __init__(self, default_holder):
        self._holder = default_holder

    def get(self):
        return getattr(self, "value", self._holder[0])

    def set(self, value):
        previous = self.get()
        self.value = value
        return previous


_np_shape_default = [0]
_np_shape = _Flag(_np_shape_default)


def set_np_shape(active):
    """Turns NumPy shape semantics on (True or 1: this thread; 2: every thread) or off; returns
    the previous setting."""
    from . import _core
    if active == 2:
        previous = _np_shape.get()
        _np_shape_default[0] = 2
        _np_shape.value = 2
        _core._set_np_shape(2)
        return bool(previous)
    if not active and _np_shape_default[0] == 2:
        _np_shape_default[0] = 0
    previous = _np_shape.set(1 if active else 0)
    _core._set_np_shape(1 if active else 0)
    return bool(previous)


def is_np_shape():
    return bool(_np_shape.get())


class _NumpyShapeScope:
    def __init__(self, is_np_shape):
        self._enter_is_np_shape = is_np_shape
        self._prev_is_np_shape = None

    def __enter__(self):
        if self._enter_is_np_shape is not None:
            self._prev_is_np_shape = set_np_shape(self._enter_is_np_shape)

    def __exit__(self, ptype, value, trace):
        if self._enter_is_np_shape is not None and self._prev_is_np_shape != self._enter_is_np_shape:
            set_np_shape(self._prev_is_np_shape)


def np_shape(active=True):
    """``with np_shape(True):`` NumPy shape semantics in the block."""
    return _NumpyShapeScope(active)


def _wrap_class(cls, decorate):
    """``cls`` with its methods, and the ones it inherits from a Gluon block that create or read
    arrays, wrapped by ``decorate`` (MXNet's use_np_* decorate every method of a class)."""
    names = [n for n, m in vars(cls).items()
             if callable(m) and not isinstance(m, (type, staticmethod, classmethod))]
    names += [n for n in ("__call__", "forward", "initialize", "load_parameters")
              if n not in names and callable(getattr(cls, n, None))]
    for name in names:
        setattr(cls, name, decorate(getattr(cls, name) if name not in vars(cls) else vars(cls)[name]))
    return cls


def use_np_shape(func):
    """Decorator: the function (or every method of the class) runs with NumPy shape semantics."""
    if isinstance(func, type):
        return _wrap_class(func, use_np_shape)

    @functools.wraps(func)
    def _with_np_shape(*args, **kwargs):
        with np_shape(active=True):
            return func(*args, **kwargs)
    return _with_np_shape


def _current_np_array_scope(scope):
    """Makes ``scope`` the calling thread's mx.np-interface switch, in Python and in the core
    (where a Gluon parameter records it when it creates its arrays)."""
    from . import _core
    _NumpyArrayScope._current.value = scope
    _core.gluon._set_np_array(scope._is_np_array)


class _NumpyArrayScope:
    """The mx.np-interface switch of one thread (``_NumpyArrayScope._current``)."""
    _current = threading.local()

    def __init__(self, is_np_array):
        self._old_scope = None
        self._is_np_array = is_np_array

    def __enter__(self):
        if not hasattr(_NumpyArrayScope._current, "value"):
            _NumpyArrayScope._current.value = _NumpyArrayScope(False)
        self._old_scope = _NumpyArrayScope._current.value
        _current_np_array_scope(self)
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope
        _current_np_array_scope(self._old_scope)


def np_array(active=True):
    return _NumpyArrayScope(active)


def is_np_array():
    current = getattr(_NumpyArrayScope._current, "value", None)
    return current._is_np_array if current is not None else False


def set_np_array(active):
    previous = is_np_array()
    _current_np_array_scope(_NumpyArrayScope(active))
    return previous


def use_np_array(func):
    """Decorator: the function (or every method of the class) runs with the mx.np interface on
    (arrays a Gluon block makes and gives are mx.np.ndarray)."""
    if isinstance(func, type):
        return _wrap_class(func, use_np_array)

    @functools.wraps(func)
    def _with_np_array(*args, **kwargs):
        with np_array(active=True):
            return func(*args, **kwargs)
    return _with_np_array


def use_np(func):
    """func (a function or a class, whose methods are wrapped) run with NumPy shapes and arrays on,
    as MXNet's ``use_np``."""
    return use_np_shape(use_np_array(func))


def set_np(shape=True, array=True):
    set_np_shape(shape)
    set_np_array(array)


def reset_np():
    set_np(shape=False, array=False)
