"""mxnet.rnn cells built from other cells: SequentialRNNCell (a stack), DropoutCell,
ModifierCell and its ZoneoutCell and ResidualCell, BidirectionalCell."""
import numbers

from .. import symbol
from .rnn_cell import BaseRNNCell, FusedRNNCell, _each_cell, _concat_lists, _as_steps

__all__ = ["SequentialRNNCell", "DropoutCell", "ModifierCell", "ZoneoutCell", "ResidualCell", "BidirectionalCell"]


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
