"""gluon.rnn's recurrent cells (MXNet 1.x): one step at a time (``cell(x_t, states)``) or a whole
sequence (``cell.unroll(length, inputs)``), on NDArrays or Symbols, with MXNet's parameter names
(``<prefix>i2h_weight``...) and node names (``<prefix>t0_out``...)."""
from ... import ndarray as _nd
from ... import symbol as _sym
from ..block import Block, HybridBlock

__all__ = ["RecurrentCell", "HybridRecurrentCell", "RNNCell", "LSTMCell", "GRUCell", "SequentialRNNCell",
           "HybridSequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell",
           "BidirectionalCell"]


def _module_of(x):
    return _sym if isinstance(x, _sym.Symbol) else _nd


def _steps(length, inputs, layout, merge):
    """(inputs as a list of ``length`` steps, or merged on the time axis; the time axis; F; batch
    size, 0 for Symbols)."""
    axis = layout.find("T")
    first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
    F = _module_of(first)
    if F is _sym:
        batch_size = 0
    else:  # a step is (N, C); a whole sequence has N where the layout says
        batch_size = first.shape[0] if isinstance(inputs, (list, tuple)) else inputs.shape[layout.find("N")]
    if isinstance(inputs, (list, tuple)):
        if len(inputs) != length:
            raise ValueError("unroll(%d, ...) got %d steps of inputs" % (length, len(inputs)))
        if merge:
            return F.stack(*inputs, axis=axis), axis, F, batch_size
        return list(inputs), axis, F, batch_size
    if F is _nd and inputs.shape[axis] != length:
        raise ValueError("unroll(%d, ...) got inputs of %d steps along axis %d" % (length, inputs.shape[axis], axis))
    if merge is False:
        steps = F.split(inputs, axis=axis, num_outputs=length, squeeze_axis=1)
        return ([steps] if length == 1 else list(steps)), axis, F, batch_size
    return inputs, axis, F, batch_size


class _CellType(type(Block)):
    """Cells are Blocks or HybridBlocks (C++ classes, which cannot both be bases of one Python
    class); isinstance(cell, RecurrentCell) holds for both kinds, as in MXNet."""

    def __instancecheck__(cls, obj):
        return cls is RecurrentCell and isinstance(obj, _Cell) or super().__instancecheck__(obj)

    def __subclasscheck__(cls, sub):
        return cls is RecurrentCell and issubclass(sub, _Cell) or super().__subclasscheck__(sub)


class _Cell:
    """What every cell does: ``state_info``, ``begin_state``, ``unroll`` and one step by calling it."""

    def __init__(self, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self._modified = False
        self.reset()

    def reset(self):
        """Starts the step counter (node names t0_, t1_, ...) again, for this cell and its children."""
        self._init_counter = -1
        self._counter = -1
        for cell in self._children.values():
            cell.reset()

    def state_info(self, batch_size=0):
        raise NotImplementedError()

    def begin_state(self, batch_size=0, func=_nd.zeros, **kwargs):
        """The initial states made by ``func`` (zeros by default), shaped as state_info says."""
        assert not self._modified, ("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be "
                                    "called directly. Call the modifier cell instead.")
        states = []
        for info in self.state_info(batch_size):
            self._init_counter += 1
            info = dict(info or {})
            info.pop("__layout__", None)
            info.update(kwargs)
            if func is _sym.zeros or getattr(func, "__module__", "").startswith("braid.symbol"):
                info["name"] = "%sbegin_state_%d" % (self.prefix, self._init_counter)
            states.append(func(**info))
        return states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        """Runs ``length`` steps: (outputs, last states). ``inputs``: a list of steps or one array
        with a time axis (``layout``); outputs merged into one array when ``merge_outputs`` (as
        the inputs came when None); with ``valid_length`` each sequence's states are those of its
        last valid step and its outputs past it are zero."""
        self.reset()
        steps, axis, F, batch_size = _steps(length, inputs, layout, False)
        if begin_state is None:
            kwargs = {"ctx": steps[0].context, "dtype": steps[0].dtype} if F is _nd else {}  # the inputs' dtype
            begin_state = self.begin_state(batch_size=batch_size, func=F.zeros, **kwargs)
        states = begin_state
        outputs, all_states = [], []
        for step in steps:
            output, states = self(step, states)
            outputs.append(output)
            if valid_length is not None:
                all_states.append(states)
        if valid_length is not None:
            states = [F.SequenceLast(F.stack(*each, axis=0), sequence_length=valid_length, use_sequence_length=True,
                                     axis=0) for each in zip(*all_states)]
            merged = F.SequenceMask(F.stack(*outputs, axis=0), sequence_length=valid_length, use_sequence_length=True,
                                    axis=0)
            outputs = list(F.split(merged, axis=0, num_outputs=length, squeeze_axis=1)) if length > 1 else \
                [F.squeeze(merged, axis=0)]
        if merge_outputs is None:
            merge_outputs = not isinstance(inputs, (list, tuple))
        if merge_outputs:
            outputs = F.stack(*outputs, axis=axis)
        return outputs, states

    def _get_activation(self, F, inputs, activation, **kwargs):
        if isinstance(activation, str):
            if activation == "leaky":
                return F.LeakyReLU(inputs, act_type="leaky", **kwargs)
            return F.Activation(inputs, act_type=activation, **kwargs)
        return activation(inputs, **kwargs)

    def forward(self, inputs, states):
        """One step: (output, new states)."""
        self._counter += 1
        return super().forward(inputs, states)


class RecurrentCell(_Cell, Block, metaclass=_CellType):
    """A recurrent cell: ``state_info``, ``begin_state``, ``unroll`` and one step by calling it."""


class HybridRecurrentCell(_Cell, HybridBlock):
    """A recurrent cell whose step is a hybrid_forward."""

    def hybrid_forward(self, F, x, *args, **kwargs):
        raise NotImplementedError


class _GatedCell(HybridRecurrentCell):
    """The i2h / h2h parameters of a cell with ``gates`` blocks of hidden_size rows."""

    def __init__(self, hidden_size, gates, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                 h2h_bias_initializer, input_size, prefix, params):
        super().__init__(prefix=prefix, params=params)
        self._hidden_size, self._input_size = hidden_size, input_size
        rows = gates * hidden_size
        self.i2h_weight = self.params.get("i2h_weight", shape=(rows, input_size), init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=(rows, hidden_size), init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def forward(self, inputs, states):
        if isinstance(inputs, _nd.NDArray) and self.i2h_weight._deferred:
            self.i2h_weight._finish_deferred_init((self.i2h_weight.shape[0], inputs.shape[-1]))
        return super().forward(inputs, states)

    def _projections(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix, rows):
        i2h = F.FullyConnected(data=inputs, weight=i2h_weight, bias=i2h_bias, num_hidden=rows, name=prefix + "i2h")
        h2h = F.FullyConnected(data=state, weight=h2h_weight, bias=h2h_bias, num_hidden=rows, name=prefix + "h2h")
        return i2h, h2h

    def __repr__(self):
        shape = self.i2h_weight.shape
        return "{}({} -> {})".format(self.__class__.__name__, shape[1] if shape[1] else None, shape[0])


class RNNCell(_GatedCell):
    """Elman cell: h_t = activation(W_ih x_t + b_ih + W_hh h_(t-1) + b_hh)."""

    def __init__(self, hidden_size, activation="tanh", i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, 1, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation = activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix,
                                     self._hidden_size)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class LSTMCell(_GatedCell):
    """Long short-term memory cell, gates i, f, c, o (MXNet's order); states [h, c]."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None,
                 activation="tanh", recurrent_activation="sigmoid"):
        super().__init__(hidden_size, 4, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)
        self._activation, self._recurrent_activation = activation, recurrent_activation

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"},
                {"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._projections(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix,
                                     4 * self._hidden_size)
        gates = F.SliceChannel(F.elemwise_add(i2h, h2h, name=prefix + "plus0"), num_outputs=4, name=prefix + "slice")
        in_gate = self._get_activation(F, gates[0], self._recurrent_activation, name=prefix + "i")
        forget_gate = self._get_activation(F, gates[1], self._recurrent_activation, name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = self._get_activation(F, gates[3], self._recurrent_activation, name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation,
                                                               name=prefix + "activation0"), name=prefix + "out")
        return next_h, [next_h, next_c]


class GRUCell(_GatedCell):
    """Gated recurrent unit cell (gates r, z, n, as MXNet and cuDNN compute them)."""

    def __init__(self, hidden_size, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", input_size=0, prefix=None, params=None):
        super().__init__(hidden_size, 3, i2h_weight_initializer, h2h_weight_initializer, i2h_bias_initializer,
                         h2h_bias_initializer, input_size, prefix, params)

    def state_info(self, batch_size=0):
        return [{"shape": (batch_size, self._hidden_size), "__layout__": "NC"}]

    def _alias(self):
        return "gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev = states[0]
        i2h, h2h = self._projections(F, inputs, prev, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix,
                                     3 * self._hidden_size)
        i2h_r, i2h_z, i2h_n = F.SliceChannel(i2h, num_outputs=3, name=prefix + "i2h_slice")
        h2h_r, h2h_z, h2h_n = F.SliceChannel(h2h, num_outputs=3, name=prefix + "h2h_slice")
        reset = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"), act_type="sigmoid",
                             name=prefix + "r_act")
        update = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"), act_type="sigmoid",
                              name=prefix + "z_act")
        candidate = F.Activation(F.elemwise_add(i2h_n, F.elemwise_mul(reset, h2h_n, name=prefix + "mul0"),
                                                name=prefix + "plus2"), act_type="tanh", name=prefix + "h_act")
        keep = F.elemwise_sub(F.ones_like(update, name=prefix + "ones_like0"), update, name=prefix + "minus0")
        next_h = F.elemwise_add(F.elemwise_mul(keep, candidate, name=prefix + "mul1"),
                                F.elemwise_mul(update, prev, name=prefix + "mul20"), name=prefix + "out")
        return next_h, [next_h]


def _split_states(cells, states):
    """The states of each cell, cut from one list by the cells' state_info."""
    out, at = [], 0
    for cell in cells:
        n = len(cell.state_info())
        out.append(states[at:at + n])
        at += n
    return out


class _ChildrenStates:
    """The states of a cell made of cells: its children's, concatenated."""

    def state_info(self, batch_size=0):
        return [info for cell in self._children.values() for info in cell.state_info(batch_size)]

    def begin_state(self, **kwargs):
        assert not self._modified, ("After applying modifier cells (e.g. ZoneoutCell) the base cell cannot be "
                                    "called directly. Call the modifier cell instead.")
        return [s for cell in self._children.values() for s in cell.begin_state(**kwargs)]


class _Sequential(_ChildrenStates):
    """Cells stacked: each step goes through them in order; the states are theirs, concatenated."""

    def add(self, cell):
        self.register_child(cell)


    def __call__(self, inputs, states):
        self._counter += 1
        next_states = []
        for cell, cell_states in zip(self._children.values(), _split_states(self._children.values(), states)):
            inputs, cell_states = cell(inputs, cell_states)
            next_states.extend(cell_states)
        return inputs, next_states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        _, _, F, batch_size = _steps(length, inputs, layout, None)
        if begin_state is None:
            kwargs = {}
            if F is _nd:
                first = inputs[0] if isinstance(inputs, (list, tuple)) else inputs
                kwargs.update(ctx=first.context, dtype=first.dtype)
            begin_state = self.begin_state(batch_size=batch_size, func=F.zeros, **kwargs)
        cells = list(self._children.values())
        next_states = []
        for i, (cell, states) in enumerate(zip(cells, _split_states(cells, begin_state))):
            last = i == len(cells) - 1
            inputs, states = cell.unroll(length, inputs, states, layout, merge_outputs=None if last else merge_outputs,
                                         valid_length=valid_length)
            next_states.extend(states)
        return inputs, next_states

    def __getitem__(self, i):
        return list(self._children.values())[i]

    def __len__(self):
        return len(self._children)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("SequentialRNNCell is called step by step or unrolled, not as a block")


class SequentialRNNCell(_Sequential, RecurrentCell):
    """Cells stacked: each step goes through them in order; the states are theirs, concatenated."""


class HybridSequentialRNNCell(_Sequential, HybridRecurrentCell):
    """SequentialRNNCell for hybrid cells."""


class DropoutCell(HybridRecurrentCell):
    """Dropout on the inputs of each step (``rate``, along all axes but ``axes``); no states."""

    def __init__(self, rate, axes=(), prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        assert isinstance(rate, float), "rate must be a number"
        self._rate, self._axes = rate, axes

    def state_info(self, batch_size=0):
        return []

    def _alias(self):
        return "dropout"

    def hybrid_forward(self, F, inputs, states):
        if self._rate > 0:
            inputs = F.Dropout(data=inputs, p=self._rate, axes=self._axes, name="t%d_fwd" % self._counter)
        return inputs, states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        merged, axis, F, _ = _steps(length, inputs, layout, merge_outputs)
        if isinstance(merged, (list, tuple)):
            return super().unroll(length, inputs, begin_state, layout, merge_outputs, valid_length)
        outputs, _ = self.hybrid_forward(F, merged, begin_state or [])
        if valid_length is not None:
            outputs = F.SequenceMask(outputs, sequence_length=valid_length, use_sequence_length=True, axis=axis)
        return outputs, []


class ModifierCell(HybridRecurrentCell):
    """A cell that changes another (``base_cell``), whose parameters it uses."""

    def __init__(self, base_cell):
        assert not base_cell._modified, "Cell %s is already modified. One cell cannot be modified twice" \
            % base_cell.name
        base_cell._modified = True
        super().__init__(prefix=base_cell.prefix + self._alias(), params=None)
        self.base_cell = base_cell

    @property
    def params(self):
        return self.base_cell.params

    def state_info(self, batch_size=0):
        return self.base_cell.state_info(batch_size)

    def begin_state(self, func=_nd.zeros, **kwargs):
        assert not self._modified, ("After applying modifier cells (e.g. DropoutCell) the base cell cannot be "
                                    "called directly. Call the modifier cell instead.")
        self.base_cell._modified = False
        try:
            return self.base_cell.begin_state(func=func, **kwargs)
        finally:
            self.base_cell._modified = True

    def hybrid_forward(self, F, inputs, states):
        raise NotImplementedError


class ZoneoutCell(ModifierCell):
    """Zoneout: in training each output and state element keeps its previous value with
    probability ``zoneout_outputs`` / ``zoneout_states``."""

    def __init__(self, base_cell, zoneout_outputs=0., zoneout_states=0.):
        assert not isinstance(base_cell, BidirectionalCell), \
            "BidirectionalCell doesn't support zoneout since it doesn't support step. Please add ZoneoutCell to " \
            "the cells underneath instead."
        super().__init__(base_cell)
        self.zoneout_outputs, self.zoneout_states = zoneout_outputs, zoneout_states
        self._prev_output = None

    def _alias(self):
        return "zoneout"

    def reset(self):
        super().reset()
        self._prev_output = None

    def hybrid_forward(self, F, inputs, states):
        cell, p_outputs, p_states = self.base_cell, self.zoneout_outputs, self.zoneout_states
        next_output, next_states = cell(inputs, states)

        def mask(p, like):
            return F.Dropout(F.ones_like(like), p=p)

        prev_output = self._prev_output if self._prev_output is not None else F.zeros_like(next_output)
        output = F.where(mask(p_outputs, next_output), next_output, prev_output) if p_outputs != 0. else next_output
        states = ([F.where(mask(p_states, new), new, old) for new, old in zip(next_states, states)]
                  if p_states != 0. else next_states)
        self._prev_output = output
        return output, states


class ResidualCell(ModifierCell):
    """The base cell's output plus its input (a residual connection)."""

    def _alias(self):
        return "residual"

    def hybrid_forward(self, F, inputs, states):
        output, states = self.base_cell(inputs, states)
        return F.elemwise_add(output, inputs, name="t%d_fwd" % self._counter), states

    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        self.base_cell._modified = False
        try:
            outputs, states = self.base_cell.unroll(length, inputs, begin_state, layout, merge_outputs,
                                                    valid_length=valid_length)
        finally:
            self.base_cell._modified = True
        merge = isinstance(outputs, (_nd.NDArray, _sym.Symbol)) if merge_outputs is None else merge_outputs
        steps, _, F, _ = _steps(length, inputs, layout, merge)
        if valid_length is not None:
            steps = F.SequenceMask(steps if merge else F.stack(*steps, axis=layout.find("T")),
                                   sequence_length=valid_length, use_sequence_length=True, axis=layout.find("T"))
            if not merge:
                steps = _steps(length, steps, layout, False)[0]
        if merge:
            return outputs + steps, states
        return [o + i for o, i in zip(outputs, steps)], states


class BidirectionalCell(_ChildrenStates, HybridRecurrentCell):
    """Two cells over the sequence, ``l_cell`` forward and ``r_cell`` backward, their outputs
    concatenated on the feature axis; unrolled only (no single step)."""

    def __init__(self, l_cell, r_cell, output_prefix="bi_"):
        super().__init__(prefix="", params=None)
        self.register_child(l_cell, "l_cell")
        self.register_child(r_cell, "r_cell")
        self._output_prefix = output_prefix

    def __call__(self, inputs, states):
        raise NotImplementedError("Bidirectional cannot be stepped. Please use unroll")


    def unroll(self, length, inputs, begin_state=None, layout="NTC", merge_outputs=None, valid_length=None):
        self.reset()
        steps, axis, F, batch_size = _steps(length, inputs, layout, False)
        reversed_steps = (list(reversed(steps)) if valid_length is None else
                          _steps(length, F.SequenceReverse(F.stack(*steps, axis=0), sequence_length=valid_length,
                                                           use_sequence_length=True, axis=0), "TNC", False)[0])
        if begin_state is None:
            kwargs = {"ctx": steps[0].context, "dtype": steps[0].dtype} if F is _nd else {}  # the inputs' dtype
            begin_state = self.begin_state(batch_size=batch_size, func=F.zeros, **kwargs)
        l_cell, r_cell = self._children["l_cell"], self._children["r_cell"]
        l_states, r_states = _split_states([l_cell, r_cell], begin_state)
        l_out, l_states = l_cell.unroll(length, steps, l_states, layout, merge_outputs=False,
                                        valid_length=valid_length)
        r_out, r_states = r_cell.unroll(length, reversed_steps, r_states, layout, merge_outputs=False,
                                        valid_length=valid_length)
        if valid_length is None:
            r_out = list(reversed(r_out))
        else:
            r_out = _steps(length, F.SequenceReverse(F.stack(*r_out, axis=0), sequence_length=valid_length,
                                                     use_sequence_length=True, axis=0), "TNC", False)[0]
        if merge_outputs is None:
            merge_outputs = not isinstance(inputs, (list, tuple))
        outputs = [F.concat(l, r, dim=1, name="%st%d" % (self._output_prefix, i))
                   for i, (l, r) in enumerate(zip(l_out, r_out))]
        if merge_outputs:
            outputs = F.stack(*outputs, axis=axis)
        return outputs, l_states + r_states
