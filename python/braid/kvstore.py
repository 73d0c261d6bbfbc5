"""mxnet.kvstore (``kv``): key-value stores of every type — "local", "device", the parameter
server's "dist_sync", "dist_async", "dist_sync_device", "dist_async_device", and "horovod"
(allreduce over MPI), and those written in Python (KVStoreBase subclasses registered by name). A
process started by ``braid launch`` as a server or scheduler runs its role when braid is imported
(see braid/__init__.py), as MXNet does."""
import atexit

from ._core.kvstore import KVStore, create as _create, _finish_workers
from .kvstore_base import KVStoreBase, TestStore
from .optimizer.core_updater import CoreUpdater

# Python may destroy a parameter server's store late at exit, or not at all (a script's optimizer
# class registered with mxnet keeps the script's globals alive), and the job would wait for this
# worker until it timed out: at exit the process's stores tell the job they are done.
atexit.register(_finish_workers)


def create(name="local"):
    """The store of type ``name``: a registered KVStoreBase subclass, else a built-in type."""
    if not isinstance(name, str):
        raise TypeError("name must be a string")
    registered = KVStoreBase.kv_registry.get(name.lower())
    return registered() if registered is not None else _create(name)


def _set_updater(self, updater):
    """updater(key, recv, local): called on every push with the summed value and the stored one."""
    self._set_updater(updater)


def _updater(self):
    """MXNet's KVStore._updater: the updater of the optimizer this store runs, or None."""
    optimizer = self._core_optimizer()
    return None if optimizer is None else CoreUpdater(optimizer)


KVStore.set_updater = _set_updater
KVStore._updater = property(_updater)
__all__ = ["KVStore", "KVStoreBase", "TestStore", "create"]
