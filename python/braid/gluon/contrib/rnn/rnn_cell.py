"""VariationalDropoutCell (Gal and Ghahramani, arXiv:1512.05287): dropout whose masks are drawn
at the first step of a sequence and kept for all its steps, on a cell's inputs, first state (h)
and outputs, each with a mask of its own."""
from ...rnn.rnn_cell import BidirectionalCell, ModifierCell


class VariationalDropoutCell(ModifierCell):
    """Wraps ``base_cell``: rates ``drop_inputs``, ``drop_states`` (the first state only) and
    ``drop_outputs``, 0 for none. The masks last until ``reset()`` (``unroll`` resets)."""

    def __init__(self, base_cell, drop_inputs=0., drop_states=0., drop_outputs=0.):
        assert not drop_states or not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support variational state dropout. Please add VariationalDropoutCell to " \
            "the cells underneath instead."
        super().__init__(base_cell)
        self.drop_inputs, self.drop_states, self.drop_outputs = drop_inputs, drop_states, drop_outputs
        self._masks = {}

    def _alias(self):
        return "vardrop"

    def reset(self):
        super().reset()
        self._masks = {}

    def _dropped(self, F, kind, rate, x):
        """x times this sequence's mask for ``kind``, drawn the first time it is needed."""
        if not rate:
            return x
        if kind not in self._masks:
            self._masks[kind] = F.Dropout(F.ones_like(x), p=rate)
        return x * self._masks[kind]

    def hybrid_forward(self, F, inputs, states):
        states = list(states)
        if states:
            states[0] = self._dropped(F, "states", self.drop_states, states[0])
        inputs = self._dropped(F, "inputs", self.drop_inputs, inputs)
        output, next_states = self.base_cell(inputs, states)
        return self._dropped(F, "outputs", self.drop_outputs, output), next_states

    def __repr__(self):
        return "%s(p_out = %s, p_state = %s)" % (type(self).__name__, self.drop_outputs, self.drop_states)
