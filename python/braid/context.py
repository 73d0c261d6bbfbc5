"""Device contexts (MXNet's mxnet.context): ``cpu(0)``, ``gpu(1)``, and ``with ctx:`` to change
the default context of new arrays on this thread."""
import threading

from ._core import Context, gpu_memory_info, num_gpus

__all__ = ["Context", "cpu", "gpu", "cpu_pinned", "current_context", "num_gpus", "gpu_memory_info"]

_state = threading.local()


def _stack():
    if not hasattr(_state, "stack"):
        _state.stack = [Context("cpu", 0)]
    return _state.stack


def current_context():
    """The default context of new arrays: cpu(0) unless inside ``with ctx:``."""
    return _stack()[-1]


def _set_current_context(ctx):
    """Replaces this thread's current context (MXNet's Context.default_ctx = ctx)."""
    _stack()[-1] = ctx


def _enter(self):
    _stack().append(self)
    return self


def _exit(self, *exc):
    _stack().pop()


Context.__enter__ = _enter
Context.__exit__ = _exit


def cpu(device_id=0):
    return Context("cpu", device_id)


def gpu(device_id=0):
    return Context("gpu", device_id)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)
