"""How the operators a HybridBlock's hybrid_forward calls on Symbols are named: after the block's
prefix, counted per prefix over one call of the outermost block (MXNet's name_scope around
hybrid_forward; a block made with prefix='' counts with its parent, so the two blocks of a
ResNet stage name their activations resnetv10_stage1_activation0 and ..._activation1)."""
import contextlib
import threading

from ..name import Prefix

_state = threading.local()


@contextlib.contextmanager
def block_scope(prefix):
    """``with block_scope(block.prefix):`` around hybrid_forward on Symbols."""
    outermost = not hasattr(_state, "managers")
    if outermost:
        _state.managers = {}
    manager = _state.managers.setdefault(prefix, Prefix(prefix))
    try:
        with manager:
            yield
    finally:
        if outermost:
            del _state.managers
