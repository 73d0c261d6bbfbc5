"""mxnet.model: checkpoints of a symbol and its parameters (prefix-symbol.json, prefix-%04d.params)."""
from ._core.module import save_checkpoint, load_checkpoint

__all__ = ["save_checkpoint", "load_checkpoint"]
