"""mxnet.rnn's recurrent cells, built from ordinary symbols (FullyConnected, SliceChannel,
Activation, elementwise arithmetic, Concat...): one call of a cell is one time step, ``unroll``
repeats it over a sequence. Node and parameter names follow MXNet 1.x's (``lstm_l0_i2h_weight``,
``lstm_l0_t3_out``...), so that checkpoints and programs written for MXNet find what they expect.

``FusedRNNCell`` unrolls into one fused ``RNN`` operator over the whole sequence (all layers and
directions), with its weights packed in one vector; ``unfuse()`` gives the equivalent stack of cells.
This file holds the base cell and the gated cells; the cells that combine or modify others are in
cell_wrappers.py, the convolutional ones in conv_cells.py (all importable from here, as MXNet's
``mxnet.rnn.rnn_cell``)."""

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
    """MXNet's fused multi-layer RNN (all steps, layers and directions in one ``RNN`` operator
    over one packed ``<prefix>parameters`` vector).

    ``unfuse()`` gives the same
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
        initializer = init.FusedRNN(None, num_hidden, num_layers, mode, bidirectional, forget_bias)
        self._parameter = self.params.get("parameters", init=initializer)

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
        """The whole sequence through one ``RNN`` operator named ``<prefix>rnn``; the states are
        its final states when ``get_next_state``, else an empty list."""
        self.reset()
        inputs, axis = _as_steps(length, inputs, layout, True)
        if axis == 1:
            inputs = symbol.swapaxes(inputs, dim1=0, dim2=1)
        elif axis != 0:
            raise ValueError("FusedRNNCell.unroll: layout %r is neither NTC nor TNC" % (layout,))
        if begin_state is None:
            begin_state = self.begin_state()
        states = {"state": begin_state[0]}
        if self._mode == "lstm":
            states["state_cell"] = begin_state[1]
        rnn = symbol.RNN(data=inputs, parameters=self._parameter, state_size=self._num_hidden,
                         num_layers=self._num_layers, bidirectional=self._bidirectional, p=self._dropout,
                         state_outputs=self._get_next_state, mode=self._mode, name=self._prefix + "rnn",
                         **states)
        if not self._get_next_state:
            outputs, states = rnn, []
        else:
            count = 2 if self._mode == "lstm" else 1
            for k in range(1, count + 1):
                rnn[k]._set_attr(__layout__="LNC")
            outputs, states = rnn[0], [rnn[k] for k in range(1, count + 1)]
        if axis == 1:
            outputs = symbol.swapaxes(outputs, dim1=0, dim2=1)
        outputs, _ = _as_steps(length, outputs, layout, merge_outputs)
        return outputs, states

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


# The combining and convolutional cells (FusedRNNCell.unfuse builds the former); they import the
# base cell above, so they come last.
from .cell_wrappers import SequentialRNNCell, DropoutCell, ModifierCell, ZoneoutCell, ResidualCell, \
    BidirectionalCell  # noqa: E402
from .conv_cells import BaseConvRNNCell, ConvRNNCell, ConvLSTMCell, ConvGRUCell  # noqa: E402
