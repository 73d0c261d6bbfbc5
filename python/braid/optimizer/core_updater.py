"""MXNet's Updater over the updates the C++ core runs (a Trainer's, or a KVStore's after
set_optimizer): ``optimizer`` and ``states``, {index: state} in MXNet's form (None, an array, or a
tuple; with a float32 master copy, (master, state)). The states are the core's own arrays."""
import pickle

from .. import _core

__all__ = ["CoreUpdater"]

_COUNTS = "__update_counts__"


def _mxnet_state(arrays):
    if not arrays:
        return None
    return arrays[0] if len(arrays) == 1 else tuple(arrays)


class CoreUpdater(object):
    """The per-index states of ``optimizer``, whose updates the core runs."""

    def __init__(self, optimizer):
        self.optimizer = optimizer

    def _indices(self):
        saved = _core.load_frombuffer(self.optimizer._core_saved_states())
        counts = saved.get(_COUNTS) if isinstance(saved, dict) else None
        return [] if counts is None else [int(row[0]) for row in counts.asnumpy()]

    @property
    def states(self):
        found = {}
        for index in self._indices():
            entry = self.optimizer._core_state(index)
            if entry is None:
                found[index] = None
                continue
            master, arrays = entry
            state = _mxnet_state(arrays)
            found[index] = state if master is None else (master, state)
        return found

    def get_states(self, dump_optimizer=False):
        """The states pickled, as MXNet's Updater.get_states (the optimizer itself is not)."""
        if dump_optimizer:
            raise _core.MXNetError("get_states(dump_optimizer=True): an optimizer the C++ core runs is not "
                                   "pickled; save it with the trainer's or the store's save_states")
        return pickle.dumps(self.states)
