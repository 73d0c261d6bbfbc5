"""mxnet.engine: how imperative operations are grouped for the dependency engine.

MXNet can bulk consecutive imperative operations into one engine operation
(``set_bulk_size``, ``with mx.engine.bulk(n):``). Braid pushes imperative operations one by one
(its per-operation scheduling cost is what bulking saves MXNet), so the size is recorded and
returned, the results are the same, and bound executors bulk their own graphs (static_alloc)."""
import contextlib
import threading

__all__ = ["set_bulk_size", "bulk"]

_state = threading.local()


def set_bulk_size(size):
    """Sets this thread's bulk size for imperative operations; returns the previous one."""
    previous = getattr(_state, "size", 0)
    _state.size = int(size)
    return previous


@contextlib.contextmanager
def bulk(size):
    """Runs the block with bulk size `size`, restoring the previous one after."""
    previous = set_bulk_size(size)
    try:
        yield
    finally:
        set_bulk_size(previous)
