"""mxnet.rnn's recurrent cells, built from ordinary symbols (FullyConnected, SliceChannel,
Activation, elementwise arithmetic, Concat...): one call of a cell is one time step, ``unroll``
repeats it over a sequence. Node and parameter names follow MXNet 1.x's (``lstm_l0_i2h_weight``,
``lstm_l0_t3_out``...), so that checkpoints and programs written for MXNet find what they expect.

``FusedRNNCell`` describes MXNet's cuDNN-fused RNN; Braid has no fused ``RNN`` operator, so
unrolling one raises MXNetError, while ``unfuse()`` gives the equivalent stack of cells here."""
import functools
import numbers

from .. import symbol, init, ndarray
from ..base import MXNetError

__all__ = ["RNNParams", "BaseRNNCell", "RNNCell", "LSTMCell", "GRUCell", "FusedRNNCell",
           "SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell", "BaseConvRNNCell", "ConvRNNCell", "ConvLSTMCell", "ConvGRUCell"]


# --- helpers -------------------------------------------------------------------------------

def _each_cell(cells, method, value):
    """Threads ``value`` through ``cell.<method>`` of each cell in turn."""
    for cell in cells:
        value = getattr(cell, method)(value)
    return value


def _concat_lists(lists):
    joined = []
    for part in lists:
        joined.extend(part)
    return joined


def _time_axis(layout):
    axis = layout.find("T")
    if axis < 0:
        raise ValueError("layout %r has no time axis 'T'" % (layout,))
    return axis


def _as_steps(length, inputs, layout, merge, in_layout=None):
    """The sequence ``inputs`` as unroll wants it: with ``merge`` False a list of ``length``
    per-step symbols, with ``merge`` True one symbol with time on ``layout``'s T axis, with
    ``merge`` None whatever it already is. Returns (inputs, time axis)."""
    if inputs is None:
        raise ValueError("unroll(inputs=None) is not supported: make the input symbols first "
                         "(e.g. mx.sym.Variable('data')) and pass them to unroll")
    axis = _time_axis(layout)
    in_axis = _time_axis(in_layout) if in_layout is not None else axis
    if isinstance(inputs, symbol.Symbol):
        if merge is False:
            if len(inputs.list_outputs()) != 1:
                raise ValueError("unroll takes one symbol (split along time) or a list of "
                                 "per-step symbols, not a grouped symbol: pass list(inputs)")
            inputs = list(symbol.split(inputs, axis=in_axis, num_outputs=length, squeeze_axis=1))
    else:
        inputs = list(inputs)
        if length is not None and len(inputs) != length:
            raise ValueError("unroll of %d steps got %d inputs" % (length, len(inputs)))
        if merge is True:
            steps = [symbol.expand_dims(step, axis=axis) for step in inputs]
            inputs = symbol.Concat(*steps, dim=axis)
            in_axis = axis
    if isinstance(inputs, symbol.Symbol) and axis != in_axis:
        inputs = symbol.swapaxes(inputs, dim1=axis, dim2=in_axis)
    return inputs, axis


class RNNParams(object):
    """The variables of one or more cells, by name (``prefix`` + name): cells given the same
    RNNParams share their weights.

    Parameters
    ----------
    prefix : str
        Prepended to the names of the variables made here.
    """

    def __init__(self, prefix=""):
        self._prefix = prefix
        self._params = {}

    def get(self, name, **kwargs):
        """The variable ``prefix + name``, made (with ``kwargs`` for symbol.Variable) the first
        time it is asked for."""
        full = self._prefix + name
        var = self._params.get(full)
        if var is None:
            var = symbol.Variable(full, **kwargs)
            self._params[full] = var
        return var


class BaseRNNCell(object):
    """What every recurrent cell has: ``__call__(inputs, states)`` for one step, ``unroll`` for a
    sequence, ``begin_state`` for the first step's states, and its weights in ``params``.

    Parameters
    ----------
    prefix : str
        Prefix of the cell's node names (and of its weights' names when ``params`` is None).
    params : RNNParams or None
        Weights shared with other cells; the cell makes its own when None.
    """

    def __init__(self, prefix="", params=None):
        self._own_params = params is None
        self._params = RNNParams(prefix) if params is None else params
        self._prefix = prefix
        self._modified = False
        self.reset()

    def reset(self):
        """Starts the step and begin-state counters again (node names restart at ``t0``), before
        the cell is used in another graph."""
        self._init_counter = -1
        self._counter = -1
        for cell in getattr(self, "_cells", ()):
            cell.reset()

    def __call__(self, inputs, states):
        """One time step: (output, next states) from ``inputs`` (batch, features) and the states
        of the step before (or ``begin_state()``)."""
        raise NotImplementedError()

    @property
    def params(self):
        """The cell's RNNParams (once asked for, they count as shared)."""
        self._own_params = False
        return self._params

    @property
    def state_info(self):
        """One dict per state: its ``shape`` (0 for the batch size) and ``__layout__``."""
        raise NotImplementedError()

    @property
    def state_shape(self):
        return [info["shape"] for info in self.state_info]

    @property
    def _gate_names(self):
        """Suffixes of the gates packed in the i2h/h2h weights, in order."""
        return ()

    def begin_state(self, func=symbol.zeros, **kwargs):
        """The first step's states: ``func(name=..., **kwargs, **state_info)`` per state, named
        ``<prefix>begin_state_<n>``. ``func`` is symbol.zeros by default; symbol.Variable makes
        them inputs to feed."""
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                                 "cannot be called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info:
            self._init_counter += 1
            if info is not None:
                kwargs.update(info)
            states.append(func(name="%sbegin_state_%d" % (self._prefix, self._init_counter), **kwargs))
        return states

    def unpack_weights(self, args):
        """``args`` (name -> NDArray, e.g. Module.get_params()[0]) with this cell's i2h/h2h weights
        and biases cut into one array per gate (``<prefix>i2h_f_weight``...)."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        h = self._num_hidden
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                packed = args.pop("%s%s_%s" % (self._prefix, group, kind))
                for j, gate in enumerate(gates):
                    args["%s%s%s_%s" % (self._prefix, group, gate, kind)] = packed[j * h:(j + 1) * h].copy()
        return args

    def pack_weights(self, args):
        """The reverse of unpack_weights: the gates' arrays joined into the i2h/h2h weights."""
        args = dict(args)
        gates = self._gate_names
        if not gates:
            return args
        for group in ("i2h", "h2h"):
            for kind in ("weight", "bias"):
                parts = [args.pop("%s%s%s_%s" % (self._prefix, group, gate, kind)) for gate in gates]
                args["%s%s_%s" % (self._prefix, group, kind)] = ndarray.concatenate(parts)
        return args

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        """Runs the cell over ``length`` steps.

        Parameters
        ----------
        length : int
            Number of steps.
        inputs : Symbol or list of Symbol
            One symbol of shape (batch, length, ...) for layout 'NTC' or (length, batch, ...) for
            'TNC', or a list of ``length`` symbols of shape (batch, ...).
        begin_state : list of Symbol, optional
            The first step's states; ``begin_state()`` when None.
        layout : str
            'NTC' or 'TNC'.
        merge_outputs : bool or None
            True: the outputs as one symbol laid out as ``layout``; False: a list, one per step;
            None: whichever the cell makes.

        Returns
        -------
        (outputs, states): the outputs, and the states after the last step.
        """
        self.reset()
        steps, _ = _as_steps(length, inputs, layout, False)
        states = self.begin_state() if begin_state is None else begin_state
        outputs = []
        for step in range(length):
            output, states = self(steps[step], states)
            outputs.append(output)
        outputs, _ = _as_steps(length, outputs, layout, merge_outputs)
        return outputs, states

    def _get_activation(self, inputs, activation, **kwargs):
        """``activation`` applied to ``inputs``: an Activation act_type by name, or a callable."""
        if isinstance(activation, str):
            return symbol.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)


class _GatedCell(BaseRNNCell):
    """A cell with i2h and h2h weights (``num_gates * num_hidden`` rows each)."""

    def _make_weights(self, i2h_bias_init=None):
        self._iW = self.params.get("i2h_weight")
        self._iB = (self.params.get("i2h_bias") if i2h_bias_init is None
                    else self.params.get("i2h_bias", init=i2h_bias_init))
        self._hW = self.params.get("h2h_weight")
        self._hB = self.params.get("h2h_bias")

    def _projections(self, inputs, state, rows, i2h_name, h2h_name):
        i2h = symbol.FullyConnected(data=inputs, weight=self._iW, bias=self._iB, num_hidden=rows,
                                    name=i2h_name)
        h2h = symbol.FullyConnected(data=state, weight=self._hW, bias=self._hB, num_hidden=rows,
                                    name=h2h_name)
        return i2h, h2h

    def _step_name(self):
        self._counter += 1
        return "%st%d_" % (self._prefix, self._counter)


class RNNCell(_GatedCell):
    """Elman RNN: h' = activation(W_i x + b_i + W_h h + b_h).

    Parameters
    ----------
    num_hidden : int
        Size of the output (and state).
    activation : str or callable, default 'tanh'
        Activation act_type (e.g. 'relu', 'tanh') or a function of (symbol, name=...).
    prefix : str, default 'rnn_'
    params : RNNParams or None
    """

    def __init__(self, num_hidden, activation="tanh", prefix="rnn_", params=None):
        super(RNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._activation = activation
        self._make_weights()

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ("",)

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], self._num_hidden, name + "i2h", name + "h2h")
        output = self._get_activation(i2h + h2h, self._activation, name=name + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """Long short-term memory cell; gates in the order input, forget, cell, output:
    c' = sigmoid(f) * c + sigmoid(i) * tanh(g), h' = sigmoid(o) * tanh(c').

    Parameters
    ----------
    num_hidden : int
    prefix : str, default 'lstm_'
    params : RNNParams or None
    forget_bias : float, default 1.0
        The forget gate's part of i2h_bias starts at this (init.LSTMBias).
    """

    def __init__(self, num_hidden, prefix="lstm_", params=None, forget_bias=1.0):
        super(LSTMCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._make_weights(i2h_bias_init=init.LSTMBias(forget_bias=forget_bias))

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"},
                {"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._projections(inputs, states[0], 4 * self._num_hidden, name + "i2h", name + "h2h")
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, name=name + "slice")
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name=name + "i")
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name=name + "f")
        candidate = symbol.Activation(gates[2], act_type="tanh", name=name + "c")
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name=name + "o")
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * candidate, name=name + "state")
        next_h = symbol._internal._mul(out_gate, symbol.Activation(next_c, act_type="tanh"), name=name + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """Gated recurrent unit as cuDNN computes it; gates reset, update, candidate:
    r = sigmoid(.), z = sigmoid(.), n = tanh(W_in x + b_in + r * (W_hn h + b_hn)),
    h' = (1 - z) * n + z * h.

    Parameters
    ----------
    num_hidden : int
    prefix : str, default 'gru_'
    params : RNNParams or None
    """

    def __init__(self, num_hidden, prefix="gru_", params=None):
        super(GRUCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._make_weights()

    @property
    def state_info(self):
        return [{"shape": (0, self._num_hidden), "__layout__": "NC"}]

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        prev_h = states[0]
        i2h, h2h = self._projections(inputs, prev_h, 3 * self._num_hidden, name + "_i2h", name + "_h2h")
        i2h_r, i2h_z, i2h_n = symbol.SliceChannel(i2h, num_outputs=3, name=name + "_i2h_slice")
        h2h_r, h2h_z, h2h_n = symbol.SliceChannel(h2h, num_outputs=3, name=name + "_h2h_slice")
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name=name + "_r_act")
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid", name=name + "_z_act")
        candidate = symbol.Activation(i2h_n + reset_gate * h2h_n, act_type="tanh", name=name + "_h_act")
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h,
                                        name=name + "out")
        return next_h, [next_h]


class FusedRNNCell(BaseRNNCell):
    """MXNet's cuDNN-fused multi-layer RNN (all steps, layers and directions in one ``RNN``
    operator over one packed ``<prefix>parameters`` vector).

    Braid has no fused ``RNN`` operator: ``unroll`` raises MXNetError. ``unfuse()`` gives the same
    network as a SequentialRNNCell of RNNCell/LSTMCell/GRUCell (BidirectionalCell, DropoutCell),
    with the names the fused weights unpack to; ``pack_weights``/``unpack_weights`` convert
    between the packed vector and those cells' weights.

    Parameters
    ----------
    num_hidden : int
    num_layers : int, default 1
    mode : str, default 'lstm'
        'rnn_relu', 'rnn_tanh', 'lstm' or 'gru'.
    bidirectional : bool, default False
    dropout : float, default 0.
        Dropout between layers.
    get_next_state : bool, default False
    forget_bias : float, default 1.0
    prefix : str, default '<mode>_'
    params : RNNParams or None
    """

    _MODES = {"rnn_relu": [""], "rnn_tanh": [""], "lstm": ["_i", "_f", "_c", "_o"],
              "gru": ["_r", "_z", "_o"]}

    def __init__(self, num_hidden, num_layers=1, mode="lstm", bidirectional=False, dropout=0.,
                 get_next_state=False, forget_bias=1.0, prefix=None, params=None):
        if mode not in self._MODES:
            raise ValueError("FusedRNNCell mode must be one of %s, got %r" % (sorted(self._MODES), mode))
        if prefix is None:
            prefix = "%s_" % mode
        super(FusedRNNCell, self).__init__(prefix=prefix, params=params)
        self._num_hidden = num_hidden
        self._num_layers = num_layers
        self._mode = mode
        self._bidirectional = bidirectional
        self._dropout = dropout
        self._get_next_state = get_next_state
        self._forget_bias = forget_bias
        self._directions = ["l", "r"] if bidirectional else ["l"]
        self._parameter = self.params.get("parameters")

    @property
    def state_info(self):
        layers = len(self._directions) * self._num_layers
        count = 2 if self._mode == "lstm" else 1
        return [{"shape": (layers, 0, self._num_hidden), "__layout__": "LNC"} for _ in range(count)]

    @property
    def _gate_names(self):
        return self._MODES[self._mode]

    @property
    def _num_gates(self):
        return len(self._gate_names)

    def _slices(self, num_input):
        """(name, offset, shape) of each unpacked weight and bias in the packed vector, in cuDNN's
        order: every layer's and direction's weights (i2h gates, then h2h gates), then the
        biases in the same order."""
        h = self._num_hidden
        b = len(self._directions)
        pieces, offset = [], 0
        for kind in ("weight", "bias"):
            for layer in range(self._num_layers):
                for direction in self._directions:
                    for group in ("i2h", "h2h"):
                        if kind == "bias":
                            shape = (h,)
                        elif group == "h2h":
                            shape = (h, h)
                        else:
                            shape = (h, num_input if layer == 0 else b * h)
                        for gate in self._gate_names:
                            name = "%s%s%d_%s%s_%s" % (self._prefix, direction, layer, group, gate, kind)
                            pieces.append((name, offset, shape))
                            size = 1
                            for dim in shape:
                                size *= dim
                            offset += size
        return pieces, offset

    def _num_input(self, total):
        h, b, m, layers = self._num_hidden, len(self._directions), self._num_gates, self._num_layers
        # total = m*b*h*(num_input + h + 2) + (layers-1)*m*b*h*(b*h + h + 2)
        return total // (m * b * h) - (layers - 1) * (b * h + h + 2) - h - 2

    def unpack_weights(self, args):
        args = dict(args)
        packed = args.pop(self._parameter.name)
        pieces, total = self._slices(self._num_input(packed.size))
        if total != packed.size:
            raise MXNetError("%s has %d elements, not a size FusedRNNCell(%d hidden, %d layers, %s) packs"
                             % (self._parameter.name, packed.size, self._num_hidden, self._num_layers, self._mode))
        flat = packed.reshape((-1,))
        for name, offset, shape in pieces:
            size = 1
            for dim in shape:
                size *= dim
            args[name] = flat[offset:offset + size].reshape(shape).copy()
        return args

    def pack_weights(self, args):
        args = dict(args)
        first = args["%sl0_i2h%s_weight" % (self._prefix, self._gate_names[0])]
        pieces, total = self._slices(first.shape[1])
        packed = ndarray.zeros((total,), ctx=first.context, dtype=first.dtype)
        for name, offset, shape in pieces:
            size = 1
            for dim in shape:
                size *= dim
            packed[offset:offset + size] = args.pop(name).reshape((-1,))
        args[self._parameter.name] = packed
        return args

    def __call__(self, inputs, states):
        raise NotImplementedError("FusedRNNCell cannot be stepped. Please use unroll")

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        raise MXNetError(
            "FusedRNNCell needs the fused RNN operator (mx.sym.RNN, cuDNN's fused kernel), which "
            "Braid does not have. Use cell.unfuse() for the equivalent stack of %s cells "
            "(mx.rnn.SequentialRNNCell of %s%s), which unrolls here; pack_weights/unpack_weights "
            "convert between the fused parameter vector and their weights."
            % (self._mode, {"lstm": "LSTMCell", "gru": "GRUCell"}.get(self._mode, "RNNCell"),
               " in BidirectionalCell" if self._bidirectional else ""))

    def unfuse(self):
        """The same network as a SequentialRNNCell of unfused cells (one per layer, in a
        BidirectionalCell when bidirectional, DropoutCell between layers when dropout > 0)."""
        def make(prefix):
            if self._mode == "lstm":
                return LSTMCell(self._num_hidden, prefix=prefix, forget_bias=self._forget_bias)
            if self._mode == "gru":
                return GRUCell(self._num_hidden, prefix=prefix)
            return RNNCell(self._num_hidden, activation=self._mode[len("rnn_"):], prefix=prefix)

        stack = SequentialRNNCell()
        for layer in range(self._num_layers):
            if self._bidirectional:
                stack.add(BidirectionalCell(make("%sl%d_" % (self._prefix, layer)),
                                            make("%sr%d_" % (self._prefix, layer)),
                                            output_prefix="%sbi_l%d_" % (self._prefix, layer)))
            else:
                stack.add(make("%sl%d_" % (self._prefix, layer)))
            if self._dropout > 0 and layer != self._num_layers - 1:
                stack.add(DropoutCell(self._dropout, prefix="%s_dropout%d_" % (self._prefix, layer)))
        return stack


class SequentialRNNCell(BaseRNNCell):
    """Cells stacked: each step's output of one is the input of the next.

    Parameters
    ----------
    params : RNNParams or None
        When given, the weights of every cell added (which must not have been given params of
        their own) come from it.
    """

    def __init__(self, params=None):
        super(SequentialRNNCell, self).__init__(prefix="", params=params)
        self._override_cell_params = params is not None
        self._cells = []

    def add(self, cell):
        """Appends ``cell`` to the stack."""
        self._cells.append(cell)
        if self._override_cell_params:
            if not cell._own_params:
                raise AssertionError("Either specify params for SequentialRNNCell or child cells, not both.")
            cell.params._params.update(self.params._params)
        self.params._params.update(cell.params._params)

    @property
    def _bidirectional(self):
        return any(isinstance(cell, BidirectionalCell) or getattr(cell, "_bidirectional", False) is True
                   for cell in self._cells)

    @property
    def state_info(self):
        return _concat_lists(cell.state_info for cell in self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. ZoneoutCell) the base cell "
                                 "cannot be called directly. Call the modifier cell instead.")
        return _concat_lists(cell.begin_state(**kwargs) for cell in self._cells)

    def unpack_weights(self, args):
        return _each_cell(self._cells, "unpack_weights", args)

    def pack_weights(self, args):
        return _each_cell(self._cells, "pack_weights", args)

    def _split_states(self, states):
        parts, start = [], 0
        for cell in self._cells:
            count = len(cell.state_info)
            parts.append(list(states[start:start + count]))
            start += count
        return parts

    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        for cell, cell_states in zip(self._cells, self._split_states(states)):
            if isinstance(cell, BidirectionalCell):
                raise NotImplementedError("A SequentialRNNCell with a BidirectionalCell cannot be "
                                          "stepped. Please use unroll")
            inputs, cell_states = cell(inputs, cell_states)
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        if begin_state is None:
            begin_state = self.begin_state()
        next_states = []
        last = len(self._cells) - 1
        for i, (cell, cell_states) in enumerate(zip(self._cells, self._split_states(begin_state))):
            inputs, cell_states = cell.unroll(length, inputs=inputs, begin_state=cell_states, layout=layout,
                                              merge_outputs=merge_outputs if i == last else None)
            next_states.extend(cell_states)
        return inputs, next_states


class DropoutCell(BaseRNNCell):
    """Dropout on the input of each step (no state).

    Parameters
    ----------
    dropout : float
        Fraction of the elements dropped.
    prefix : str, default 'dropout_'
    params : RNNParams or None
    """

    def __init__(self, dropout, prefix="dropout_", params=None):
        super(DropoutCell, self).__init__(prefix, params)
        if not isinstance(dropout, numbers.Number):
            raise AssertionError("dropout probability must be a number")
        self.dropout = dropout

    @property
    def state_info(self):
        return []

    def __call__(self, inputs, states):
        if self.dropout > 0:
            inputs = symbol.Dropout(data=inputs, p=self.dropout)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        inputs, _ = _as_steps(length, inputs, layout, merge_outputs)
        if isinstance(inputs, symbol.Symbol):  # the whole sequence at once
            return self(inputs, [])
        return super(DropoutCell, self).unroll(length, inputs, begin_state=begin_state, layout=layout,
                                               merge_outputs=merge_outputs)


class ModifierCell(BaseRNNCell):
    """A cell wrapping ``base_cell`` and changing what it does (ZoneoutCell, ResidualCell). The
    base cell is then used through the modifier only."""

    def __init__(self, base_cell):
        super(ModifierCell, self).__init__()
        base_cell._modified = True
        self.base_cell = base_cell

    @property
    def params(self):
        self._own_params = False
        return self.base_cell.params

    @property
    def state_info(self):
        return self.base_cell.state_info

    def begin_state(self, init_sym=symbol.zeros, **kwargs):  # pylint: disable=arguments-differ
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base cell "
                                 "cannot be called directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(init_sym, **kwargs)
        finally:
            self.base_cell._modified = True

    def unpack_weights(self, args):
        return self.base_cell.unpack_weights(args)

    def pack_weights(self, args):
        return self.base_cell.pack_weights(args)

    def __call__(self, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout (Krueger et al. 2016): in training, each element of the output and of the states
    keeps its previous step's value with probability ``zoneout_outputs`` / ``zoneout_states``.

    Parameters
    ----------
    base_cell : BaseRNNCell
    zoneout_outputs : float, default 0.
    zoneout_states : float, default 0.
    """

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        if isinstance(base_cell, FusedRNNCell):
            raise AssertionError("FusedRNNCell doesn't support zoneout. Please unfuse first.")
        if isinstance(base_cell, BidirectionalCell):
            raise AssertionError("BidirectionalCell doesn't support zoneout since it doesn't support step. "
                                 "Please add ZoneoutCell to the cells underneath instead.")
        if isinstance(base_cell, SequentialRNNCell) and base_cell._bidirectional:
            raise AssertionError("Bidirectional SequentialRNNCell doesn't support zoneout. "
                                 "Please add ZoneoutCell to the cells underneath instead.")
        super(ZoneoutCell, self).__init__(base_cell)
        self.zoneout_outputs = zoneout_outputs
        self.zoneout_states = zoneout_states
        self.prev_output = None

    def reset(self):
        super(ZoneoutCell, self).reset()
        self.prev_output = None

    @staticmethod
    def _zoneout(p, new, old):
        # Dropout of ones: 0 where zoned out (keep old), 1/(1-p) elsewhere (take new); in inference
        # Dropout passes the ones through, so the new value is always taken.
        keep_new = symbol.Dropout(symbol.ones_like(new), p=p)
        return symbol.where(keep_new, new, old)

    def __call__(self, inputs, states):
        next_output, next_states = self.base_cell(inputs, states)
        prev_output = self.prev_output if self.prev_output is not None else symbol.zeros_like(next_output)
        output = (self._zoneout(self.zoneout_outputs, next_output, prev_output)
                  if self.zoneout_outputs != 0. else next_output)
        if self.zoneout_states != 0.:
            next_states = [self._zoneout(self.zoneout_states, new, old) for new, old in zip(next_states, states)]
        self.prev_output = output
        return output, next_states


class ResidualCell(ModifierCell):
    """The base cell's output plus its input (Wu et al. 2016); node ``<output>_plus_residual``.

    Parameters
    ----------
    base_cell : BaseRNNCell
    """

    def __init__(self, base_cell):  # pylint: disable=useless-super-delegation
        super(ResidualCell, self).__init__(base_cell)

    @staticmethod
    def _add(output, inputs):
        return symbol.elemwise_add(output, inputs, name="%s_plus_residual" % output.name)

    def __call__(self, inputs, states):
        output, states = self.base_cell(inputs, states)
        return self._add(output, inputs), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs=inputs, begin_state=begin_state,
                                                    layout=layout, merge_outputs=merge_outputs)
        finally:
            self.base_cell._modified = True
        if merge_outputs is None:
            merge_outputs = isinstance(outputs, symbol.Symbol)
        inputs, _ = _as_steps(length, inputs, layout, merge_outputs)
        if merge_outputs:
            return self._add(outputs, inputs), states
        return [self._add(out, inp) for out, inp in zip(outputs, inputs)], states


class BidirectionalCell(BaseRNNCell):
    """``l_cell`` run forward and ``r_cell`` backward over the sequence, their outputs joined
    along the features (nodes ``<output_prefix>t<i>``, or ``<output_prefix>out`` merged). Can only
    be unrolled, not stepped.

    Parameters
    ----------
    l_cell, r_cell : BaseRNNCell
    params : RNNParams or None
    output_prefix : str, default 'bi_'
    """

    def __init__(self, l_cell, r_cell, params=None, output_prefix="bi_"):
        super(BidirectionalCell, self).__init__("", params=params)
        self._output_prefix = output_prefix
        self._override_cell_params = params is not None
        if self._override_cell_params:
            if not (l_cell._own_params and r_cell._own_params):
                raise AssertionError("Either specify params for BidirectionalCell or child cells, not both.")
            l_cell.params._params.update(self.params._params)
            r_cell.params._params.update(self.params._params)
        self.params._params.update(l_cell.params._params)
        self.params._params.update(r_cell.params._params)
        self._cells = [l_cell, r_cell]

    def unpack_weights(self, args):
        return _each_cell(self._cells, "unpack_weights", args)

    def pack_weights(self, args):
        return _each_cell(self._cells, "pack_weights", args)

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")

    @property
    def state_info(self):
        return _concat_lists(cell.state_info for cell in self._cells)

    def begin_state(self, **kwargs):  # pylint: disable=arguments-differ
        if self._modified:
            raise AssertionError("After applying modifier cells (e.g. DropoutCell) the base cell "
                                 "cannot be called directly. Call the modifier cell instead.")
        return _concat_lists(cell.begin_state(**kwargs) for cell in self._cells)

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None):
        self.reset()
        steps, axis = _as_steps(length, inputs, layout, False)
        if begin_state is None:
            begin_state = self.begin_state()
        l_cell, r_cell = self._cells
        n_left = len(l_cell.state_info)
        l_out, l_states = l_cell.unroll(length, inputs=steps, begin_state=begin_state[:n_left],
                                        layout=layout, merge_outputs=merge_outputs)
        r_out, r_states = r_cell.unroll(length, inputs=list(reversed(steps)), begin_state=begin_state[n_left:],
                                        layout=layout, merge_outputs=merge_outputs)
        if merge_outputs is None:
            merge_outputs = isinstance(l_out, symbol.Symbol) and isinstance(r_out, symbol.Symbol)
            if not merge_outputs:
                if isinstance(l_out, symbol.Symbol):
                    l_out = list(symbol.SliceChannel(l_out, axis=axis, num_outputs=length, squeeze_axis=1))
                if isinstance(r_out, symbol.Symbol):
                    r_out = list(symbol.SliceChannel(r_out, axis=axis, num_outputs=length, squeeze_axis=1))
        if merge_outputs:
            outputs = symbol.Concat(l_out, symbol.reverse(r_out, axis=axis), dim=2,
                                    name="%sout" % self._output_prefix)
        else:
            outputs = [symbol.Concat(l_o, r_o, dim=1, name="%st%d" % (self._output_prefix, i))
                       for i, (l_o, r_o) in enumerate(zip(l_out, reversed(r_out)))]
        return outputs, [l_states, r_states]


class BaseConvRNNCell(BaseRNNCell):
    """Base of the convolutional cells: i2h and h2h are Convolutions; the state has the shape
    the i2h convolution gives ``input_shape`` (batch 0)."""

    def __init__(self, input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                 i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                 i2h_bias_initializer, h2h_bias_initializer, activation, prefix="", params=None,
                 conv_layout="NCHW"):
        super(BaseConvRNNCell, self).__init__(prefix=prefix, params=params)
        if h2h_kernel[0] % 2 != 1 or h2h_kernel[1] % 2 != 1:
            raise AssertionError("Only support odd number, get h2h_kernel= %s" % str(h2h_kernel))
        self._h2h_kernel = h2h_kernel
        self._h2h_dilate = h2h_dilate
        self._h2h_pad = (h2h_dilate[0] * (h2h_kernel[0] - 1) // 2, h2h_dilate[1] * (h2h_kernel[1] - 1) // 2)
        self._i2h_kernel = i2h_kernel
        self._i2h_stride = i2h_stride
        self._i2h_pad = i2h_pad
        self._i2h_dilate = i2h_dilate
        self._num_hidden = num_hidden
        self._input_shape = input_shape
        self._conv_layout = conv_layout
        self._activation = activation

        probe = symbol.Convolution(data=symbol.Variable("data"), num_filter=num_hidden, kernel=i2h_kernel,
                                   stride=i2h_stride, pad=i2h_pad, dilate=i2h_dilate, layout=conv_layout)
        out_shape = probe.infer_shape(data=input_shape)[1][0]
        self._state_shape = (0,) + tuple(out_shape[1:])

        self._iW = self.params.get("i2h_weight", init=i2h_weight_initializer)
        self._hW = self.params.get("h2h_weight", init=h2h_weight_initializer)
        self._iB = self.params.get("i2h_bias", init=i2h_bias_initializer)
        self._hB = self.params.get("h2h_bias", init=h2h_bias_initializer)

    @property
    def _num_gates(self):
        return len(self._gate_names)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}] * 2

    def _conv_forward(self, inputs, states, name):
        filters = self._num_hidden * self._num_gates
        i2h = symbol.Convolution(name="%si2h" % name, data=inputs, num_filter=filters, kernel=self._i2h_kernel,
                                 stride=self._i2h_stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                                 weight=self._iW, bias=self._iB, layout=self._conv_layout)
        h2h = symbol.Convolution(name="%sh2h" % name, data=states[0], num_filter=filters, kernel=self._h2h_kernel,
                                 dilate=self._h2h_dilate, pad=self._h2h_pad, stride=(1, 1),
                                 weight=self._hW, bias=self._hB, layout=self._conv_layout)
        return i2h, h2h

    def _step_name(self):
        self._counter += 1
        return "%st%d_" % (self._prefix, self._counter)

    def __call__(self, inputs, states):
        raise NotImplementedError("BaseConvRNNCell is abstract class for convolutional RNN")


_LEAKY = functools.partial(symbol.LeakyReLU, act_type="leaky", slope=0.2)


class ConvRNNCell(BaseConvRNNCell):
    """Convolutional RNN cell (see BaseConvRNNCell for the parameters; prefix 'ConvRNN_')."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvRNN_", params=None, conv_layout="NCHW"):
        super(ConvRNNCell, self).__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                                          i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                                          i2h_bias_initializer, h2h_bias_initializer, activation, prefix=prefix,
                                          params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ("",)

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        output = self._get_activation(i2h + h2h, self._activation, name="%sout" % name)
        return output, [output]


class ConvLSTMCell(BaseConvRNNCell):
    """Convolutional LSTM cell (Xingjian et al. 2015; prefix 'ConvLSTM_')."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvLSTM_", params=None, conv_layout="NCHW"):
        super(ConvLSTMCell, self).__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                                           i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                                           i2h_bias_initializer, h2h_bias_initializer, activation, prefix=prefix,
                                           params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_i", "_f", "_c", "_o"]

    def __call__(self, inputs, states):
        name = self._step_name()
        i2h, h2h = self._conv_forward(inputs, states, name)
        gates = symbol.SliceChannel(i2h + h2h, num_outputs=4, axis=self._conv_layout.find("C"),
                                    name="%sslice" % name)
        in_gate = symbol.Activation(gates[0], act_type="sigmoid", name="%si" % name)
        forget_gate = symbol.Activation(gates[1], act_type="sigmoid", name="%sf" % name)
        candidate = self._get_activation(gates[2], self._activation, name="%sc" % name)
        out_gate = symbol.Activation(gates[3], act_type="sigmoid", name="%so" % name)
        next_c = symbol._internal._plus(forget_gate * states[1], in_gate * candidate, name="%sstate" % name)
        next_h = symbol._internal._mul(out_gate, self._get_activation(next_c, self._activation),
                                       name="%sout" % name)
        return next_h, [next_h, next_c]


class ConvGRUCell(BaseConvRNNCell):
    """Convolutional GRU cell (prefix 'ConvGRU_')."""

    def __init__(self, input_shape, num_hidden, h2h_kernel=(3, 3), h2h_dilate=(1, 1), i2h_kernel=(3, 3),
                 i2h_stride=(1, 1), i2h_pad=(1, 1), i2h_dilate=(1, 1), i2h_weight_initializer=None,
                 h2h_weight_initializer=None, i2h_bias_initializer="zeros", h2h_bias_initializer="zeros",
                 activation=_LEAKY, prefix="ConvGRU_", params=None, conv_layout="NCHW"):
        super(ConvGRUCell, self).__init__(input_shape, num_hidden, h2h_kernel, h2h_dilate, i2h_kernel, i2h_stride,
                                          i2h_pad, i2h_dilate, i2h_weight_initializer, h2h_weight_initializer,
                                          i2h_bias_initializer, h2h_bias_initializer, activation, prefix=prefix,
                                          params=params, conv_layout=conv_layout)

    @property
    def _gate_names(self):
        return ["_r", "_z", "_o"]

    @property
    def state_info(self):
        return [{"shape": self._state_shape, "__layout__": self._conv_layout}]

    def __call__(self, inputs, states):
        name = self._step_name()
        prev_h = states[0]
        i2h, h2h = self._conv_forward(inputs, states, name)
        i2h_r, i2h_z, i2h_n = symbol.SliceChannel(i2h, num_outputs=3, name="%s_i2h_slice" % name)
        h2h_r, h2h_z, h2h_n = symbol.SliceChannel(h2h, num_outputs=3, name="%s_h2h_slice" % name)
        reset_gate = symbol.Activation(i2h_r + h2h_r, act_type="sigmoid", name="%s_r_act" % name)
        update_gate = symbol.Activation(i2h_z + h2h_z, act_type="sigmoid", name="%s_z_act" % name)
        candidate = self._get_activation(i2h_n + reset_gate * h2h_n, self._activation, name="%s_h_act" % name)
        next_h = symbol._internal._plus((1. - update_gate) * candidate, update_gate * prev_h, name="%sout" % name)
        return next_h, [next_h]
