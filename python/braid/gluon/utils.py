"""gluon.utils: splitting batches over contexts and clipping gradients."""
from .._core.gluon.utils import split_data, split_and_load, clip_global_norm

__all__ = ["split_data", "split_and_load", "clip_global_norm"]
