"""gluon.rnn: recurrent layers over the fused RNN operator (RNN, LSTM, GRU) and recurrent cells."""
from .rnn_layer import RNN, LSTM, GRU
from .rnn_cell import (RecurrentCell, HybridRecurrentCell, RNNCell, LSTMCell, GRUCell, SequentialRNNCell,
                       HybridSequentialRNNCell, DropoutCell, ModifierCell, ZoneoutCell, ResidualCell,
                       BidirectionalCell)

__all__ = ["RNN", "LSTM", "GRU", "RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell",
           "SequentialRNNCell", "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell",
           "ResidualCell", "BidirectionalCell"]
