"""gluon.data: datasets, samplers and the DataLoader (MXNet's module layout). Subclass Dataset
and define __len__ and __getitem__ for your own; the DataLoader batches any of them."""
from .dataset import *  # noqa: F401,F403
from .sampler import *  # noqa: F401,F403
from .dataloader import *  # noqa: F401,F403
from . import dataset, sampler, dataloader, vision
