"""gluon.contrib.rnn: contributed recurrent cells (VariationalDropoutCell)."""
from .rnn_cell import VariationalDropoutCell

__all__ = ["VariationalDropoutCell"]
