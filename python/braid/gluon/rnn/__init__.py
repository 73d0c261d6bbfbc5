"""gluon.rnn: recurrent layers over the fused RNN operator (RNN, LSTM, GRU)."""
from .rnn_layer import RNN, LSTM, GRU

__all__ = ["RNN", "LSTM", "GRU"]
