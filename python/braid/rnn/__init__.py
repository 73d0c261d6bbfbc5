"""mxnet.rnn: MXNet 1.x's legacy symbolic recurrent cells (RNNCell, LSTMCell, GRUCell and the
cells that stack, reverse, drop out or modify them), BucketSentenceIter for bucketed sentences,
and checkpoints that unpack the cells' fused gate weights."""
from . import rnn_cell
from .rnn_cell import *  # noqa: F401,F403

from . import rnn
from .rnn import *  # noqa: F401,F403

from . import io
from .io import *  # noqa: F401,F403
