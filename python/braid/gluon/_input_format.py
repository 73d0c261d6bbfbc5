"""The argument structure a hybridized block's graph was traced with (MXNet's _in_format): which
inputs were arrays, which None, how lists nested. Later calls must keep it, as MXNet's cached op
requires; trailing None arguments (defaults) may be left out or given. Only the outermost
hybridized call is checked: the blocks it calls run inside its graph, as in MXNet."""
import threading

from .. import ndarray as _nd

_NONE = -1
_state = threading.local()


def input_format(args):
    """0 for an array, -1 for None, a list of the formats of a list's (or tuple's) items."""
    if args is None:
        return _NONE
    if isinstance(args, (list, tuple)):
        return [input_format(a) for a in args]
    return 0


def _matches(stored, given):
    if stored == given:
        return True
    short, long_ = (stored, given) if len(stored) < len(given) else (given, stored)
    return long_[:len(short)] == short and all(f == _NONE for f in long_[len(short):])


class checked_call(object):
    """``with checked_call(block, args):`` around a hybridized block's call on arrays: records
    the format at the first call, raises ValueError at a later one of another structure."""

    def __init__(self, block, args):
        self._block, self._args = block, args
        self._outermost = False

    def __enter__(self):
        if getattr(_state, "depth", 0) == 0 and any(isinstance(a, _nd.NDArray) for a in leaves(self._args)):
            self._outermost = True
            self._check()
        _state.depth = getattr(_state, "depth", 0) + 1
        return self

    def __exit__(self, *exc):
        _state.depth -= 1
        return False

    def _check(self):
        attrs = getattr(self._block, "__dict__", None)
        if attrs is None:
            return
        given = input_format(list(self._args))
        stored = attrs.setdefault("_in_format", given)
        if not _matches(stored, given):
            raise ValueError("The argument structure of HybridBlock does not match the cached version. Stored format "
                             "= %s, input format = %s" % (stored, given))


def forget(block, children_of):
    """Drops the recorded formats of ``block`` and its descendants (hybridize() traces anew)."""
    attrs = getattr(block, "__dict__", None)
    if attrs is not None:
        attrs.pop("_in_format", None)
    for child in children_of(block).values():
        forget(child, children_of)


def leaves(args):
    for a in args:
        if isinstance(a, (list, tuple)):
            yield from leaves(a)
        else:
            yield a
