"""mxnet.random: the global seed of every context's generator."""
from . import _core


def seed(seed_state, ctx="all"):
    """Reseeds the generators (of every context: Braid keeps one seed for all)."""
    _core.seed(int(seed_state))
