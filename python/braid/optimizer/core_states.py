"""Reading the optimizer states a C++ store or trainer saved (Optimizer::save_states' image:
arrays named "<index>_<state>", "<index>_weight32" for a float32 master copy, and the update
counts) as MXNet's Updater states, so that a Module saved while its store updated loads into one
that updates itself."""
from .. import _core

__all__ = ["is_core_image", "states_of_core_image"]

# The first bytes of an MXNet .params file (its magic number, 0x112, as a little-endian uint64).
_MAGIC = b"\x12\x01\x00\x00\x00\x00\x00\x00"
_MASTER = "weight32"


def is_core_image(data):
    return data[:len(_MAGIC)] == _MAGIC


def states_of_core_image(data):
    """{index: state}: None, the array, or a tuple of them in the saved order; with a master
    copy, (master, state)."""
    per_index = {}
    for name, array in _core.load_frombuffer(data).items():
        if name.startswith("__"):  # the update counts
            continue
        index, sep, state = name.partition("_")
        if not sep or not index.isdigit():
            raise _core.MXNetError("optimizer states: '%s' is not named <index>_<state>; pass a file that "
                                   "save_optimizer_states wrote" % name)
        per_index.setdefault(int(index), []).append((state, array))
    states = {}
    for index, named in per_index.items():
        arrays = [a for s, a in named if s != _MASTER]
        state = None if not arrays else arrays[0] if len(arrays) == 1 else tuple(arrays)
        master = [a for s, a in named if s == _MASTER]
        states[index] = (master[0], state) if master else state
    return states
