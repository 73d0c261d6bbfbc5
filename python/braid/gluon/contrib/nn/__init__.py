"""gluon.contrib.nn: contributed layers (Concurrent, HybridConcurrent, Identity, SyncBatchNorm,
SparseEmbedding, PixelShuffle1D/2D/3D)."""
from .basic_layers import *  # noqa: F401,F403
from .sparse_embedding import *  # noqa: F401,F403
from .pixel_shuffle import *  # noqa: F401,F403
from . import basic_layers, sparse_embedding, pixel_shuffle

__all__ = basic_layers.__all__ + sparse_embedding.__all__ + pixel_shuffle.__all__
