"""MXNet's KVStoreBase: the interface of a key-value store written in Python, and its registry
(``@KVStoreBase.register`` makes ``mx.kv.create(name)`` build the class by its lower-case name).
A gluon.Trainer given such a store sums gradients through its pushpull and sets the copies of the
parameters through its broadcast; it updates on the store only where the store is_capable of
KVStoreBase.OPTIMIZER. TestStore is MXNet's store for tests: a sum in one process."""
import warnings

from ._core import NDArray

__all__ = ["KVStoreBase", "TestStore"]


class KVStoreBase(object):
    """Subclass it, define broadcast, pushpull, is_capable and the type, rank and num_workers
    properties (set_optimizer and the optimizer-state methods where the store can update)."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        """Sets every array of ``out`` to rank 0's ``value``."""
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        """Sums ``value`` (an array or one per device) over the workers into ``out`` (else into
        ``value``)."""
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def is_capable(self, capability):
        """Whether the store can do ``capability`` (KVStoreBase.OPTIMIZER: run the optimizer)."""
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @property
    def type(self):
        raise NotImplementedError()

    @property
    def rank(self):
        raise NotImplementedError()

    @property
    def num_workers(self):
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Makes ``mx.kv.create(klass.__name__.lower())`` build ``klass()``."""
        name = klass.__name__.lower()
        if name in KVStoreBase.kv_registry:
            old = KVStoreBase.kv_registry[name]
            warnings.warn("WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


def _as_list(out):
    return out if isinstance(out, list) else [out]


@KVStoreBase.register
class TestStore(KVStoreBase):
    """A store for tests: sums within this process; it cannot run the optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for o in _as_list(out):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        if isinstance(value, NDArray):
            if out is not None:
                for o in _as_list(out):
                    o[:] = value
            return
        ctx = value[0].context
        total = sum(v.as_in_context(ctx) for v in value)
        for o in value if out is None else _as_list(out):
            o[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise ValueError("Unknown capability: {}".format(capability))

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1
