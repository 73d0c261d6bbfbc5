"""gluon.contrib.data: IntervalSampler and the text datasets WikiText2 / WikiText103."""
from .sampler import *  # noqa: F401,F403
from . import sampler, text

__all__ = sampler.__all__ + ["text"]
