"""gluon.contrib.rnn: contributed recurrent cells (VariationalDropoutCell, LSTMPCell, the
convolutional Conv{1,2,3}D{RNN,LSTM,GRU}Cell) and dynamic_unroll."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell, dynamic_unroll
from .conv_rnn_cell import *  # noqa: F401,F403
from . import conv_rnn_cell, rnn_cell

__all__ = ["VariationalDropoutCell", "LSTMPCell", "dynamic_unroll"] + conv_rnn_cell.__all__
