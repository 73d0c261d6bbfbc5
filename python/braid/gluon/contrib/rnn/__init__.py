"""gluon.contrib.rnn: contributed recurrent cells (VariationalDropoutCell, LSTMPCell)."""
from .rnn_cell import LSTMPCell, VariationalDropoutCell

__all__ = ["VariationalDropoutCell", "LSTMPCell"]
