"""mxnet.name: how symbols without a name are named (``fullyconnected0``, ``fullyconnected1``...).
``with NameManager():`` starts fresh counters; ``with Prefix('net_'):`` also puts a prefix on every
name, given or automatic. The current manager is per thread."""
from ._thread_local import ThreadLocalCurrent

__all__ = ["NameManager", "Prefix"]


class NameManager(metaclass=ThreadLocalCurrent):
    """Names nodes: a given name as is, else the hint with a counter of its own."""

    @classmethod
    def _default(cls):
        return NameManager()

    def __init__(self):
        self._counter = {}
        self._old_manager = None

    def get(self, name, hint):
        """``name`` if given, else ``hint`` followed by how many times the hint was used."""
        if name:
            return name
        n = self._counter.get(hint, 0)
        self._counter[hint] = n + 1
        return "%s%d" % (hint, n)

    def __enter__(self):
        self._old_manager = NameManager.current
        NameManager.current = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_manager is not None, "NameManager.__exit__ without __enter__"
        NameManager.current = self._old_manager


class Prefix(NameManager):
    """A NameManager that puts ``prefix`` before every name."""

    def __init__(self, prefix):
        super().__init__()
        self._prefix = prefix

    def get(self, name, hint):
        return self._prefix + super().get(name, hint)
