"""gluon.rnn's recurrent layers (MXNet 1.x): RNN, LSTM and GRU over a whole sequence through the
fused ``RNN`` operator, with MXNet's parameter names (``l0_i2h_weight``, ``r1_h2h_bias``, ...), so
that parameter files move between the two."""
from ... import ndarray as _nd
from ... import symbol as _sym
from ..block import HybridBlock

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


class _RNNLayer(HybridBlock):
    """The layers' common part: parameters, states and the call of the fused operator."""

    def __init__(self, hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                 h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, mode, projection_size=None,
                 h2r_weight_initializer=None, dtype="float32", **kwargs):
        super().__init__(**kwargs)
        if layout not in ("TNC", "NTC"):
            raise ValueError("Invalid layout %s; must be one of ['TNC' or 'NTC']" % layout)
        if projection_size and mode != "lstm":
            raise ValueError("projection_size applies to LSTM layers only")
        self._projection_size = projection_size or None
        self._hidden_size, self._num_layers, self._layout = hidden_size, num_layers, layout
        self._dropout, self._dir, self._input_size, self._mode = dropout, 2 if bidirectional else 1, input_size, mode
        self._dtype = dtype
        self._initializers = {"i2h_weight_initializer": i2h_weight_initializer,
                              "h2h_weight_initializer": h2h_weight_initializer,
                              "i2h_bias_initializer": i2h_bias_initializer,
                              "h2h_bias_initializer": h2h_bias_initializer}
        if self._projection_size:
            self._initializers["h2r_weight_initializer"] = h2r_weight_initializer
        gates = _GATES[mode]
        recurrent = self._projection_size or hidden_size  # the width of the state fed back
        self._weight_names = []
        ni = input_size
        with self.name_scope():
            for layer in range(num_layers):
                for d in ["l", "r"][:self._dir]:
                    for group, shape, init in (("i2h", (gates * hidden_size, ni), i2h_weight_initializer),
                                               ("h2h", (gates * hidden_size, recurrent), h2h_weight_initializer)):
                        name = "%s%d_%s_weight" % (d, layer, group)
                        setattr(self, name, self.params.get(name, shape=shape, init=init, dtype=dtype,
                                                            allow_deferred_init=True))
                    for group, init in (("i2h", i2h_bias_initializer), ("h2h", h2h_bias_initializer)):
                        name = "%s%d_%s_bias" % (d, layer, group)
                        setattr(self, name, self.params.get(name, shape=(gates * hidden_size,), init=init,
                                                            dtype=dtype, allow_deferred_init=True))
                    if self._projection_size:
                        name = "%s%d_h2r_weight" % (d, layer)
                        setattr(self, name, self.params.get(name, shape=(recurrent, hidden_size),
                                                            init=h2r_weight_initializer, dtype=dtype,
                                                            allow_deferred_init=True))
                ni = recurrent * self._dir

    def __repr__(self):
        mapping = ("{0} -> {1}".format(self._input_size if self._input_size else None, self._hidden_size))
        s = "{name}({mapping}, {_layout}"
        if self._num_layers != 1:
            s += ", num_layers={_num_layers}"
        if self._dropout != 0:
            s += ", dropout={_dropout}"
        if self._dir == 2:
            s += ", bidirectional"
        return (s + ")").format(name=self.__class__.__name__, mapping=mapping, **self.__dict__)

    def state_info(self, batch_size=0):
        raise NotImplementedError

    def _unfuse(self):
        """The same network as a stack of cells sharing this layer's parameters (MXNet's)."""
        from . import rnn_cell
        from ..contrib.rnn import LSTMPCell
        make = {"rnn_relu": lambda **kw: rnn_cell.RNNCell(self._hidden_size, activation="relu", **kw),
                "rnn_tanh": lambda **kw: rnn_cell.RNNCell(self._hidden_size, activation="tanh", **kw),
                "lstm": lambda **kw: rnn_cell.LSTMCell(self._hidden_size, **kw),
                "gru": lambda **kw: rnn_cell.GRUCell(self._hidden_size, **kw)}[self._mode]
        if self._projection_size:
            make = lambda **kw: LSTMPCell(self._hidden_size, self._projection_size, **kw)  # noqa: E731
        stack = rnn_cell.HybridSequentialRNNCell(prefix=self.prefix, params=self.params)
        with stack.name_scope():
            ni = self._input_size
            for i in range(self._num_layers):
                kwargs = dict(self._initializers, input_size=ni)
                if self._dir == 2:
                    stack.add(rnn_cell.BidirectionalCell(make(prefix="l%d_" % i, **kwargs),
                                                         make(prefix="r%d_" % i, **kwargs)))
                else:
                    stack.add(make(prefix="l%d_" % i, **kwargs))
                if self._dropout > 0 and i != self._num_layers - 1:
                    stack.add(rnn_cell.DropoutCell(self._dropout))
                ni = (self._projection_size or self._hidden_size) * self._dir
        return stack

    def begin_state(self, batch_size=0, func=_nd.zeros, **kwargs):
        """The initial states, zeros by default: a list of arrays shaped as state_info says."""
        states = []
        for i, info in enumerate(self.state_info(batch_size)):
            info = dict(info)
            info.pop("__layout__", None)
            info.update(kwargs)
            states.append(func(name="%sh0_%d" % (self.prefix, i), **info) if func is not _nd.zeros
                          else func(**info))
        return states

    def forward(self, inputs, states=None):
        skip_states = states is None
        if skip_states:
            if isinstance(inputs, _nd.NDArray):
                batch_size = inputs.shape[self._layout.find("N")]
                states = self.begin_state(batch_size, ctx=inputs.context, dtype=inputs.dtype)
            else:
                states = self.begin_state(0, func=_sym.zeros)
        if isinstance(states, (_nd.NDArray, _sym.Symbol)):
            states = [states]
        if isinstance(inputs, _nd.NDArray):
            self._finish_input_size(inputs.shape[2])
            batch_size = inputs.shape[self._layout.find("N")]
            for state, info in zip(states, self.state_info(batch_size)):
                if state.shape != info["shape"]:
                    raise ValueError("Invalid recurrent state shape. Expecting %s, got %s."
                                     % (str(info["shape"]), str(state.shape)))
        out = super().forward(inputs, states)
        return out[0] if skip_states else out

    def infer_shape(self, inputs, *args):
        """Completes the parameters' shapes from the inputs (MXNet's HybridBlock.infer_shape)."""
        self._finish_input_size(inputs.shape[2])

    def _finish_input_size(self, input_size):
        """The first layer's input weights take their width from the first input (MXNet's deferred
        initialization)."""
        for d in ["l", "r"][:self._dir]:
            p = getattr(self, "%s0_i2h_weight" % d)
            if p._deferred:
                p._finish_deferred_init((p.shape[0], input_size))

    def hybrid_forward(self, F, inputs, states, **params):
        if self._layout == "NTC":
            inputs = F.swapaxes(inputs, dim1=0, dim2=1)
        # the fused operator's packing: every weight (layer, direction, i2h, h2h and with a
        # projection h2r), then every bias (i2h, h2h)
        groups = ("i2h", "h2h", "h2r") if self._projection_size else ("i2h", "h2h")
        flat = [F.reshape(params["%s%d_%s_%s" % (d, layer, group, kind)], shape=(-1,))
                for kind in ("weight", "bias") for layer in range(self._num_layers)
                for d in ["l", "r"][:self._dir] for group in groups if group != "h2r" or kind == "weight"]
        packed = F._internal._rnn_param_concat(*flat, dim=0)
        extra = dict(getattr(self, "_clip", {}))
        if self._projection_size:
            extra["projection_size"] = self._projection_size
        rnn = F.RNN(inputs, packed, *states, state_size=self._hidden_size, num_layers=self._num_layers,
                    bidirectional=self._dir == 2, p=self._dropout, state_outputs=True, mode=self._mode, **extra)
        outputs = rnn[0]
        new_states = [rnn[1], rnn[2]] if self._mode == "lstm" else [rnn[1]]
        if self._layout == "NTC":
            outputs = F.swapaxes(outputs, dim1=0, dim2=1)
        return outputs, new_states


def _state_shape(layer, batch_size):
    return (layer._num_layers * layer._dir, batch_size, layer._hidden_size)


class RNN(_RNNLayer):
    """Elman RNN layers: h_t = activation(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh), activation 'relu'
    or 'tanh'. Input (T, N, C) with layout 'TNC' or (N, T, C) with 'NTC'; one state
    (num_layers * directions, N, hidden_size)."""

    def __init__(self, hidden_size, num_layers=1, activation="relu", layout="TNC", dropout=0, bidirectional=False,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", input_size=0, dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "rnn_" + activation,
                         dtype=dtype, **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": _state_shape(self, batch_size), "__layout__": "LNC", "dtype": self._dtype}]


class LSTM(_RNNLayer):
    """Long short-term memory layers (gates i, f, g, o, as MXNet and cuDNN order them). Two
    states, hidden and cell, each (num_layers * directions, N, hidden_size). With
    projection_size P the hidden state is projected (h2r_weight, P x hidden_size) before it is
    output and fed back (LSTMP): the output is (T, N, directions * P) and the first state
    (num_layers * directions, N, P). state_clip_min and state_clip_max clip the cell state at every
    step (state_clip_nan: NaN becomes the minimum)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", projection_size=None, h2r_weight_initializer=None,
                 state_clip_min=None, state_clip_max=None, state_clip_nan=False, dtype="float32", **kwargs):
        clipping = state_clip_min is not None or state_clip_max is not None or state_clip_nan
        if clipping and (state_clip_min is None or state_clip_max is None):
            raise ValueError("LSTM: give both state_clip_min and state_clip_max, or neither")
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "lstm",
                         projection_size=projection_size, h2r_weight_initializer=h2r_weight_initializer,
                         dtype=dtype, **kwargs)
        # the fused operator clips the cell state to [min, max] at every step (NaN to min with _nan)
        self._clip = {"lstm_state_clip_min": state_clip_min, "lstm_state_clip_max": state_clip_max,
                      "lstm_state_clip_nan": state_clip_nan} if clipping else {}

    def state_info(self, batch_size=0):
        shape = _state_shape(self, batch_size)
        first = shape[:2] + (self._projection_size,) if self._projection_size else shape
        return [{"shape": first, "__layout__": "LNC", "dtype": self._dtype},
                {"shape": shape, "__layout__": "LNC", "dtype": self._dtype}]


class GRU(_RNNLayer):
    """Gated recurrent unit layers (gates r, z, n, as MXNet and cuDNN order them). One state
    (num_layers * directions, N, hidden_size)."""

    def __init__(self, hidden_size, num_layers=1, layout="TNC", dropout=0, bidirectional=False, input_size=0,
                 i2h_weight_initializer=None, h2h_weight_initializer=None, i2h_bias_initializer="zeros",
                 h2h_bias_initializer="zeros", dtype="float32", **kwargs):
        super().__init__(hidden_size, num_layers, layout, dropout, bidirectional, input_size, i2h_weight_initializer,
                         h2h_weight_initializer, i2h_bias_initializer, h2h_bias_initializer, "gru", dtype=dtype,
                         **kwargs)

    def state_info(self, batch_size=0):
        return [{"shape": _state_shape(self, batch_size), "__layout__": "LNC", "dtype": self._dtype}]
