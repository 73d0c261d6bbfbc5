"""gluon.contrib.rnn's cells: VariationalDropoutCell (Gal and Ghahramani, arXiv:1512.05287),
dropout whose masks are drawn at the first step of a sequence and kept for all its steps, on a
cell's inputs, first state (h) and outputs, each with a mask of its own; and LSTMPCell, an LSTM
whose recurrent state is a projection of its hidden state."""
from .... import ndarray as _nd
from ...rnn.rnn_cell import BidirectionalCell, HybridRecurrentCell, ModifierCell
from .dynamic_unroll import dynamic_unroll  # noqa: F401  (MXNet's home of it: contrib.rnn.rnn_cell)

__all__ = ["VariationalDropoutCell", "LSTMPCell", "dynamic_unroll"]


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


class LSTMPCell(HybridRecurrentCell):
    """LSTM with a projected recurrent state (Sak et al., arXiv:1402.1128): gates i, f, c, o
    from x_t and r_(t-1); c_t as an LSTM's; r_t = W_hr (o * tanh(c_t)) of projection_size
    units, the output and the next recurrent input. States [r, c]."""

    def __init__(self, hidden_size, projection_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 h2r_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 input_size=0, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size, self._projection_size = hidden_size, input_size, projection_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(4 * hidden_size, input_size),
                                          init=i2h_weight_initializer, allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(4 * hidden_size, projection_size),
                                          init=h2h_weight_initializer, allow_deferred_init=True)
        self.h2r_weight = self.params.get("h2r_weight", shape=(projection_size, hidden_size),
                                          init=h2r_weight_initializer, allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(4 * hidden_size,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(4 * hidden_size,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._projection_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstmp"

    def __repr__(self):
        shape = self.i2h_weight.shape
        return "{}({} -> {} -> {})".format(self.__class__.__name__, shape[1] if shape[1] else None, shape[0],
                                           self._projection_size)

    def forward(self, inputs, states):
        if isinstance(inputs, _nd.NDArray) and self.i2h_weight._deferred:
            self.i2h_weight._finish_deferred_init((self.i2h_weight.shape[0], inputs.shape[-1]))
        return super().forward(inputs, states)

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, h2r_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        rows = 4 * self._hidden_size
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=states[0], weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + "h2h")
        gates = F.SliceChannel(i2h + h2h, num_outputs=4, name=prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = F.Activation(gates[2], act_type="tanh", name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(forget_gate * states[1], in_gate * in_transform, name=prefix + "state")
        hidden = F.elemwise_mul(out_gate, F.Activation(next_c, act_type="tanh"), name=prefix + "hidden")
        next_r = F.FullyConnected(data=hidden, weight=h2r_weight, no_bias=True, num_hidden=self._projection_size,
                                  name=prefix + "out")
        return next_r, [next_r, next_c]
