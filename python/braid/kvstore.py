"""mxnet.kvstore (``kv``): key-value stores of every type — "local", "device", the parameter
server's "dist_sync", "dist_async", "dist_sync_device", "dist_async_device", and "horovod"
(allreduce over MPI). A process started by ``braid launch`` as a server or scheduler runs its role
when braid is imported (see braid/__init__.py), as MXNet does."""
from ._core.kvstore import KVStore, create as _create


def create(name="local"):
    return _create(name)


def _set_updater(self, updater):
    """updater(key, recv, local): called on every push with the summed value and the stored one."""
    self._set_updater(updater)


KVStore.set_updater = _set_updater
__all__ = ["KVStore", "create"]
